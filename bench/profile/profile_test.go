// Package profile profiles `reset checkpoint` in-process against an etcd
// server that bench/gen seeded, without any hook in heron itself:
//
//	bin/bench-gen seed --etcd 127.0.0.1:PORT --segments 100000
//	HERON_PROFILE_ETCD=127.0.0.1:PORT HERON_PROFILE_RUN=1 \
//	  go test ./bench/profile -run '^$' -bench Profile -benchtime 1x -v -cpuprofile /tmp/cpu.out -memprofile /tmp/mem.out
//	go tool pprof -top -nodecount 40 bench/profile.test /tmp/cpu.out
//
// These are benchmarks (go test -bench), not tests: without
// HERON_PROFILE_ETCD they skip. Without HERON_PROFILE_RUN they time the dry
// run; HERON_PROFILE_RUN=1 applies the plan as `--run --yes` does (the
// per-key decisions made while the backup is written), back to the source
// WAL too with HERON_PROFILE_BACK=1 (so the seeded instance can be profiled
// again); HERON_PROFILE_TARGET picks the target WAL (default woodpecker);
// HERON_PROFILE_PAGE the keys per range request. Each phase logs its wall
// time, heap and the process's CPU time.
package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/tests/shelltest"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profileClient connects to the etcd named by HERON_PROFILE_ETCD (one seeded
// by bench/gen), or skips the benchmark.
func profileClient(t *testing.B) (*clientv3.Client, string) {
	ep := os.Getenv("HERON_PROFILE_ETCD")
	if ep == "" {
		t.Skip("set HERON_PROFILE_ETCD=HOST:PORT (an etcd seeded by bench/gen) to run")
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		MaxCallRecvMsgSize: 64 << 20, DialOptions: apply.DialOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return cli, ep
}

func BenchmarkProfile(b *testing.B) {
	for b.Loop() {
		profile(b)
	}
}

func profile(t *testing.B) {
	cli, ep := profileClient(t)
	defer cli.Close()
	target := os.Getenv("HERON_PROFILE_TARGET")
	if target == "" {
		target = "woodpecker"
	}
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	if v, _ := strconv.Atoi(os.Getenv("HERON_PROFILE_PAGE")); v > 0 {
		inst.PageSize = v // keys per range request (heron's default: instance.DefaultPageSize)
	}
	ctx := context.Background()
	var stderr io.Writer = io.Discard
	if testing.Verbose() {
		stderr = os.Stderr
	}

	phase := func(name string, fn func() error) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		alloc0 := ms.TotalAlloc
		start, c0 := time.Now(), cpu()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&ms)
		t.Logf("%-10s wall %6.2fs  cpu %6.2fs  heap in use %4d MiB  sys %4d MiB  allocated %6d MiB",
			name, time.Since(start).Seconds(), (cpu() - c0).Seconds(), ms.HeapInuse>>20, ms.Sys>>20, (ms.TotalAlloc-alloc0)>>20)
	}

	run := func(wal string) {
		p := &reset.Params{TargetWAL: wal, WriteFlags: framework.WriteFlags{MaxTxnOps: 128, BackupDir: t.TempDir()}}
		if os.Getenv("HERON_PROFILE_RUN") == "" {
			var pl *apply.Plan
			phase("plan", func() error {
				var err error
				pl, err = reset.Build(ctx, inst, p, new(apply.Stage))
				return err
			})
			t.Logf("plan: %d keys", pl.Keys)
			return
		}
		var out bytes.Buffer
		phase("run", func() error {
			sh := framework.NewShell(shelltest.State{Cmds: []*framework.Command{apply.Command(inst, reset.Build)}}, &out, stderr)
			return sh.Run(ctx, "reset checkpoint --target-wal "+wal+" --run --yes --format json --backup-dir "+p.BackupDir)
		})
		var doc struct {
			Applied apply.Result `json:"applied"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("run document: %v", err)
		}
		t.Logf("run: backup pass %.2fs, write pass %.2fs (%.0f keys/s), apply total %.2fs; the rest of the run is the verify",
			doc.Applied.BackupSeconds, doc.Applied.WriteSeconds, doc.Applied.KeysPerSecond, doc.Applied.Seconds)
	}
	run(target)
	if os.Getenv("HERON_PROFILE_RUN") != "" && os.Getenv("HERON_PROFILE_BACK") != "" {
		run("pulsar")
	}
}
