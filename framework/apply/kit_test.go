package apply_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// flipParams are the flags of a test write command: it sets every key under
// r/meta/ to --value, refused while r/meta/bad exists.
type flipParams struct {
	framework.ParamBase `use:"flip" desc:"set every key to a value"`
	Value               string `name:"value" default:"new" desc:"the value"`
	framework.WriteFlags
	framework.Output
}

// flipView is the plan's view.
type flipView struct {
	Keys  int64            `json:"keys"`
	Gates []framework.Gate `json:"gates"`
}

func (v *flipView) JSON() any { return v }
func (v *flipView) Table(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "PLAN %d keys\n", v.Keys); err != nil {
		return err
	}
	return framework.WriteGates(w, v.Gates)
}
func (v *flipView) Lines(w io.Writer) error {
	if err := framework.WriteLine(w, "plan", "flip", "keys", v.Keys); err != nil {
		return err
	}
	return framework.GateLines(w, v.Gates)
}

type flipStore struct{ *clientv3.Client }

func (flipStore) Guards() []apply.Guard { return nil }

func (s flipStore) Revision(ctx context.Context) (int64, error) {
	resp, err := s.Get(ctx, "r/", clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

func flipBuild(ctx context.Context, s flipStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
	resp, err := s.Get(ctx, "r/meta/", clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	rev := resp.Header.Revision
	view := &flipView{}
	bad := framework.Gate{Name: "no bad key", OK: true, Detail: "r/meta/bad is absent"}
	values := map[string]bool{}
	for _, kv := range resp.Kvs {
		values[string(kv.Value)] = true
		if string(kv.Key) == "r/meta/bad" {
			bad.OK, bad.Count, bad.Keys, bad.Detail = false, 1, []string{"r/meta/bad"}, "r/meta/bad exists: remove it"
		}
	}
	view.Gates = []framework.Gate{bad}
	h := apply.Header{Command: "flip --value " + p.Value + " --run", RootPath: "r", Revision: rev, Prefixes: []string{"r/meta/"}}
	err = st.Scan(ctx, h, "flip", func(ctx context.Context, yield func(apply.Op) error) error {
		view.Keys = 0
		for _, kv := range resp.Kvs {
			if string(kv.Value) == p.Value || string(kv.Key) == "r/meta/bad" {
				continue
			}
			view.Keys++
			if yield != nil {
				if err := yield(apply.Op{Key: string(kv.Key), ModRevision: kv.ModRevision, Value: []byte(p.Value), Original: kv.Value}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &apply.Plan{Command: "flip", Title: "flip to " + p.Value, View: view, Gates: view.Gates, Keys: view.Keys, Root: "r",
		SplitState: len(values) > 1 && values[p.Value], Put: "set", Nothing: "nothing to write"}, nil
}

func seedKeys(t *testing.T, cli *clientv3.Client, n int, value string) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := cli.Put(context.Background(), fmt.Sprintf("r/meta/k%02d", i), value); err != nil {
			t.Fatal(err)
		}
	}
}

func revision(t *testing.T, cli *clientv3.Client) int64 {
	t.Helper()
	resp, err := cli.Get(context.Background(), "x", clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// A refused --run prints the same whole plan as the dry run (same keys,
// same gates), then exits 3 and writes nothing, leaving no file.
func TestKitRefusedRunPrintsTheDryRunPlan(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 5, "old")
	if _, err := cli.Put(context.Background(), "r/meta/bad", "x"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmds := []*framework.Command{apply.Command(flipStore{cli}, flipBuild)}
	for _, format := range []string{"table", "json", "line"} {
		r0 := revision(t, cli)
		dry, _, code, _ := shelltest.Run(t, cmds, "flip --format "+format+" --backup-dir "+dir)
		if code != framework.ExitRefused {
			t.Fatalf("dry run exit %d", code)
		}
		run, _, code, _ := shelltest.Run(t, cmds, "flip --run --format "+format+" --backup-dir "+dir)
		if code != framework.ExitRefused || run != dry || !strings.Contains(run, "5") || !strings.Contains(run, "r/meta/bad") {
			t.Fatalf("%s: refused run (exit %d) printed\n%s\nthe dry run\n%s", format, code, run, dry)
		}
		if files, _ := os.ReadDir(dir); len(files) != 0 || revision(t, cli) != r0 {
			t.Fatalf("refused run left %v or wrote", files)
		}
	}
}

// The kit owns the question, the backup's name, the generic verify, and
// errors that name the backup to roll back from.
func TestKitRun(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 2, "old")
	dir := t.TempDir()
	r0 := revision(t, cli)
	var out, errb strings.Builder
	no := framework.NewShell(shelltest.State{Cmds: []*framework.Command{apply.Command(flipStore{cli}, flipBuild)}}, &out, &errb)
	no.SetConfirm(func(context.Context, string) (bool, error) { return false, nil })
	if err := no.Run(context.Background(), "flip --run --max-txn-ops 1 --backup-dir "+dir); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 || revision(t, cli) != r0 || !strings.Contains(errb.String(), "nothing was written") {
		t.Fatalf("declined run left %v or wrote; stderr %s", files, errb.String())
	}
	// A key overwritten after its write: the read-back names it.
	tampered := []*framework.Command{apply.Tuned(flipStore{cli}, flipBuild, func(o *apply.Options) {
		o.Concurrency = 1
		o.AfterTxn = func(n int) error {
			if n == 2 {
				_, err := cli.Put(context.Background(), "r/meta/k00", "other")
				return err
			}
			return nil
		}
	})}
	stdout, stderr, code, err := shelltest.Run(t, tampered, "flip --run --max-txn-ops 1 --backup-dir "+dir)
	if code != framework.ExitFailed || !strings.Contains(err.Error(), "verify: ") || !strings.Contains(stdout, "r/meta/k00: does not hold the bytes the plan staged") {
		t.Fatalf("exit %d %v\n%s\n%s", code, err, stdout, stderr)
	}
	m, _ := filepath.Glob(filepath.Join(dir, "heron-backup-r-flip-rev*.jsonl"))
	if len(m) != 1 || !strings.Contains(stderr, "backup: "+m[0]+" (2 keys, synced)") {
		t.Fatalf("backups %v, stderr %s", m, stderr)
	}
	// A conflict after the backup, before any key is written (another run
	// won the race): refused (exit 3), "nothing was written", no STOPPED
	// block, no split, no advice to complete or roll back, and the backup
	// (of no change of this run) is removed.
	conflict := []*framework.Command{apply.Tuned(flipStore{cli}, flipBuild, func(o *apply.Options) {
		o.AfterBackup = func(string) error {
			_, err := cli.Put(context.Background(), "r/meta/k00", "changed")
			return err
		}
	})}
	before, _ := filepath.Glob(filepath.Join(dir, "heron-backup-r-flip-rev*.jsonl"))
	cout, cerr, code, err := shelltest.Run(t, conflict, "flip --run --backup-dir "+dir)
	var ce *apply.ConflictError
	if !errors.As(err, &ce) || code != framework.ExitRefused || !strings.Contains(err.Error(), "nothing was written") || strings.Contains(err.Error(), "restore --file") {
		t.Fatalf("conflict: exit %d: %v", code, err)
	}
	if !strings.Contains(cout, "flip to new: nothing was written (0 of 1 keys): key r/meta/k00 changed since the plan") || strings.Contains(cout, "STOPPED") || strings.Contains(cout, "split") {
		t.Fatalf("conflict: stdout %s", cout)
	}
	if after, _ := filepath.Glob(filepath.Join(dir, "heron-backup-r-flip-rev*.jsonl")); len(after) != len(before) || !strings.Contains(cerr, "removed: this run changed no key") {
		t.Fatalf("conflict: backups %v -> %v, stderr %s", before, after, cerr)
	}
	// An interrupted run leads with the STOPPED block and says no Go error text.
	interrupted := []*framework.Command{apply.Tuned(flipStore{cli}, flipBuild, func(o *apply.Options) {
		o.Concurrency = 1
		o.AfterTxn = func(n int) error { return context.Canceled }
	})}
	stdout, stderr, code, _ = shelltest.Run(t, interrupted, "flip --value third --run --max-txn-ops 1 --backup-dir "+dir)
	if code != framework.ExitFailed || !strings.Contains(stdout, "gates:\n  ok  no bad key  r/meta/bad is absent\nSTOPPED: 1 of 2 keys written: the instance is split, do not start Milvus.") ||
		!strings.Contains(stdout, "to complete it:  flip --value third --run --backup-dir "+dir+"\n") || strings.Contains(stdout+stderr, "context canceled") ||
		!strings.Contains(stderr, "interrupted: stopped after 1 transactions") {
		t.Fatalf("interrupted: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Names never collide.
	now := time.Now()
	a := apply.BackupPath(dir, "r", "n", 1, now)
	if err := os.WriteFile(a, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if b := apply.BackupPath(dir, "r", "n", 1, now); b == a || !strings.HasSuffix(b, "-2.jsonl") {
		t.Fatalf("%s then %s", a, b)
	}
}

// Run A is interrupted, its re-run B is interrupted, re-run C completes. B
// and C record the chain; their messages name A as the backup of the
// original values, and the chain restores newest first.
func TestKitBackupChainAfterTwoInterrupts(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 12, "old")
	dir := t.TempDir()
	run := func(stopAfter int) (string, string, error) {
		cmds := []*framework.Command{apply.Tuned(flipStore{cli}, flipBuild, func(o *apply.Options) {
			o.Concurrency = 1
			o.AfterTxn = func(n int) error {
				if n == stopAfter {
					return errors.New("simulated crash")
				}
				return nil
			}
		})}
		_, stderr, _, err := shelltest.Run(t, cmds, "flip --run --max-txn-ops 2 --backup-dir "+dir)
		m, _ := filepath.Glob(filepath.Join(dir, "heron-backup-*.jsonl"))
		newest := ""
		for _, p := range m {
			if h, _ := apply.ReadBackupHeader(p); newest == "" || h.Revision > mustHeader(t, newest).Revision {
				newest = p
			}
		}
		return newest, stderr, err
	}
	a, _, err := run(2)
	if err == nil || !strings.Contains(err.Error(), "backup of the original values: "+a) {
		t.Fatalf("A: %v", err)
	}
	b, bErr, err := run(1)
	if err == nil {
		t.Fatal("B was not interrupted")
	}
	absA, _ := filepath.Abs(a)
	hb := mustHeader(t, b)
	if !hb.SplitState || hb.Continues != absA || hb.OriginalBackup != absA {
		t.Fatalf("B's header %+v", hb)
	}
	if !strings.Contains(err.Error(), "restore --file "+b+" --run, then restore --file "+absA+" --run") {
		t.Fatalf("B's order: %v", err)
	}
	if !strings.Contains(bErr, "this run continues "+absA) {
		t.Fatalf("B's stderr: %s", bErr)
	}
	c, cErr, err := run(-1)
	if err != nil {
		t.Fatal(err)
	}
	absB, _ := filepath.Abs(b)
	if hc := mustHeader(t, c); hc.Continues != absB || hc.OriginalBackup != absA {
		t.Fatalf("C's header %+v", hc)
	}
	if !strings.Contains(cErr, "the backup of the original values is "+absA) {
		t.Fatalf("C's stderr: %s", cErr)
	}
	if ha := mustHeader(t, a); ha.SplitState || ha.Continues != "" {
		t.Fatalf("A's header %+v", ha)
	}
}

func mustHeader(t *testing.T, path string) apply.Header {
	t.Helper()
	h, err := apply.ReadBackupHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
