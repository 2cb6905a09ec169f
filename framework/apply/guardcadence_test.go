package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// guardCountingStore counts the reads of the session prefix (the guard's).
type guardCountingStore struct {
	cli   *clientv3.Client
	mu    sync.Mutex
	reads int
}

func (s *guardCountingStore) Txn(ctx context.Context) clientv3.Txn {
	return &guardCountingTxn{Txn: s.cli.Txn(ctx), s: s}
}

type guardCountingTxn struct {
	clientv3.Txn
	s *guardCountingStore
}

func (t *guardCountingTxn) If(cs ...clientv3.Cmp) clientv3.Txn { t.Txn = t.Txn.If(cs...); return t }
func (t *guardCountingTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.Txn = t.Txn.Else(ops...)
	return t
}

func (t *guardCountingTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	if len(ops) == 1 && ops[0].IsGet() && string(ops[0].KeyBytes()) == sessionPrefix {
		t.s.mu.Lock()
		t.s.reads++
		t.s.mu.Unlock()
	}
	t.Txn = t.Txn.Then(ops...)
	return t
}

// The guards are read before every K-th transaction of a run with K in
// flight (before each one at K=1), and a component that starts mid-run
// still stops it within K transactions, named.
func TestGuardsReadEveryKthTransaction(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	kvs := map[string]string{sessionPrefix + "id": "12"}
	for i := range 12 {
		kvs[fmt.Sprintf("by-dev/meta/k/%02d", i)] = "old"
	}
	run := func(k int, after func(n int) error) (*guardCountingStore, *Result, error) {
		revs := seed(t, cli, kvs)
		var ops []Op
		for i := range 12 {
			key := fmt.Sprintf("by-dev/meta/k/%02d", i)
			ops = append(ops, Op{Key: key, ModRevision: revs[key], Value: []byte("new"), Original: []byte("old")})
		}
		s := &guardCountingStore{cli: cli}
		opt := Options{BackupPath: filepath.Join(t.TempDir(), "b"), MaxTxnOps: 1, Concurrency: k, AfterTxn: after}
		opt.guards = []Guard{sessionGuard}
		res, err := Apply(context.Background(), s, Slice(ops), opt)
		return s, res, err
	}
	for _, c := range []struct{ k, reads int }{{1, 12}, {4, 3}, {5, 3}} {
		s, _, err := run(c.k, nil)
		if err != nil {
			t.Fatalf("K=%d: %v", c.k, err)
		}
		if s.reads != c.reads {
			t.Errorf("K=%d: the guards were read %d times for 12 transactions, want %d", c.k, s.reads, c.reads)
		}
	}

	var running string
	_, _, err := run(4, func(n int) error {
		if n == 1 {
			running = startSession(t, cli)
		}
		return nil
	})
	var live *LiveError
	var ie *InterruptedError
	if !errors.As(err, &live) || live.Running() != running || !errors.As(err, &ie) || ie.Written > 4 {
		t.Fatalf("a component started after the first of 12 transactions, 4 in flight: %v", err)
	}
}
