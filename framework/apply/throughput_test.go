package apply

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// BenchmarkApply times Apply (backup, replay, writes) over 20,000 keys of
// 300 bytes at concurrency 1, 2 and 4 (go test -run '^$' -bench Apply
// ./framework/apply). make bench compares heron's write pass with a raw loop
// of 128-put transactions at 1,000,000 segments.
func BenchmarkApply(b *testing.B) {
	cli, _ := etcdtest.Start(b)
	ctx := context.Background()
	const n = 20000
	var ops []clientv3.Op
	for i := 0; i < n; i++ {
		ops = append(ops, clientv3.OpPut(fmt.Sprintf("raw/%08d", i), string(make([]byte, 300))))
		if len(ops) == DefaultMaxTxnOps || i == n-1 {
			if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
				b.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	// The source re-reads the keys page by page like a plan and sets every
	// value to one of two lengths, so that each run has work.
	size := 300
	src := func(ctx context.Context, yield func(Op) error) error {
		from := "raw/"
		for {
			resp, err := cli.Get(ctx, from, clientv3.WithRange(clientv3.GetPrefixRangeEnd("raw/")), clientv3.WithLimit(1000))
			if err != nil {
				return err
			}
			heartbeat(ctx)
			for _, kv := range resp.Kvs {
				if err := yield(Op{Key: string(kv.Key), ModRevision: kv.ModRevision, Value: make([]byte, size), Original: kv.Value}); err != nil {
					return err
				}
			}
			if !resp.More {
				return nil
			}
			from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
		}
	}
	for _, c := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", c), func(b *testing.B) {
			var written int64
			for b.Loop() {
				size = 599 - size
				res, err := Apply(ctx, cli, src, Options{BackupPath: filepath.Join(b.TempDir(), "b"), Concurrency: c}, twoPass{Replay: func(e Entry) (Op, error) {
					return Op{Key: e.Key, ModRevision: e.ModRevision, Value: make([]byte, size), Original: e.Value}, nil
				}})
				if err != nil || res.Written != n {
					b.Fatalf("%+v %v", res, err)
				}
				written += res.Written
			}
			b.ReportMetric(float64(written)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}
