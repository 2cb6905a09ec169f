//go:build unix

package apply

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// BenchmarkWritePass measures pass 2 alone, the CPU and the allocations of
// this process from the published backup to the last commit, against an
// etcd of your own (its CPU is not counted), with values of Milvus
// segments' size:
//
//	HERON_PROFILE_ETCD=127.0.0.1:PORT go test ./framework/apply -run '^$' \
//	  -bench WritePass -benchtime 3x -v
//
// HERON_PROFILE_KEYS sets the keys (default 100000, written under
// heron-bench/ first), HERON_PROFILE_INFLIGHT the transactions in flight.
// Pass 2 rebuilds each op from the backup file as a rule does (its new value
// a fresh copy of the old one, changed), as reset's does; without
// HERON_PROFILE_ETCD it skips.
func BenchmarkWritePass(b *testing.B) {
	ep := os.Getenv("HERON_PROFILE_ETCD")
	if ep == "" {
		b.Skip("set HERON_PROFILE_ETCD=HOST:PORT (an etcd of your own) to run")
	}
	keys := 100000
	if v, _ := strconv.Atoi(os.Getenv("HERON_PROFILE_KEYS")); v > 0 {
		keys = v
	}
	inflight, _ := strconv.Atoi(os.Getenv("HERON_PROFILE_INFLIGHT"))
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		MaxCallRecvMsgSize: 64 << 20, DialOptions: DialOptions()})
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	const prefix = "heron-bench/"
	if _, err := cli.Delete(ctx, prefix, clientv3.WithPrefix()); err != nil {
		b.Fatal(err)
	}
	value := bytes.Repeat([]byte("segment-info "), 40) // ~500 bytes
	for i := 0; i < keys; i += 128 {
		var puts []clientv3.Op
		for j := i; j < min(i+128, keys); j++ {
			puts = append(puts, clientv3.OpPut(fmt.Sprintf("%s%09d", prefix, j), string(value)))
		}
		if _, err := cli.Txn(ctx).Then(puts...).Commit(); err != nil {
			b.Fatal(err)
		}
	}
	rebuild := func(e Entry) (Op, error) {
		v := append([]byte(nil), e.Value...)
		v[0] ^= 1
		return Op{Key: e.Key, ModRevision: e.ModRevision, Value: v, Original: e.Value}, nil
	}
	for b.Loop() {
		resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
		if err != nil {
			b.Fatal(err)
		}
		ops := make([]Op, len(resp.Kvs))
		for i, kv := range resp.Kvs {
			ops[i], _ = rebuild(Entry{Key: string(kv.Key), ModRevision: kv.ModRevision, Value: kv.Value})
		}
		var cpu0 time.Duration
		var alloc0 uint64
		_, err = Apply(ctx, cli, Slice(ops), Options{BackupPath: filepath.Join(b.TempDir(), "b"), Concurrency: inflight,
			AfterBackup: func(string) error {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				alloc0, cpu0 = ms.TotalAlloc, processCPU()
				return nil
			}}, twoPass{Replay: rebuild})
		cpu := processCPU() - cpu0
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("pass 2: %d keys, cpu %.2fs (%.1f µs a key), allocated %d MiB (%.0f B a key)", len(ops), cpu.Seconds(),
			float64(cpu.Microseconds())/float64(len(ops)), (ms.TotalAlloc-alloc0)>>20, float64(ms.TotalAlloc-alloc0)/float64(len(ops)))
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
