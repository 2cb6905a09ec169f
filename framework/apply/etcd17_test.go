package apply

import (
	"context"
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
)

// named is a Store that knows its etcd user, as an instance does.
type named struct {
	*clientv3.Client
	user string
}

func (n named) UserName() string { return n.user }

func TestNoSpaceStopSaysNotAppliedAndHowToRecover(t *testing.T) {
	cli, ep := etcdtest.StartWith(t, embedded.Options{QuotaBackendBytes: 1 << 20})
	value := strings.Repeat("v", 64<<10)
	var ops []Op
	for i := range 64 { // 4 MiB: four times the quota
		ops = append(ops, Op{Key: fmt.Sprintf("by-dev/meta/big/%03d", i), Value: []byte(value)})
	}
	path := filepath.Join(t.TempDir(), "b.jsonl")
	res, err := Apply(context.Background(), cli, Slice(ops), Options{
		BackupPath: path, Header: Header{Command: "test", RootPath: "by-dev", Endpoints: []string{ep}, Prefixes: []string{"by-dev/meta/"}},
		MaxTxnOps: 2, Concurrency: 1,
	})
	var refused *RefusedTxnError
	if !errors.As(err, &refused) || !IsNoSpace(err) {
		t.Fatalf("want a NOSPACE refusal, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"was NOT applied", "out of space", "NOSPACE",
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
	if res.Written == 0 || res.Written >= res.Keys {
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
	if !strings.Contains(msg, fmt.Sprintf(" compact %d)", got.Header.Revision)) {
		t.Errorf("message does not name the current revision %d:\n%s", got.Header.Revision, msg)
	}
}

// authEtcd starts an etcd with auth on: root, a user "dc" that may read and
// write only by-dev/meta/datacoord-meta/, and a user "ro" that may only read
// by-dev/. It returns root's client and the endpoint.
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
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, Username: user, Password: password, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestPermissionProbeRefusesBeforeTheFirstWrite(t *testing.T) {
	root, ep := authEtcd(t)
	before := dump(t, root)
	resp, err := root.Get(context.Background(), "by-dev/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	modRev := map[string]int64{}
	for _, kv := range resp.Kvs {
		modRev[string(kv.Key)] = kv.ModRevision
	}
	// 200 datacoord keys first (the dc user may write them), then root-coord.
	var ops []Op
	for i := range 200 {
		ops = append(ops, Op{Key: fmt.Sprintf("by-dev/meta/datacoord-meta/s/%04d", i), Value: []byte("new")})
	}
	ops = append(ops, Op{Key: "by-dev/meta/root-coord/c/1", ModRevision: modRev["by-dev/meta/root-coord/c/1"], Value: []byte("new"), Phase: 1})
	for _, tc := range []struct {
		user, password, prefix string
	}{
		{"dc", "dcpw", "by-dev/meta/root-coord/"},
		{"ro", "ropw", "by-dev/meta/datacoord-meta/"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			store := named{Client: login(t, ep, tc.user, tc.password), user: tc.user}
			dir := t.TempDir()
			res, err := Apply(context.Background(), store, Slice(ops), Options{
				BackupPath: filepath.Join(dir, "b.jsonl"),
				Header:     Header{Command: "test", RootPath: "by-dev", Prefixes: []string{"by-dev/meta/"}},
				Approve:    func(int64) error { t.Fatal("the plan was approved: the probe must refuse first"); return nil },
			})
			if framework.ExitCode(err) != framework.ExitRefused {
				t.Fatalf("want a refusal (exit 3), got %v", err)
			}
			for _, want := range []string{`etcd user "` + tc.user + `"`, "may not read and write " + tc.prefix, "nothing was written"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message lacks %q: %v", want, err)
				}
			}
			if res.Written != 0 || res.Backup != "" {
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
	res, err := Apply(context.Background(), named{Client: root, user: "root"}, Slice(ops), Options{
		BackupPath: filepath.Join(t.TempDir(), "b.jsonl"),
		Header:     Header{Command: "test", RootPath: "by-dev", Prefixes: []string{"by-dev/meta/"}},
	})
	if err != nil || res.Written != int64(len(ops)) {
		t.Fatalf("root: %v, wrote %d", err, res.Written)
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
	revs := seed(t, cli, map[string]string{"k/a": "1", "k/b": "2"})
	dir := filepath.Join(t.TempDir(), "backups")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	ops := []Op{{Key: "k/a", ModRevision: revs["k/a"], Value: []byte("x")}, {Key: "k/b", ModRevision: revs["k/b"], Value: []byte("y")}}
	res, err := Run(context.Background(), cli, Job{
		Command: "test", Name: "test", Header: Header{Command: "test", RootPath: "r", Revision: 1},
		Flags: framework.WriteFlags{BackupDir: dir, MaxTxnOps: 1}, Ops: Slice(ops), Plan: framework.Message("plan"),
		Tune: func(o *Options) {
			o.AfterTxn = func(int) error { return os.RemoveAll(dir) }
		},
	}, framework.WriteIO{Stdout: &strings.Builder{}, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if !res.BackupDeleted {
		t.Fatal("the result does not say the backup is gone")
	}
	if !strings.Contains(stderr.String(), "warning: the backup folder "+dir+" was deleted during the run") {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
}
