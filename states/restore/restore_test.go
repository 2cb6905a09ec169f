package restore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// RunResult is the run document (apply.Outcome) as the tests read it.
type RunResult struct {
	Plan    *Summary      `json:"plan"`
	Applied *apply.Result `json:"applied"`
	Verify  *apply.Verify `json:"verify"`
	// Reminders close a verified run.
	Reminders []string `json:"reminders"`
}

type env struct {
	t    *testing.T
	cli  *clientv3.Client
	inst *instance.Instance
	dir  string
	tune func(*apply.Options) // the options of every run (apply.Tuned)
}

func newEnv(t *testing.T, cli *clientv3.Client, ep, root string) *env {
	t.Helper()
	s := shelltest.Seed(t, cli, ep, root, commonpb.WALName_Pulsar)
	return &env{t: t, cli: cli, inst: s.Inst, dir: t.TempDir()}
}

func (e *env) run(line string) (string, string, int) {
	e.t.Helper()
	out, errs, code, _ := shelltest.Run(e.t, []*framework.Command{apply.Tuned(e.inst, Build, e.tune), apply.Tuned(e.inst, reset.Build, e.tune)}, line)
	return out, errs, code
}

func (e *env) dump() map[string]string { return shelltest.Dump(e.t, e.cli) }

func (e *env) rev() int64 { return shelltest.Revision(e.t, e.inst) }

var diff = shelltest.DiffKeys

// resetRun resets the instance to kafka and returns the backup path.
func (e *env) resetRun() string {
	e.t.Helper()
	out, errs, code := e.run("reset checkpoint --target-wal kafka --max-txn-ops 5 --run --format json --backup-dir " + e.dir)
	if code != 0 {
		e.t.Fatalf("reset: exit %d\n%s\n%s", code, out, errs)
	}
	var r RunResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		e.t.Fatal(err)
	}
	return r.Applied.Backup
}

func TestRestoreIsByteIdentical(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	other := newEnv(t, cli, ep, "other")
	original := e.dump()
	backup := e.resetRun()
	afterReset := e.dump()

	// Dry run: a plan, nothing written.
	r0 := e.rev()
	out, errs, code := e.run("restore --format json --file " + backup)
	if code != 0 || e.rev() != r0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var s Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	// 14 rewritten keys go back, and so do the 3 deleted query targets; the
	// mq.type override the reset created (none existed) is deleted.
	if s.Entries != 18 || s.Puts != 17 || s.Deletes != 1 || s.Unchanged != 0 || s.TotalKeys != 18 || s.Backup.Target != "kafka" || s.Backup.Revision == 0 || s.Refused {
		t.Fatalf("plan %+v", s)
	}
	out, errs, code = e.run("restore --format json --backup-dir " + e.dir + " --file " + backup + " --run")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var res RunResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ after restore: %v", d)
	}
	// Nothing else wrote during the restore: its own revisions prove the read-back.
	if !res.Verify.OK || res.Verify.Keys != 18 || res.Verify.Replanned != 0 || res.Verify.ReadBack != "proven by revisions" || res.Applied == nil || res.Applied.Backup == "" {
		t.Fatalf("result %+v", res)
	}
	// Restoring again writes nothing; restoring the restore's own backup
	// brings the reset back.
	r0 = e.rev()
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + backup + " --run"); code != 0 || e.rev() != r0 {
		t.Fatalf("second restore: exit %d, %s", code, errs)
	}
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + res.Applied.Backup + " --run"); code != 0 {
		t.Fatalf("restore of the restore: exit %d, %s", code, errs)
	}
	if d := diff(afterReset, e.dump()); len(d) != 0 {
		t.Fatalf("restore of the restore backup differs from the reset at %v", d)
	}

	// Another instance's backup is refused.
	r0 = e.rev()
	_, errs, code = other.run("restore --file " + backup + " --run")
	if code != framework.ExitRefused || e.rev() != r0 || !strings.Contains(errs, "root path") {
		t.Fatalf("foreign backup: exit %d: %s", code, errs)
	}
}

func TestRestoreGatesAndBadFiles(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	backup := e.resetRun()
	ctx := context.Background()

	// Truncated file.
	data, _ := os.ReadFile(backup)
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(e.dir, "cut.jsonl")
	_ = os.WriteFile(cut, []byte(strings.Join(lines[:len(lines)-2], "")), 0o600)
	r0 := e.rev()
	_, errs, code := e.run("restore --file " + cut + " --run")
	if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, "truncated") {
		t.Fatalf("truncated: exit %d: %s", code, errs)
	}
	// A --file that names no file is a usage error (exit 2), naming the flag.
	if _, errs, code := e.run("restore --file " + filepath.Join(e.dir, "none")); code != framework.ExitUsage || !strings.Contains(errs, "--file") {
		t.Fatalf("missing file: exit %d: %s", code, errs)
	}

	// A live Milvus.
	lease, err := cli.Grant(ctx, 300)
	if err != nil {
		t.Fatal(err)
	}
	sess := e.inst.Layout.Meta("session/datacoord")
	if _, err := cli.Put(ctx, sess, "{}", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	r0 = e.rev()
	_, errs, code = e.run("restore --file " + backup + " --run")
	if code != framework.ExitRefused || e.rev() != r0 {
		t.Fatalf("live session: exit %d: %s", code, errs)
	}
	if _, err := cli.Revoke(ctx, lease.ID); err != nil {
		t.Fatal(err)
	}

	// A key changed between plan and apply.
	key := e.inst.Layout.Meta(models.ConsumeCheckpointKey(e.inst.Layout.RootPath + "-rootcoord-dml_0"))
	e.tune = func(o *apply.Options) {
		o.AfterBackup = func(string) error {
			_, err := cli.Put(ctx, key, "changed")
			return err
		}
	}
	_, errs, code = e.run("restore --backup-dir " + e.dir + " --file " + backup + " --run")
	e.tune = nil
	if code != framework.ExitRefused || !strings.Contains(errs, key) || !strings.Contains(errs, "changed since the plan") || !strings.Contains(errs, "restore: nothing was written") {
		t.Fatalf("conflict: exit %d: %s", code, errs)
	}
}

func TestRestoreInterruptedThenCompleted(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	original := e.dump()
	backup := e.resetRun()
	e.tune = stopAfterTxns(3)
	_, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + backup + " --run")
	e.tune = nil
	if code != framework.ExitFailed || !strings.Contains(errs, "simulated crash") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Consume checkpoints went first: the reset's plan sees the split.
	out, _, _ := e.run("reset checkpoint --target-wal kafka --format json")
	var s reset.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.SplitPChannels) == 0 {
		t.Fatalf("no split after an interrupted restore: %+v", s.SplitState)
	}
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + backup + " --run"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ: %v", d)
	}
}

func TestRestoreDeletesKeysThatWereAbsent(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	ctx := context.Background()
	original := e.dump()
	created := e.inst.Layout.Root("config/mqtype")
	seg := e.inst.Layout.Meta(models.SegmentKey(100, 101, 1001))
	resp, _ := cli.Get(ctx, seg)
	path := filepath.Join(e.dir, "made.jsonl")
	bw, err := apply.CreateBackup(path, apply.Header{Command: "restore --file made.jsonl --run", RootPath: "by-dev"})
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range []apply.Entry{
		{Key: seg, ModRevision: resp.Kvs[0].ModRevision, Value: resp.Kvs[0].Value, Delete: true},
		{Key: created, Absent: true},
	} {
		if err := bw.Add(en); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
	// What the backed-up write did: it deleted seg and created the key.
	if _, err := cli.Delete(ctx, seg); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, created, "kafka"); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + path + " --run"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ: %v", d)
	}
}

// stopAfterTxns tunes a run to write one transaction of 4 ops at a time
// and stop, as a crash would, after the nth.
func stopAfterTxns(nth int) func(*apply.Options) {
	return func(o *apply.Options) {
		o.Concurrency, o.MaxTxnOps = 1, 4
		o.AfterTxn = func(n int) error {
			if n == nth {
				return errors.New("simulated crash")
			}
			return nil
		}
	}
}
