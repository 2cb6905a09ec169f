// Package scripts holds the tests of the release scripts (dist.sh).
package scripts

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// make dist, for the machine's own target only (one build keeps it short):
// the archive holds the static binary and the README, its checksum is in
// SHA256SUMS, the binary reports the version it was given, and it sits where
// the Dockerfile copies it from.
func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heron")
	}
	out := t.TempDir()
	target := runtime.GOOS + "/" + runtime.GOARCH
	const version = "v9.8.7-test"
	cmd := exec.Command("bash", "dist.sh")
	cmd.Env = append(os.Environ(), "DIST_TARGETS="+target, "DIST_DIR="+out, "VERSION="+version)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)

	name := "heron_" + version + "_" + runtime.GOOS + "_" + runtime.GOARCH
	archive := filepath.Join(out, name+".tar.gz")
	entries, bin := readArchive(t, archive)
	assert.Equal(t, []string{name + "/", name + "/README.md", name + "/heron"}, entries)

	sums, err := os.ReadFile(filepath.Join(out, "heron_"+version+"_SHA256SUMS"))
	require.NoError(t, err)
	raw, err := os.ReadFile(archive)
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	assert.Equal(t, hex.EncodeToString(sum[:])+"  "+name+".tar.gz\n", string(sums), "sha256sum -c format")

	built := filepath.Join(out, "build", runtime.GOOS+"_"+runtime.GOARCH, "heron")
	onDisk, err := os.ReadFile(built)
	require.NoError(t, err)
	assert.Equal(t, onDisk, bin, "the archive holds the built binary")
	if runtime.GOOS == "linux" {
		f, err := elf.Open(built)
		require.NoError(t, err)
		for _, p := range f.Progs {
			assert.NotEqual(t, elf.PT_INTERP, p.Type, "static: no dynamic loader")
		}
		require.NoError(t, f.Close())
		v, err := exec.Command(built, "--version").CombinedOutput()
		require.NoError(t, err, "%s", v)
		assert.Contains(t, string(v), version)

		// The Dockerfile copies dist/build/linux_${TARGETARCH}/heron: with
		// DIST_DIR as dist/, that is the file just built.
		src := dockerCopySource(t, runtime.GOARCH)
		rel, ok := strings.CutPrefix(src, "dist/")
		require.True(t, ok, "the Dockerfile copies from dist/ (dist.sh's default DIST_DIR): %s", src)
		assert.FileExists(t, filepath.Join(out, rel))
	}

	// A second run writes the same bytes: the archives are reproducible.
	cmd = exec.Command("bash", "dist.sh")
	cmd.Env = append(os.Environ(), "DIST_TARGETS="+target, "DIST_DIR="+out, "VERSION="+version)
	b, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	again, err := os.ReadFile(filepath.Join(out, "heron_"+version+"_SHA256SUMS"))
	require.NoError(t, err)
	assert.Equal(t, string(sums), string(again))
}

func TestDistRefusesABadTarget(t *testing.T) {
	cmd := exec.Command("bash", "dist.sh")
	cmd.Env = append(os.Environ(), "DIST_TARGETS=linux", "DIST_DIR="+t.TempDir(), "VERSION=v0")
	b, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(b), "dist: bad target linux (want OS/ARCH")
}

func readArchive(t *testing.T, path string) (names []string, heron []byte) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		names = append(names, h.Name)
		assert.Zero(t, h.Uid, h.Name)
		if strings.HasSuffix(h.Name, "/heron") {
			assert.Equal(t, int64(0o755), h.Mode&0o777, "executable")
			heron, err = io.ReadAll(tr)
			require.NoError(t, err)
		}
	}
	sort.Strings(names)
	return names, heron
}

var copyRE = regexp.MustCompile(`^COPY\s+(\S+)\s+/heron$`)

// dockerCopySource is the source of the Dockerfile's COPY of /heron, with
// ${TARGETARCH} replaced by arch.
func dockerCopySource(t *testing.T, arch string) string {
	t.Helper()
	f, err := os.Open("../Dockerfile")
	require.NoError(t, err)
	defer f.Close()
	var from []string
	var src string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "FROM ") {
			from = append(from, line)
		}
		if m := copyRE.FindStringSubmatch(line); m != nil {
			src = strings.ReplaceAll(m[1], "${TARGETARCH}", arch)
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, []string{"FROM scratch"}, from, "a minimal image: the static binary alone")
	require.NotEmpty(t, src, "the Dockerfile copies the binary to /heron")
	return src
}
