package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Every transaction compares the guards itself: a session key registered
// between two transactions (the writer reads nothing before them) fails
// the next one, one at a time or four in flight, and no transaction
// commits after the key appeared: every key the run wrote has a mod
// revision below the session key's create revision, and the run counts
// exactly those keys.
func TestGuardComparedByEveryTransaction(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	for _, k := range []int{1, 4} {
		t.Run(fmt.Sprintf("K=%d", k), func(t *testing.T) {
			if _, err := cli.Delete(ctx, "by-dev/", clientv3.WithPrefix()); err != nil {
				t.Fatal(err)
			}
			kvs := map[string]string{sessionPrefix + "id": "12"}
			for i := range 24 {
				kvs[fmt.Sprintf("by-dev/meta/k/%02d", i)] = "old"
			}
			revs := seed(t, cli, kvs)
			var ops []Op
			for i := range 24 {
				key := fmt.Sprintf("by-dev/meta/k/%02d", i)
				ops = append(ops, Op{Key: key, ModRevision: revs[key], Value: []byte("new"), Original: []byte("old")})
			}
			var running string
			// One op per transaction: --max-txn-ops 3 holds the op's compare
			// and the session guard's two (its prefix cut around session/id).
			opt := Options{BackupPath: filepath.Join(t.TempDir(), "b"), MaxTxnOps: 3, Concurrency: k, AfterTxn: func(n int) error {
				if n == 1 {
					running = startSession(t, cli)
				}
				return nil
			}}
			opt.guards = []Guard{sessionGuard}
			res, err := Apply(ctx, cli, Slice(ops), opt)
			var live *LiveError
			var ie *InterruptedError
			if !errors.As(err, &live) || live.Running() != running || !errors.As(err, &ie) {
				t.Fatalf("a component registered after the first transaction: want the guard's LiveError naming %s, got %v", running, err)
			}
			session, err := cli.Get(ctx, sessionPrefix+"datacoord")
			if err != nil || len(session.Kvs) != 1 {
				t.Fatalf("session key: %v", err)
			}
			registered := session.Kvs[0].CreateRevision
			got, err := cli.Get(ctx, "by-dev/meta/k/", clientv3.WithPrefix())
			if err != nil {
				t.Fatal(err)
			}
			var written int64
			for _, kv := range got.Kvs {
				if string(kv.Value) != "new" {
					continue
				}
				written++
				if kv.ModRevision > registered {
					t.Errorf("%s was written at revision %d, after the session key registered at %d", kv.Key, kv.ModRevision, registered)
				}
			}
			if written != res.Written || written == 0 || written > int64(k) || ie.Written != written {
				t.Fatalf("%d keys hold the run's bytes; the run counted %d (error: %d); want 1 to %d", written, res.Written, ie.Written, k)
			}
		})
	}
}

// The guards' compares take room in every transaction: etcd's
// --max-txn-ops (128 by default) counts the compares, so a transaction
// holds 128 ops less the guard's two, and the pre-flight check asks etcd
// for the whole count.
func TestGuardComparesFitMaxTxnOps(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	kvs := map[string]string{sessionPrefix + "id": "12"}
	for i := range DefaultMaxTxnOps {
		kvs[fmt.Sprintf("by-dev/meta/k/%03d", i)] = "old"
	}
	revs := seed(t, cli, kvs)
	var ops []Op
	for i := range DefaultMaxTxnOps {
		key := fmt.Sprintf("by-dev/meta/k/%03d", i)
		ops = append(ops, Op{Key: key, ModRevision: revs[key], Value: []byte("new"), Original: []byte("old")})
	}
	opt := Options{BackupPath: filepath.Join(t.TempDir(), "b")}
	opt.guards = []Guard{sessionGuard}
	res, err := Apply(ctx, cli, Slice(ops), opt)
	if err != nil || res.Txns != 2 || res.Written != DefaultMaxTxnOps {
		t.Fatalf("%d keys at etcd's default --max-txn-ops: want 2 transactions, got %+v, %v", DefaultMaxTxnOps, res, err)
	}
	st := &Staged{opt: opt.withDefaults(), biggestOps: DefaultMaxTxnOps - 1, biggestKey: ops[0].Key}
	var le *LimitError
	if err := st.checkLimits(ctx, cli); !errors.As(err, &le) || !strings.Contains(err.Error(), "at most 128 operations") {
		t.Fatalf("127 ops and 2 guard compares against etcd's 128: got %v", err)
	}
	st.opt.guards = nil
	if err := st.checkLimits(ctx, cli); err != nil {
		t.Fatalf("127 ops, no guard: %v", err)
	}
}

// A --max-txn-ops that leaves no room for an op beside the guards'
// compares is a usage error, before anything is read or written.
func TestMaxTxnOpsBelowTheGuardsIsUsage(t *testing.T) {
	cli, ops := sessionEnv(t)
	before := dump(t, cli)
	_, _, err := runGuarded(t, cli, ops, nil, nil, "--run --yes --max-txn-ops 2 --backup-dir "+t.TempDir())
	if framework.ExitCode(err) != framework.ExitUsage || !strings.Contains(err.Error(), "use --max-txn-ops 3 or more") {
		t.Fatalf("want exit 2 naming --max-txn-ops 3, got %v", err)
	}
	if d := diffKeysOf(before, dump(t, cli)); len(d) > 0 {
		t.Fatalf("keys written: %v", d)
	}
}

// The compares leave out the guard's Except keys, as its read does: the
// server-id counter under the session prefix, even with a lease, is no
// live component; a leased key on either side of it is.
func TestGuardComparesLeaveOutExcept(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	for _, leased := range []string{sessionPrefix + "id", sessionPrefix + "datacoord", sessionPrefix + "querynode-7"} {
		if _, err := cli.Delete(ctx, "by-dev/", clientv3.WithPrefix()); err != nil {
			t.Fatal(err)
		}
		revs := seed(t, cli, map[string]string{"by-dev/meta/k/00": "old"})
		lease, err := cli.Grant(ctx, 300)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Put(ctx, leased, "13", clientv3.WithLease(lease.ID)); err != nil {
			t.Fatal(err)
		}
		opt := Options{BackupPath: filepath.Join(t.TempDir(), "b")}
		opt.guards = []Guard{sessionGuard}
		_, err = Apply(ctx, cli, Slice([]Op{{Key: "by-dev/meta/k/00", ModRevision: revs["by-dev/meta/k/00"], Value: []byte("new"), Original: []byte("old")}}), opt)
		var live *LiveError
		switch {
		case leased == sessionGuard.Except[0] && err != nil:
			t.Errorf("a lease on %s (Except) stopped the run: %v", leased, err)
		case leased != sessionGuard.Except[0] && (!errors.As(err, &live) || live.Key != leased):
			t.Errorf("a lease on %s: want its LiveError, got %v", leased, err)
		}
	}
}
