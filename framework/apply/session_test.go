package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// A Milvus component that starts while heron writes (issue 17): its session
// key, with a lease, under the guarded prefix.

const sessionPrefix = "by-dev/meta/session/"

var sessionGuard = Guard{Name: "no live Milvus component", Prefix: sessionPrefix, Except: []string{sessionPrefix + "id"}, Role: models.SessionRole}

// sessionEnv is an etcd with the server-id counter (no lease: no
// component), six keys to rewrite, and the ops that rewrite them.
func sessionEnv(t *testing.T) (*clientv3.Client, []Op) {
	t.Helper()
	cli, _ := etcdtest.Start(t)
	kvs := map[string]string{sessionPrefix + "id": "12"}
	var ops []Op
	for i := range 6 {
		key := fmt.Sprintf("by-dev/meta/k/%02d", i)
		kvs[key] = "old"
		ops = append(ops, Op{Key: key, Value: []byte("new")})
	}
	seed(t, cli, kvs)
	return cli, ops
}

// startSession registers a datacoord the way a starting component does: a
// session key attached to a lease. It returns how heron names it.
func startSession(t *testing.T, cli *clientv3.Client) string {
	t.Helper()
	ctx := context.Background()
	lease, err := cli.Grant(ctx, 300)
	if err != nil {
		t.Error(err)
		return ""
	}
	key := sessionPrefix + "datacoord"
	if _, err := cli.Put(ctx, key, `{"ServerID":13,"ServerName":"datacoord","Address":"10.0.0.7:13333"}`, clientv3.WithLease(lease.ID)); err != nil {
		t.Error(err)
	}
	return fmt.Sprintf("%s (datacoord, lease %016x)", key, int64(lease.ID))
}

// runGuarded runs "ops" over want on a store whose guards are the session
// guard (the kit reads the store's), in table format. Every transaction
// carries the guard's two compares: --max-txn-ops 4 holds two keys.
func runGuarded(t *testing.T, cli *clientv3.Client, want []Op, tune func(*Options), confirm framework.Confirm, args string) (string, string, error) {
	t.Helper()
	build := opsBuild(Header{Command: "ops", RootPath: "by-dev", Prefixes: []string{"by-dev/meta/"}}, want)
	var out, errb strings.Builder
	sh := framework.NewShell(shelltest.State{Cmds: []*framework.Command{Tuned(guardedStore{Store: cli, guards: []Guard{sessionGuard}}, build, tune)}}, &out, &errb)
	if confirm != nil {
		sh.SetConfirm(confirm)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := sh.Run(ctx, "ops "+args)
	return out.String(), errb.String(), err
}

func backups(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "heron-backup-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSessionAtTheQuestionIsRefusedNamingIt(t *testing.T) {
	cli, ops := sessionEnv(t)
	before := dump(t, cli)
	dir := t.TempDir()
	var running string
	confirm := func(context.Context, string) (bool, error) { running = startSession(t, cli); return true, nil }
	stdout, _, err := runGuarded(t, cli, ops, nil, confirm, "--run --backup-dir "+dir)
	if framework.ExitCode(err) != framework.ExitRefused {
		t.Fatalf("want exit 3, got %v\n%s", err, stdout)
	}
	for _, want := range []string{"refused after the question, nothing was written", "a Milvus component is running: " + running} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	after := dump(t, cli)
	delete(after, sessionPrefix+"datacoord")
	if d := diffKeysOf(before, after); len(d) > 0 {
		t.Fatalf("keys written: %v", d)
	}
	if m := backups(t, dir); len(m) > 0 {
		t.Fatalf("a refused run left %v", m)
	}
}

func TestSessionMidWriteStopsBetweenTransactionsNamingIt(t *testing.T) {
	cli, ops := sessionEnv(t)
	var running string
	tune := func(o *Options) {
		o.Concurrency = 1
		o.AfterTxn = func(n int) error {
			if n == 1 {
				running = startSession(t, cli)
			}
			return nil
		}
	}
	stdout, _, err := runGuarded(t, cli, ops, tune, nil, "--run --yes --max-txn-ops 4 --backup-dir "+t.TempDir())
	if framework.ExitCode(err) != framework.ExitFailed {
		t.Fatalf("want exit 1, got %v\n%s", err, stdout)
	}
	if !strings.Contains(err.Error(), "a Milvus component is running: "+running) || !strings.Contains(err.Error(), "stopped after 1 transactions, 2 of 6 keys written") {
		t.Errorf("error: %v", err)
	}
	for _, want := range []string{"STOPPED: 2 of 6 keys written: the instance is split", "  a Milvus component is running: " + running + ": stop it (every component) first",
		"  to complete it:  ops", "  to roll it back: restore --file "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "verify: ok") {
		t.Fatalf("verify: ok printed while a session holds a lease:\n%s", stdout)
	}
	got := dump(t, cli)
	for i, op := range ops {
		if want := map[bool]string{true: "new", false: "old"}[i < 2]; got[op.Key] != want {
			t.Fatalf("%s = %q, want %q", op.Key, got[op.Key], want)
		}
	}
}

// A component that writes over a key heron already wrote (after the last
// transaction, so no guard read between transactions sees it first): the
// verify fails naming the key and the component, and the run leads with
// the stopped-run guidance.
func TestComponentOverwritingAWrittenKeyIsNamed(t *testing.T) {
	cli, ops := sessionEnv(t)
	var running string
	tune := func(o *Options) {
		o.Concurrency = 1
		o.AfterTxn = func(n int) error {
			if n == 3 {
				running = startSession(t, cli)
				if _, err := cli.Put(context.Background(), ops[0].Key, "datacoord's"); err != nil {
					t.Error(err)
				}
			}
			return nil
		}
	}
	stdout, _, err := runGuarded(t, cli, ops, tune, nil, "--run --yes --max-txn-ops 4 --backup-dir "+t.TempDir())
	if framework.ExitCode(err) != framework.ExitFailed {
		t.Fatalf("want exit 1, got %v\n%s", err, stdout)
	}
	if !strings.Contains(err.Error(), "a Milvus component is running: "+running) || !strings.Contains(err.Error(), ops[0].Key+": does not hold the bytes the plan staged") {
		t.Errorf("error: %v", err)
	}
	for _, want := range []string{"STOPPED: 6 of 6 keys written, then a Milvus component started: the instance may be split.\n", "  a Milvus component is running: " + running + ": stop it (every component) first",
		"  1 key the run wrote no longer holds its bytes (the running component wrote over them): " + ops[0].Key + "\n",
		"verify: FAILED, 3 problems:\n  no live Milvus component: a Milvus component is running: " + running, "  " + ops[0].Key + ": does not hold the bytes"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "verify: ok") || strings.Contains(stdout, "reminder:") {
		t.Fatalf("a verified run's lines printed:\n%s", stdout)
	}
}

// A transaction whose compare fails tells the guard from a key: a live
// session key at the revision etcd refused it at (its Else read the
// guards) is named first, as the guard's read names it; else the key that
// changed, with the component live when the writer looked (one that
// registered just after the refusal), or asking whether Milvus runs.
func TestConflictNamesTheRunningComponent(t *testing.T) {
	cli, _ := sessionEnv(t)
	ctx := context.Background()
	key := "by-dev/meta/k/00"
	read, err := cli.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, key, "datacoord's"); err != nil {
		t.Fatal(err)
	}
	w := &writer{store: cli, opt: Options{guards: []Guard{sessionGuard}, Header: Header{Revision: read.Header.Revision}}, guard: newGuardTxn([]Guard{sessionGuard})}
	bt := &batch{ops: []Op{{Key: key, ModRevision: read.Kvs[0].ModRevision, Value: []byte("new")}}}
	refused := func() *clientv3.TxnResponse {
		t.Helper()
		cmps := append([]clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(key), "=", bt.ops[0].ModRevision)}, w.guard.cmps...)
		resp, err := cli.Txn(ctx).If(cmps...).Then(clientv3.OpPut(key, "new")).Else(w.guard.reads...).Commit()
		if err != nil || resp.Succeeded {
			t.Fatalf("the transaction was not refused: %v", err)
		}
		return resp
	}
	before := refused()
	err = w.conflict(ctx, bt, before)
	if !strings.Contains(err.Error(), "moved the instance on") {
		t.Fatalf("no session: %v", err)
	}
	running := startSession(t, cli)
	err = w.conflict(ctx, bt, before)
	for _, want := range []string{"key " + key + " changed since the plan was read", "a Milvus component is running: " + running, "stop it (every component), then re-run heron to complete"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	if got := runningIn(fmt.Errorf("%w (to roll it back: ...)", err)); got != running {
		t.Fatalf("the STOPPED block names %q, want %q", got, running)
	}
	var live *LiveError
	if err := w.conflict(ctx, bt, refused()); !errors.As(err, &live) || live.Running() != running || err.Error() != (&LiveError{Guard: sessionGuard.Name, Key: live.Key, Role: "datacoord", Lease: live.Lease}).Error() {
		t.Fatalf("refused with a session live: want the guard's LiveError naming %s, got %v", running, err)
	}
}

// A component starts mid-write and writes over keys heron already wrote:
// the guard stops the run between transactions, and the STOPPED block
// counts and names the written keys that no longer hold heron's bytes: one
// changed, one deleted; not one written again with heron's own bytes, nor
// one heron had not written yet.
func TestSessionMidWriteNamesTheWrittenKeysItWroteOver(t *testing.T) {
	cli, ops := sessionEnv(t)
	var running string
	tune := func(o *Options) {
		o.Concurrency = 1
		o.AfterTxn = func(n int) error {
			if n != 2 {
				return nil
			}
			running = startSession(t, cli)
			ctx := context.Background()
			for _, op := range []clientv3.Op{
				clientv3.OpPut(ops[1].Key, "datacoord's"),
				clientv3.OpPut(ops[2].Key, "new"),
				clientv3.OpDelete(ops[3].Key),
				clientv3.OpPut(ops[4].Key, "datacoord's"),
			} {
				if _, err := cli.Do(ctx, op); err != nil {
					t.Error(err)
				}
			}
			return nil
		}
	}
	stdout, _, err := runGuarded(t, cli, ops, tune, nil, "--run --yes --max-txn-ops 4 --backup-dir "+t.TempDir())
	if framework.ExitCode(err) != framework.ExitFailed {
		t.Fatalf("want exit 1, got %v\n%s", err, stdout)
	}
	for _, want := range []string{"STOPPED: 4 of 6 keys written: the instance is split",
		"  a Milvus component is running: " + running + ": stop it (every component) first\n" +
			"  2 keys the run wrote no longer hold its bytes (the running component wrote over them): " + ops[1].Key + ", " + ops[3].Key + "\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// Without a key written over, the block says the written keys hold the
// run's bytes; the list is cut at five; a failed read says so.
func TestStoppedOverwrittenLine(t *testing.T) {
	keys := []string{"k1", "k2", "k3", "k4", "k5"}
	for _, c := range []struct {
		s    Stopped
		want string
	}{
		{Stopped{}, ""},
		{Stopped{Running: "s"}, "every key the run wrote still holds its bytes"},
		{Stopped{Running: "s", Overwritten: 5, OverwrittenKeys: keys}, "5 keys the run wrote no longer hold its bytes (the running component wrote over them): k1, k2, k3, k4, k5"},
		{Stopped{Running: "s", Overwritten: 7, OverwrittenKeys: keys}, "7 keys the run wrote no longer hold its bytes (the running component wrote over them): k1, k2, k3, k4, k5, ..."},
		{Stopped{Running: "s", OverwrittenUnread: "etcd gone"}, "the keys the run wrote could not be read back: etcd gone"},
	} {
		if got := c.s.overwrittenLine(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

// flakyStore answers the first failures transactions with err, as a
// cluster member does while its cluster elects a leader.
type flakyStore struct {
	Store
	failures int
	err      error
	calls    int
}

func (f *flakyStore) Txn(ctx context.Context) clientv3.Txn {
	f.calls++
	if f.calls <= f.failures {
		return failingTxn{err: f.err}
	}
	return f.Store.Txn(ctx)
}

type failingTxn struct{ err error }

func (t failingTxn) If(...clientv3.Cmp) clientv3.Txn        { return t }
func (t failingTxn) Then(...clientv3.Op) clientv3.Txn       { return t }
func (t failingTxn) Else(...clientv3.Op) clientv3.Txn       { return t }
func (t failingTxn) Commit() (*clientv3.TxnResponse, error) { return nil, t.err }

// A member killed in a 3-member cluster makes the guard's read fail with
// "leader changed" for a moment: the read is tried again, and the live
// session behind it is still found; a lasting failure is named as a failed
// check, not as the gate's verdict.
func TestGuardReadRetriesLeaderChange(t *testing.T) {
	cli, _ := sessionEnv(t)
	ctx := context.Background()
	if err := checkGuards(ctx, &flakyStore{Store: cli, failures: 2, err: rpctypes.ErrLeaderChanged}, []Guard{sessionGuard}); err != nil {
		t.Fatalf("two leader changes, then an answer: %v", err)
	}
	name := startSession(t, cli)
	var live *LiveError
	if err := checkGuards(ctx, &flakyStore{Store: cli, failures: 2, err: rpctypes.ErrLeaderChanged}, []Guard{sessionGuard}); !errors.As(err, &live) || live.Running() == "" {
		t.Fatalf("the session %s after two leader changes: got %v", name, err)
	}
	err := checkGuards(ctx, &flakyStore{Store: cli, failures: guardReadAttempts, err: rpctypes.ErrLeaderChanged}, []Guard{sessionGuard})
	if err == nil || !strings.HasPrefix(err.Error(), `cannot check "no live Milvus component": read `+sessionPrefix) {
		t.Fatalf("leader changes on every attempt: got %v", err)
	}
	denied := &flakyStore{Store: cli, failures: 1, err: rpctypes.ErrPermissionDenied}
	if err := checkGuards(ctx, denied, []Guard{sessionGuard}); err == nil || denied.calls != 1 {
		t.Fatalf("permission denied is not tried again: %d calls, %v", denied.calls, err)
	}
}
