#!/usr/bin/env bash
# make test: every check of the project, each phase saying what it does and
# how long it usually takes on a 2-core machine, under 10 minutes from a
# fresh clone. The linter (golangci-lint, compiled from source once a
# machine into Go's bin folder, about 7.5 minutes on a fresh 2-core machine) is built in the
# background while the other phases run, at a lower priority; the e2e
# scripts run in parallel (tests/e2e/run.sh). A failed phase does not stop
# the others: the summary names every phase that failed, and the exit code
# is 1 when one did.
set -u
cd "$(dirname "$0")/.."
GO=${GO:-go}
MAKE=${MAKE:-make}
LINT=$1        # bin/golangci-lint-VERSION (the Makefile's GOLANGCI_LINT)
shift
RACE_PKGS=("$@") # the Makefile's RACE_PKGS

start_all=$(date +%s)
failed=()
summary=()

# phase NAME WHAT USUALLY COMMAND...: runs COMMAND, saying what it does
# before and how long it took after.
phase() {
	local name=$1 what=$2 usually=$3 s rc
	shift 3
	echo "== test: $name: $what (usually $usually)"
	s=$(date +%s)
	"$@"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		summary+=("$name ok ($(($(date +%s) - s))s)")
		echo "== test: $name: ok in $(($(date +%s) - s))s"
	else
		summary+=("$name FAILED ($(($(date +%s) - s))s)")
		failed+=("$name")
		echo "== test: $name: FAILED (exit $rc) in $(($(date +%s) - s))s"
	fi
	return "$rc"
}

# The linter: built in the background when the machine does not have it yet.
lint_pid=""
mkdir -p bin
lint_log=bin/golangci-lint-build.log
if [ ! -x "$LINT" ]; then
	echo "== test: lint build: compiling golangci-lint into $LINT in the background, once (about 7.5 min on a fresh 2-core machine; log: $lint_log)"
	nice -n 10 "$MAKE" -s "$LINT" >"$lint_log" 2>&1 &
	lint_pid=$!
fi

phase build "go build of bin/heron and bin/heron-failpoints" "2-4 min on an empty build cache, seconds after" \
	"$MAKE" -s build build-failpoints || {
	echo "test: bin/heron does not build; no other phase can run" >&2
	[ -z "$lint_pid" ] || kill "$lint_pid" 2>/dev/null
	exit 1
}
phase vet "go vet ./..." "under 1 min after the build" "$GO" vet ./...

# The race packages' tests run once, under the race detector (their
# goroutines are what it checks); every other package runs without it.
# -timeout 30m: go test's 10 min a package is too short on a loaded 2-core
# machine (TestDist builds heron twice from scratch with -trimpath).
race_list=$("$GO" list "${RACE_PKGS[@]}")
mapfile -t plain < <("$GO" list ./... | grep -vxF -f <(printf '%s\n' "$race_list"))
phase unit "go test of ${#plain[@]} packages (models, states, the embedded-etcd command tests, the chaos bounded set)" "2-5 min on an empty build cache" \
	env CGO_ENABLED=0 HERON_CHAOS_BIN_DIR="$PWD/bin" "$GO" test -timeout 30m "${plain[@]}"
# The e2e scripts mostly wait on etcd: they run beside the race phase (which
# compiles), their output held until it ends.
e2e_log=$(mktemp "${TMPDIR:-/tmp}/heron-test-e2e.XXXXXX")
echo "== test: e2e: tests/e2e/run.sh, the e2e scripts against Debian's etcd, 4 at a time, beside the race phase (usually 1-2 min; output below when both end)"
e2e_start=$(date +%s)
bash tests/e2e/run.sh >"$e2e_log" 2>&1 &
e2e_pid=$!
phase race "go test -race -tags failpoints of ${RACE_PKGS[*]}" "3-6 min on an empty build cache, 1-2 min after" \
	env CGO_ENABLED=1 "$GO" test -race -tags failpoints -timeout 30m "${RACE_PKGS[@]}"
wait "$e2e_pid"
e2e_rc=$?
cat "$e2e_log"
rm -f "$e2e_log"
if [ "$e2e_rc" -eq 0 ]; then
	summary+=("e2e ok ($(($(date +%s) - e2e_start))s)")
	echo "== test: e2e: ok in $(($(date +%s) - e2e_start))s"
else
	summary+=("e2e FAILED ($(($(date +%s) - e2e_start))s)")
	failed+=("e2e")
	echo "== test: e2e: FAILED (exit $e2e_rc) in $(($(date +%s) - e2e_start))s"
fi

if [ -n "$lint_pid" ]; then
	echo "== test: lint build: waiting for golangci-lint (started $(($(date +%s) - start_all))s ago)"
	if ! wait "$lint_pid"; then
		cat "$lint_log" >&2
		summary+=("lint build FAILED")
		failed+=("lint build")
	fi
fi
[ ! -x "$LINT" ] || phase lint "$LINT run ./..." "1-2 min" "$LINT" run ./...

echo "== test: $(IFS=,; echo "${summary[*]}" | sed 's/,/, /g'); $(($(date +%s) - start_all))s in all"
if [ "${#failed[@]}" -gt 0 ]; then
	echo "test: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "test: ok"
