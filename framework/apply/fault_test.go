package apply

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework/embedded"
)

// TestEtcdGoneMidRun stops etcd after the first transaction: Apply must fail
// with a clear error within its timeouts, not hang.
func TestEtcdGoneMidRun(t *testing.T) {
	srv, err := embedded.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(srv.Close) }
	defer stop()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint()}, DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	var ops []Op
	for i := 0; i < 50; i++ {
		ops = append(ops, Op{Key: fmt.Sprintf("k%02d", i), Value: []byte("v")})
	}
	start := time.Now()
	res, err := Apply(context.Background(), cli, Slice(ops), Options{
		BackupPath: filepath.Join(t.TempDir(), "b"), MaxTxnOps: 5, Concurrency: 1,
		TxnTimeout: time.Second, StallTimeout: 2 * time.Second,
		AfterTxn: func(n int) error {
			if n == 1 {
				stop()
			}
			return nil
		},
	})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
	if !strings.Contains(err.Error(), "is it running") {
		t.Fatalf("unclear error: %v", err)
	}
	if res.Written != 5 {
		t.Fatalf("written %d", res.Written)
	}
	t.Logf("%v (after %s)", err, time.Since(start).Round(time.Millisecond))
}
