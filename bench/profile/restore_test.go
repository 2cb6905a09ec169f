package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/shelltest"
)

// BenchmarkRestoreProfile times `restore --run` of a `reset checkpoint
// --run` on an etcd bench/gen seeded (the reset runs untimed first; the
// restore puts the instance back as generated, so it can run again):
//
//	HERON_PROFILE_ETCD=127.0.0.1:PORT HERON_PROFILE_CPU=/tmp/restore.cpu \
//	  go test ./bench/profile -run '^$' -bench RestoreProfile -benchtime 1x -v
//	go tool pprof -top -nodecount 40 bench/profile.test /tmp/restore.cpu
//
// HERON_PROFILE_CPU profiles the restore only; HERON_PROFILE_ETCD_PID (the
// etcd server's process id) adds the CPU time etcd spent during each run to
// heron's (steadier than wall time on a loaded machine).
func BenchmarkRestoreProfile(b *testing.B) {
	for b.Loop() {
		restoreProfile(b)
	}
}

// etcdCPU is the CPU time of the process HERON_PROFILE_ETCD_PID names (0:
// none named).
func etcdCPU(t *testing.B) time.Duration {
	pid := os.Getenv("HERON_PROFILE_ETCD_PID")
	if pid == "" {
		return 0
	}
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields 14 and 15 (utime, stime, in clock ticks of 10 ms), after the
	// command name in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func restoreProfile(t *testing.B) {
	cli, ep := profileClient(t)
	defer cli.Close()
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	ctx := context.Background()
	var stderr io.Writer = io.Discard
	if testing.Verbose() {
		stderr = os.Stderr
	}
	cmds := []*framework.Command{apply.Command(inst, reset.Build), apply.Command(inst, restore.Build)}
	dir := t.TempDir()
	for _, sub := range []string{"run", "restore"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	run := func(line string) (apply.Result, time.Duration) {
		var out bytes.Buffer
		sh := framework.NewShell(shelltest.State{Cmds: cmds}, &out, stderr)
		start, c0, e0 := time.Now(), cpu(), etcdCPU(t)
		if err := sh.Run(ctx, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		t.Logf("%s: heron cpu %.2fs, etcd cpu %.2fs", strings.Fields(line)[0], (cpu() - c0).Seconds(), (etcdCPU(t) - e0).Seconds())
		var doc struct {
			Applied apply.Result `json:"applied"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("run document: %v", err)
		}
		return doc.Applied, time.Since(start)
	}
	res, took := run("reset checkpoint --target-wal woodpecker --run --yes --format json --backup-dir " + filepath.Join(dir, "run"))
	t.Logf("reset --run  %6.2fs: scan %.2fs, write %.2fs, verify %.2fs", took.Seconds(), res.ScanSeconds, res.WriteSeconds, res.VerifySeconds)
	files, err := filepath.Glob(filepath.Join(dir, "run", "*.jsonl"))
	if err != nil || len(files) != 1 {
		t.Fatalf("the reset's backup: %v %v", files, err)
	}
	if path := os.Getenv("HERON_PROFILE_CPU"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	res, took = run("restore --file " + files[0] + " --run --yes --format json --backup-dir " + filepath.Join(dir, "restore"))
	t.Logf("restore --run %6.2fs: scan %.2fs, write %.2fs, verify %.2fs", took.Seconds(), res.ScanSeconds, res.WriteSeconds, res.VerifySeconds)
}
