#!/usr/bin/env bash
# make dist: static release archives of heron (CGO_ENABLED=0) with SHA-256
# checksums, into dist/ (gitignored):
#
#   dist/heron_{VERSION}_{os}_{arch}.tar.gz   heron, README.md
#   dist/heron_{VERSION}_SHA256SUMS           sha256sum -c format
#   dist/build/{os}_{arch}/heron              the binaries (the Dockerfile copies
#                                             dist/build/linux_{arch}/heron)
#
#   VERSION       default: the git tag (git describe --tags --always --dirty)
#   DIST_TARGETS  default: "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"
#   DIST_DIR      default: dist
#
# The archives are reproducible: sorted entries, fixed owner and mtime (the
# commit's time), gzip without a name or time stamp.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
TARGETS=${DIST_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
OUT=${DIST_DIR:-dist}
MTIME=$(git log -1 --format=%cI 2>/dev/null || echo 2026-01-01T00:00:00Z)
LDFLAGS="-s -w -X github.com/heron-shell/heron/states.Version=$VERSION"

command -v sha256sum >/dev/null || { echo "dist: sha256sum not found" >&2; exit 1; }
mkdir -p "$OUT"
SUMS=$OUT/heron_${VERSION}_SHA256SUMS
: >"$SUMS.tmp"
for target in $TARGETS; do
	os=${target%/*}
	arch=${target#*/}
	if [ -z "$os" ] || [ -z "$arch" ] || [ "$os" = "$target" ]; then
		echo "dist: bad target $target (want OS/ARCH, e.g. linux/amd64)" >&2
		exit 2
	fi
	bin=$OUT/build/${os}_${arch}
	mkdir -p "$bin"
	echo "dist: $os/$arch" >&2
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -ldflags "$LDFLAGS" -o "$bin/heron" .
	stage=$(mktemp -d)
	name=heron_${VERSION}_${os}_${arch}
	mkdir "$stage/$name"
	cp "$bin/heron" README.md "$stage/$name/"
	tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="$MTIME" -cf - "$name" |
		gzip -n -9 >"$OUT/$name.tar.gz"
	rm -rf "$stage"
	(cd "$OUT" && sha256sum "$name.tar.gz") >>"$SUMS.tmp"
done
mv "$SUMS.tmp" "$SUMS"
echo "dist: $(wc -l <"$SUMS") archive(s) of heron $VERSION in $OUT/, checksums in $SUMS" >&2
cat "$SUMS"
