package apply

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// TestThroughput compares Apply with a raw loop of 128-put transactions over
// the same number of keys. It runs only with HERON_APPLY_BENCH=N (keys):
//
//	HERON_APPLY_BENCH=200000 go test ./framework/apply -run Throughput -v
func TestThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HERON_APPLY_BENCH"))
	if n <= 0 {
		t.Skip("set HERON_APPLY_BENCH=keys to run")
	}
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	value := make([]byte, 300)
	key := func(prefix string, i int) string { return fmt.Sprintf("%s/%08d", prefix, i) }

	start := time.Now()
	var ops []clientv3.Op
	for i := 0; i < n; i++ {
		ops = append(ops, clientv3.OpPut(key("raw", i), string(value)))
		if len(ops) == DefaultMaxTxnOps || i == n-1 {
			if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
				t.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	raw := time.Since(start)
	t.Logf("raw loop: %d keys in %s (%.0f keys/s)", n, raw, float64(n)/raw.Seconds())

	// Apply rewrites the raw keys, re-reading them page by page like a plan.
	src := func(ctx context.Context, yield func(Op) error) error {
		from := "raw/"
		for {
			resp, err := cli.Get(ctx, from, clientv3.WithRange(clientv3.GetPrefixRangeEnd("raw/")), clientv3.WithLimit(1000))
			if err != nil {
				return err
			}
			Heartbeat(ctx)
			for _, kv := range resp.Kvs {
				if err := yield(Op{Key: string(kv.Key), ModRevision: kv.ModRevision, Value: value[:299], Original: kv.Value}); err != nil {
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
		res, err := Apply(ctx, cli, src, Options{BackupPath: filepath.Join(t.TempDir(), "b"), Concurrency: c, Total: int64(n)})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("apply (concurrency %d): backup %.1fs, write %.1fs (%.0f keys/s, %.0f%% of raw), total %.1fs",
			c, res.BackupSeconds, res.WriteSeconds, res.KeysPerSecond, 100*res.KeysPerSecond/(float64(n)/raw.Seconds()), res.Seconds)
		// Put the values back so the next run has work.
		value = append(value[:0:0], value...)
		value = value[:300]
		if c != 4 {
			if _, err := Apply(ctx, cli, func(ctx context.Context, yield func(Op) error) error {
				return src(ctx, func(op Op) error { op.Value = make([]byte, 300); return yield(op) })
			}, Options{BackupPath: filepath.Join(t.TempDir(), "b")}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
