package rehearse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
)

// fakeRoot is a folder standing for "/" with the given files.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return root
}

const meminfo = "MemTotal:       24684000 kB\nMemFree:        20000000 kB\nMemAvailable:    4194304 kB\n"

func TestReadBudget(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		bytes int64
		from  string
	}{
		{"cgroup v2 limit below the available memory", map[string]string{"sys/fs/cgroup/memory.max": "536870912\n", "proc/meminfo": meminfo}, 512 << 20, "/sys/fs/cgroup/memory.max"},
		{"cgroup v2 without a limit", map[string]string{"sys/fs/cgroup/memory.max": "max\n", "proc/meminfo": meminfo}, 4 << 30, "MemAvailable"},
		{"cgroup v1 limit", map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456\n", "proc/meminfo": meminfo}, 256 << 20, "memory.limit_in_bytes"},
		{"cgroup v1 without a limit", map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "proc/meminfo": meminfo}, 4 << 30, "MemAvailable"},
		{"a limit above the available memory", map[string]string{"sys/fs/cgroup/memory.max": "17179869184\n", "proc/meminfo": meminfo}, 4 << 30, "MemAvailable"},
		{"nothing readable", map[string]string{"sys/fs/cgroup/memory.max": "garbage\n"}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := readBudget(fakeRoot(t, c.files))
			assert.Equal(t, c.bytes, b.bytes)
			assert.Contains(t, b.from, c.from)
		})
	}
}

func TestEstimateGrowsWithTheKeys(t *testing.T) {
	// bench/run.sh measured 91-95 MiB of anonymous memory at 201,133 keys.
	est := estimate(201133)
	assert.InDelta(t, 93<<20, est, 0.25*93*(1<<20), "within 25%% of the measured peak")
	assert.Equal(t, int64(loadBytesPerKey)*1000, estimate(2000)-estimate(1000))
}

func TestDecide(t *testing.T) {
	b := budget{bytes: 1000 << 20, from: "x"}
	assert.Equal(t, fits, decide(700<<20, b))
	assert.Equal(t, tight, decide(701<<20, b))
	assert.Equal(t, tight, decide(1000<<20, b))
	assert.Equal(t, tooBig, decide(1001<<20, b))
	assert.Equal(t, fits, decide(1<<40, budget{}), "no budget known: nothing to refuse")
}

// A load that cannot fit is refused before anything is loaded (exit 3, the
// estimate and the limit named); --force loads anyway; a tight one is warned
// about.
func TestCheckMemory(t *testing.T) {
	want, file := backupOf(t)
	keys, err := apply.BackupEntries(file)
	require.NoError(t, err)
	assert.Equal(t, int64(len(want)), keys, "the end line's count is the file's keys")
	est := estimate(keys)
	for _, c := range []struct {
		name   string
		b      budget
		force  bool
		code   int
		ok     bool
		stderr []string
	}{
		{"fits", budget{bytes: est * 4, from: "the cgroup's limit (/sys/fs/cgroup/memory.max)"}, false, 0, true, []string{"load-backup: ", "about", "25% of"}},
		{"tight", budget{bytes: est * 10 / 8, from: "the cgroup's limit (/sys/fs/cgroup/memory.max)"}, false, 0, true, []string{"warning: load-backup", "80% of", "may be killed"}},
		{"too big", budget{bytes: est / 2, from: "the cgroup's limit (/sys/fs/cgroup/memory.max)"}, false, framework.ExitRefused, false, []string{"error: load-backup", "200% of", "/sys/fs/cgroup/memory.max", "--force"}},
		{"too big, forced", budget{bytes: est / 2, from: "x"}, true, 0, true, []string{"warning: load-backup", "loading anyway (--force)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code, ok := checkMemory(file, c.force, c.b, &stderr)
			assert.Equal(t, c.code, code)
			assert.Equal(t, c.ok, ok)
			for _, s := range c.stderr {
				assert.Contains(t, stderr.String(), s)
			}
		})
	}
	var stderr bytes.Buffer
	trunc := rewrite(t, file, func(lines []string) []string { return lines[:len(lines)-1] })
	code, ok := checkMemory(trunc, false, budget{}, &stderr)
	assert.Equal(t, framework.ExitFailed, code)
	assert.False(t, ok)
	assert.Contains(t, stderr.String(), "no end line")
}
