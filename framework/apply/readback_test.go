package apply_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// mixStore counts the gets the kit sends through its transactions once the
// run's last transaction committed (writing is false): the read-back's.
type mixStore struct {
	*clientv3.Client
	writing          *atomic.Bool
	keysOnly, values *atomic.Int64
}

func (mixStore) Guards() []apply.Guard { return nil }

func (s mixStore) Txn(ctx context.Context) clientv3.Txn {
	return countingTxn{Txn: s.Client.Txn(ctx), s: s}
}

type countingTxn struct {
	clientv3.Txn
	s mixStore
}

func (t countingTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	if !t.s.writing.Load() {
		for _, op := range ops {
			switch {
			case !op.IsGet() || op.IsCountOnly() || !strings.HasPrefix(string(op.KeyBytes()), "r/meta/"):
			case op.IsKeysOnly():
				t.s.keysOnly.Add(1)
			default:
				t.s.values.Add(1)
			}
		}
	}
	return countingTxn{Txn: t.Txn.Then(ops...), s: t.s}
}

func (t countingTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	return countingTxn{Txn: t.Txn.If(cs...), s: t.s}
}

// mixBuild sets every r/meta/p* key to "new" and deletes every r/meta/d*
// key, one key a transaction.
func mixBuild(ctx context.Context, s mixStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
	resp, err := s.Get(ctx, "r/meta/", clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	var keys int64
	h := apply.Header{Command: "mix --run", RootPath: "r", Revision: resp.Header.Revision, Prefixes: []string{"r/meta/"}}
	err = st.Scan(ctx, h, "mix", func(ctx context.Context, yield func(apply.Op) error) error {
		keys = 0
		for _, kv := range resp.Kvs {
			k := string(kv.Key)
			del := strings.HasPrefix(k, "r/meta/d")
			if !del && string(kv.Value) == "new" {
				continue
			}
			keys++
			if yield != nil {
				op := apply.Op{Key: k, ModRevision: kv.ModRevision, Delete: del, Original: kv.Value}
				if !del {
					op.Value = []byte("new")
				}
				if err := yield(op); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	view := &flipView{Keys: keys, Gates: []framework.Gate{}}
	return &apply.Plan{Command: "mix", Title: "mix", View: view, Gates: view.Gates, Keys: keys, Root: "r", Put: "set", Nothing: "nothing to write"}, nil
}

type mixRun struct {
	doc struct {
		Verify struct {
			OK             bool     `json:"ok"`
			Keys           int64    `json:"keys_checked"`
			ReadBack       string   `json:"read_back"`
			ValuesCompared int64    `json:"values_compared"`
			Failures       []string `json:"failures"`
		} `json:"verify"`
	}
	table            string
	code             int
	keysOnly, values int64
}

// runMix seeds r/meta/p0..p2 and r/meta/d0..d2 and runs mix (6
// transactions) with during called after transaction n.
func runMix(t *testing.T, during func(cli *clientv3.Client, n int) error) mixRun {
	t.Helper()
	cli, _ := etcdtest.Start(t)
	for _, k := range []string{"p0", "p1", "p2", "d0", "d1", "d2"} {
		if _, err := cli.Put(context.Background(), "r/meta/"+k, "old"); err != nil {
			t.Fatal(err)
		}
	}
	var run mixRun
	for _, format := range []string{"json", "table"} {
		if format == "table" {
			for _, k := range []string{"p0", "d0"} {
				if _, err := cli.Put(context.Background(), "r/meta/"+k, "old"); err != nil {
					t.Fatal(err)
				}
			}
		}
		s := mixStore{Client: cli, writing: &atomic.Bool{}, keysOnly: &atomic.Int64{}, values: &atomic.Int64{}}
		s.writing.Store(true)
		var mu sync.Mutex
		cmds := []*framework.Command{apply.Tuned(s, mixBuild, func(o *apply.Options) {
			o.Concurrency = 1 // transactions in order: AfterTxn(n) follows the nth
			o.AfterTxn = func(n int) error {
				mu.Lock()
				defer mu.Unlock()
				if n == 6 || format == "table" && n == 2 {
					s.writing.Store(false)
				}
				if during != nil {
					return during(cli, n)
				}
				return nil
			}
		})}
		out, stderr, code, err := shelltest.Run(t, cmds, "flip --run --max-txn-ops 1 --format "+format+" --backup-dir "+t.TempDir())
		t.Logf("%s: exit %d %v\n%s", format, code, err, stderr)
		if format == "json" {
			if err := json.Unmarshal([]byte(out), &run.doc); err != nil {
				t.Fatalf("%v\n%s\n%s", err, out, stderr)
			}
			run.code, run.keysOnly, run.values = code, s.keysOnly.Load(), s.values.Load()
		} else {
			run.table = out
		}
	}
	return run
}

// A run nothing else wrote during is proven by its own revisions: no key
// and no value is read back, and the run says so.
func TestVerifyQuietRunIsProvenByRevisions(t *testing.T) {
	r := runMix(t, nil)
	v := r.doc.Verify
	if r.code != 0 || !v.OK || v.ReadBack != "proven by revisions" || v.Keys != 6 || v.ValuesCompared != 0 || r.keysOnly != 0 || r.values != 0 {
		t.Fatalf("exit %d, verify %+v, %d keys-only gets, %d value gets", r.code, v, r.keysOnly, r.values)
	}
	if !strings.Contains(r.table, "verify: ok, the 2 keys written hold the planned bytes, proven by the run's own revisions (nothing else wrote up to revision ") {
		t.Fatalf("table:\n%s", r.table)
	}
}

// A lease grant and its keepalive move no revision: still proven.
func TestVerifyLeaseGrantKeepsTheProof(t *testing.T) {
	r := runMix(t, func(cli *clientv3.Client, n int) error {
		if n != 3 {
			return nil
		}
		l, err := cli.Grant(context.Background(), 60)
		if err == nil {
			_, err = cli.KeepAliveOnce(context.Background(), l.ID)
		}
		return err
	})
	if v := r.doc.Verify; r.code != 0 || !v.OK || v.ReadBack != "proven by revisions" || r.keysOnly != 0 || r.values != 0 {
		t.Fatalf("exit %d, verify %+v, %d keys-only gets, %d value gets", r.code, v, r.keysOnly, r.values)
	}
}

// A put elsewhere in etcd during the run breaks the proof: every key's mod
// revision is read, and no value, since each is its own transaction's.
func TestVerifyForeignWriteElsewhereReadsKeysOnly(t *testing.T) {
	r := runMix(t, func(cli *clientv3.Client, n int) error {
		if n != 1 {
			return nil
		}
		_, err := cli.Put(context.Background(), "elsewhere/x", "y")
		return err
	})
	v := r.doc.Verify
	if r.code != 0 || !v.OK || v.ReadBack != "keys-only read, 0 values compared" || v.Keys != 6 || r.keysOnly != 6 || r.values != 0 {
		t.Fatalf("exit %d, verify %+v, %d keys-only gets, %d value gets", r.code, v, r.keysOnly, r.values)
	}
	if !strings.Contains(r.table, "verify: ok, the 2 keys written read back at revision ") || !strings.Contains(r.table, " hold the planned bytes (keys-only read, 0 values compared)") {
		t.Fatalf("table:\n%s", r.table)
	}
}

// A written key overwritten after its transaction fails the verify, named;
// only its value is read.
func TestVerifyForeignOverwriteIsNamed(t *testing.T) {
	r := runMix(t, func(cli *clientv3.Client, n int) error {
		if n != 4 {
			return nil
		}
		_, err := cli.Put(context.Background(), "r/meta/p0", "other")
		return err
	})
	v := r.doc.Verify
	if r.code != framework.ExitFailed || v.OK || v.ReadBack != "keys-only read, 1 values compared" || r.keysOnly != 6 || r.values != 1 ||
		len(v.Failures) == 0 || !strings.HasPrefix(v.Failures[0], "r/meta/p0: does not hold the bytes the plan staged (written again at revision ") {
		t.Fatalf("exit %d, verify %+v, %d keys-only gets, %d value gets", r.code, v, r.keysOnly, r.values)
	}
}

// A deleted key written again after its transaction fails the verify, named.
func TestVerifyForeignRecreateIsNamed(t *testing.T) {
	r := runMix(t, func(cli *clientv3.Client, n int) error {
		if n != 6 {
			return nil
		}
		_, err := cli.Put(context.Background(), "r/meta/d0", "back")
		return err
	})
	v := r.doc.Verify
	if r.code != framework.ExitFailed || v.OK || r.values != 0 || len(v.Failures) == 0 ||
		!strings.HasPrefix(v.Failures[0], "r/meta/d0: deleted by the run, but present (written again at revision ") {
		t.Fatalf("exit %d, verify %+v, %d keys-only gets, %d value gets", r.code, v, r.keysOnly, r.values)
	}
}
