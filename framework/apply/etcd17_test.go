package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/embedded"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// named is a Store that knows its etcd user, as an instance does.
type named struct {
	*clientv3.Client
	user string
}

func (n named) UserName() string { return n.user }

// opsParams are the flags of the test write command "ops".
type opsParams struct {
	framework.ParamBase `use:"ops" desc:"write the test's ops"`
	framework.WriteFlags
	framework.Output
}

// opsBuild is the plan of a write command that sets each key of want to
// its value (nil: deletes it): it reads every key through the store at one
// revision and stages each one that does not hold its value yet, in order,
// guarded by the mod revision it read. Planned again after a complete run
// it finds nothing to write.
// guardedStore is a Store with the guards the kit reads on every run.
type guardedStore struct {
	Store
	guards []Guard
}

func (g guardedStore) Guards() []Guard { return g.guards }

// UserName is the wrapped store's (userOf names it in messages).
func (g guardedStore) UserName() string {
	if u, ok := g.Store.(user); ok {
		return u.UserName()
	}
	return ""
}

func opsBuild(h Header, want []Op) Build[guardedStore, opsParams] {
	return func(ctx context.Context, s guardedStore, _ *opsParams, st *Stage) (*Plan, error) {
		h := h // each plan reads at its own revision
		var ops []Op
		for _, w := range want {
			var opts []clientv3.OpOption
			if h.Revision > 0 {
				opts = append(opts, clientv3.WithRev(h.Revision))
			}
			resp, err := s.Txn(ctx).Then(clientv3.OpGet(w.Key, opts...)).Commit()
			if err != nil {
				return nil, err
			}
			if h.Revision == 0 {
				h.Revision = resp.Header.Revision
			}
			op := w
			op.ModRevision, op.Original = 0, nil
			if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
				op.ModRevision, op.Original = kvs[0].ModRevision, kvs[0].Value
			}
			if (op.Delete && op.ModRevision == 0) || (!op.Delete && op.ModRevision > 0 && bytes.Equal(op.Original, op.Value)) {
				continue
			}
			ops = append(ops, op)
		}
		err := st.Scan(ctx, h, "ops", func(ctx context.Context, yield func(Op) error) error {
			for _, op := range ops {
				if yield == nil {
					continue
				}
				if err := yield(op); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return &Plan{Command: "ops", Title: "ops", View: framework.Message("PLAN %d keys", len(ops)), Keys: int64(len(ops)),
			Root: h.RootPath, Put: "put", Nothing: "nothing to write"}, nil
	}
}

// runOps runs "ops ARGS" with the kit over store (tune: the test's options,
// nil: none) and returns the decoded result (nil when nothing was applied),
// stderr and the error.
func runOps(t *testing.T, store Store, h Header, want []Op, tune func(*Options), confirm func(context.Context, string) (bool, error), args string) (*Result, string, error) {
	t.Helper()
	cmd := Tuned(guardedStore{Store: store}, opsBuild(h, want), tune)
	var out, errb strings.Builder
	sh := framework.NewShell(shelltest.State{Cmds: []*framework.Command{cmd}}, &out, &errb)
	if confirm != nil {
		sh.SetConfirm(confirm)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := sh.Run(ctx, "ops --format json "+args)
	var doc struct {
		Applied *Result `json:"applied"`
		Verify  *Verify `json:"verify"`
	}
	if out.Len() > 0 && strings.HasPrefix(strings.TrimSpace(out.String()), "{") {
		if jerr := json.Unmarshal([]byte(out.String()), &doc); jerr != nil {
			t.Fatalf("stdout is not the run's JSON: %v\n%s", jerr, out.String())
		}
		if err == nil && (doc.Verify == nil || !doc.Verify.OK) {
			t.Fatalf("the run passed without a verify that passed:\n%s", out.String())
		}
	}
	return doc.Applied, errb.String(), err
}

func TestNoSpaceStopSaysNotAppliedAndHowToRecover(t *testing.T) {
	cli, ep := etcdtest.StartWith(t, embedded.Options{QuotaBackendBytes: 1 << 20})
	value := strings.Repeat("v", 64<<10)
	var ops []Op
	for i := range 64 { // 4 MiB: four times the quota
		ops = append(ops, Op{Key: fmt.Sprintf("by-dev/meta/big/%03d", i), Value: []byte(value)})
	}
	h := Header{Command: "test", RootPath: "by-dev", Endpoints: []string{ep}, Prefixes: []string{"by-dev/meta/"}}
	// etcd checks the quota against its backend's size, which grows when
	// the backend commits (every 100 ms): a pause after each transaction
	// lets the size catch up, so the quota trips mid-write.
	pause := func(o *Options) {
		o.Concurrency = 1
		o.AfterTxn = func(int) error { time.Sleep(30 * time.Millisecond); return nil }
	}
	res, _, err := runOps(t, cli, h, ops, pause, nil, "--run --max-txn-ops 2 --backup-dir "+t.TempDir())
	var refused *RefusedTxnError
	if !errors.As(err, &refused) || !IsNoSpace(err) {
		t.Fatalf("want a NOSPACE refusal, got %v", err)
	}
	msg := err.Error()
	// etcd applies the transaction that crosses its quota and reports
	// NOSPACE for it (quotaApplierV3.Txn, server/etcdserver/apply/apply.go
	// @v3.6.5); it refuses the ones after it unapplied. The message says
	// which, and Written counts an applied one.
	outcome := "was NOT applied"
	if refused.Applied {
		outcome = "and then reported that etcd is out of space"
	}
	for _, want := range []string{outcome, "out of space", "NOSPACE",
		"etcdctl --endpoints=" + ep + " compact ", "defrag --cluster", "alarm disarm", "then re-run heron",
		"re-run heron to complete once the alarm is disarmed"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "may or may not") {
		t.Errorf("a refusal is not an unknown outcome:\n%s", msg)
	}
	if strings.Index(msg, "alarm disarm") > strings.Index(msg, "re-run heron to complete") {
		t.Errorf("the recovery must come before re-run:\n%s", msg)
	}
	if res == nil || res.Written == 0 || res.Written >= res.Keys {
		t.Fatalf("want a stop mid-write, wrote %d of %d", res.Written, res.Keys)
	}
	// The refused transaction wrote none of its keys: exactly Written keys exist.
	got, gerr := cli.Get(context.Background(), "by-dev/meta/big/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if gerr != nil {
		t.Fatal(gerr)
	}
	if got.Count != res.Written {
		t.Fatalf("%d keys in etcd, the run counted %d written", got.Count, res.Written)
	}
	// The compact revision named is etcd's current one.
	// The compaction named waits until the old revisions are gone, so the
	// defrag after it reclaims their space.
	if !strings.Contains(msg, fmt.Sprintf(" compact --physical %d)", got.Header.Revision)) {
		t.Errorf("message does not name the current revision %d:\n%s", got.Header.Revision, msg)
	}
}

// authEtcd starts an etcd with auth on: root, a user "dc" that may read
// by-dev/ but write only by-dev/meta/datacoord-meta/, and a user "ro" that
// may only read by-dev/. It returns root's client and the endpoint.
func authEtcd(t *testing.T) (*clientv3.Client, string) {
	t.Helper()
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	steps := []func() error{
		func() error { _, err := cli.UserAdd(ctx, "root", "rootpw"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.RoleAdd(ctx, "dc"); return err },
		func() error {
			p := "by-dev/meta/datacoord-meta/"
			_, err := cli.RoleGrantPermission(ctx, "dc", p, clientv3.GetPrefixRangeEnd(p), clientv3.PermissionType(clientv3.PermReadWrite))
			return err
		},
		func() error {
			_, err := cli.RoleGrantPermission(ctx, "dc", "by-dev/", clientv3.GetPrefixRangeEnd("by-dev/"), clientv3.PermissionType(clientv3.PermRead))
			return err
		},
		func() error { _, err := cli.UserAdd(ctx, "dc", "dcpw"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "dc", "dc"); return err },
		func() error { _, err := cli.RoleAdd(ctx, "ro"); return err },
		func() error {
			_, err := cli.RoleGrantPermission(ctx, "ro", "by-dev/", clientv3.GetPrefixRangeEnd("by-dev/"), clientv3.PermissionType(clientv3.PermRead))
			return err
		},
		func() error { _, err := cli.UserAdd(ctx, "ro", "ropw"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "ro", "ro"); return err },
		func() error { _, err := cli.Put(ctx, "by-dev/meta/datacoord-meta/s/1", "old"); return err },
		func() error { _, err := cli.Put(ctx, "by-dev/meta/root-coord/c/1", "old"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	root := login(t, ep, "root", "rootpw")
	return root, ep
}

func login(t *testing.T, ep, user, password string) *clientv3.Client {
	// 30 s: the client authenticates while it dials, and etcd's bcrypt check of
	// the password took over 5 s on a 2-core machine under load (race tests
	// beside the e2e scripts).
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, Username: user, Password: password, DialTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestPermissionProbeRefusesBeforeTheFirstWrite(t *testing.T) {
	root, ep := authEtcd(t)
	before := dump(t, root)
	// 200 datacoord keys first (the dc user may write them), then root-coord.
	var ops []Op
	for i := range 200 {
		ops = append(ops, Op{Key: fmt.Sprintf("by-dev/meta/datacoord-meta/s/%04d", i), Value: []byte("new")})
	}
	ops = append(ops, Op{Key: "by-dev/meta/root-coord/c/1", Value: []byte("new"), Phase: 1})
	h := Header{Command: "test", RootPath: "by-dev", Prefixes: []string{"by-dev/meta/"}}
	for _, tc := range []struct {
		user, password, prefix string
	}{
		{"dc", "dcpw", "by-dev/meta/root-coord/"},
		{"ro", "ropw", "by-dev/meta/datacoord-meta/"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			store := named{Client: login(t, ep, tc.user, tc.password), user: tc.user}
			dir := t.TempDir()
			asked := func(context.Context, string) (bool, error) {
				t.Error("the question was asked: the probe must refuse first")
				return false, nil
			}
			res, _, err := runOps(t, store, h, ops, nil, asked, "--run --backup-dir "+dir)
			if framework.ExitCode(err) != framework.ExitRefused {
				t.Fatalf("want a refusal (exit 3), got %v", err)
			}
			for _, want := range []string{`etcd user "` + tc.user + `"`, "may not read and write " + tc.prefix, "nothing was written"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message lacks %q: %v", want, err)
				}
			}
			if res != nil {
				t.Fatalf("wrote %d keys, backup %q", res.Written, res.Backup)
			}
			if d := diffKeysOf(before, dump(t, root)); len(d) > 0 {
				t.Fatalf("keys changed: %v", d)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Fatalf("a backup was left: %v", entries)
			}
		})
	}
	// root may write everything: the probe lets the run through.
	res, _, err := runOps(t, named{Client: root, user: "root"}, h, ops, nil, nil, "--run --yes --backup-dir "+t.TempDir())
	if err != nil || res == nil || res.Written != int64(len(ops)) {
		t.Fatalf("root: %v, applied %+v", err, res)
	}
}

func diffKeysOf(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			d = append(d, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k)
		}
	}
	return d
}

func TestBackupFolderDeletedDuringTheWriteIsReported(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seed(t, cli, map[string]string{"k/a": "1", "k/b": "2"})
	dir := filepath.Join(t.TempDir(), "backups")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ops := []Op{{Key: "k/a", Value: []byte("x")}, {Key: "k/b", Value: []byte("y")}}
	h := Header{Command: "test", RootPath: "r", Prefixes: []string{"k/"}}
	removeDir := func(o *Options) {
		o.Concurrency = 1
		o.AfterTxn = func(int) error { return os.RemoveAll(dir) }
	}
	res, stderr, err := runOps(t, cli, h, ops, removeDir, nil, "--run --yes --max-txn-ops 1 --backup-dir "+dir)
	if err != nil {
		t.Fatal(err)
	}
	if res == nil || !res.BackupDeleted {
		t.Fatalf("the result does not say the backup is gone: %+v", res)
	}
	if !strings.Contains(stderr, "warning: the backup folder "+dir+" was deleted during the run") {
		t.Fatalf("stderr:\n%s", stderr)
	}
	for k, v := range map[string]string{"k/a": "x", "k/b": "y"} {
		if got := dump(t, cli)[k]; got != v {
			t.Fatalf("%s = %q after the run", k, got)
		}
	}
}

// The table of a run whose backup was deleted says so where it names the
// backup, instead of naming it as if it existed.
func TestOutcomeNamesADeletedBackup(t *testing.T) {
	out := &Outcome{plan: &Plan{Command: "ops", Title: "ops", View: framework.Message("plan"), Put: "put"},
		Applied: &Result{Backup: "/b/x.jsonl", BackupDeleted: true, Keys: 2, Written: 2, Puts: 2}, Verify: &Verify{OK: true}}
	var b strings.Builder
	if err := out.Table(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "backup: /b/x.jsonl DELETED during the run") {
		t.Fatalf("table:\n%s", b.String())
	}
}

// The probe of a prefix that holds many keys makes etcd count none of them
// (a read of the range, which etcd runs, counted every key: a quarter of a
// second for a million segments) and changes nothing.
func TestPermissionProbeReadsNoKey(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	p := newProber([]string{"by-dev/meta/"})
	for i := range 300 {
		k := fmt.Sprintf("by-dev/meta/datacoord-meta/s/%04d", i)
		if _, err := cli.Put(ctx, k, "v"); err != nil {
			t.Fatal(err)
		}
		p.add(Op{Key: k, ModRevision: 1})
	}
	before := dump(t, cli)
	kv := etcdtest.NewCountingKV(cli.KV)
	if err := p.run(ctx, kv); err != nil {
		t.Fatal(err)
	}
	if kv.Counted != 0 || kv.Returned != 0 {
		t.Errorf("the probe made etcd count %d keys and return %d", kv.Counted, kv.Returned)
	}
	if d := diffKeysOf(before, dump(t, cli)); len(d) > 0 {
		t.Fatalf("the probe changed keys: %v", d)
	}
}
