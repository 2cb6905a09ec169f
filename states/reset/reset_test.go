package reset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/sampletest"
	"github.com/heron-shell/heron/tests/shelltest"
)

func planJSON(t *testing.T, out string) *Summary {
	t.Helper()
	var s Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return &s
}

func runJSON(t *testing.T, out string) *RunResult {
	t.Helper()
	var r RunResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return &r
}

// withTune makes the commands of e adjust the apply options of every run with fn.
func (e *env) withTune(fn func(*apply.Options)) { e.tune = fn }

func TestGatesRefuseAndWriteNothing(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	lease, err := cli.Grant(ctx, 300)
	if err != nil {
		t.Fatal(err)
	}
	segment := func(e *env, state commonpb.SegmentState) {
		v := e.pc(0) + "_100v0"
		e.put(e.meta(models.SegmentKey(100, 101, 1009)), sample.Segment{ID: 1009, Collection: 100, Partition: 101, Channel: v, Rows: 5, State: state,
			Start: sample.Position(v, sample.ID(e.sample.WAL, 9), 1, 0)}.Encode())
	}
	cases := []struct {
		name, gate string
		seed       func(e *env)
		growing    bool
	}{
		{"session", "no live Milvus component", func(e *env) {
			if _, err := cli.Put(ctx, e.meta("session/querycoord"), `{"ServerID":3,"ServerName":"querycoord"}`, clientv3.WithLease(lease.ID)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"growing", "no unflushed segment in scope", func(e *env) { segment(e, commonpb.SegmentState_Growing) }, true},
		{"sealed", "no unflushed segment in scope", func(e *env) { segment(e, commonpb.SegmentState_Sealed) }, true},
		{"flushing", "no unflushed segment in scope", func(e *env) { segment(e, commonpb.SegmentState_Flushing) }, true},
		{"segment-assign", "no unflushed segment in scope", func(e *env) {
			e.put(e.meta(models.SegmentAssignPrefix(e.pc(1))+"5001"), sampletest.SegmentAssignment(100, 101, 5001, e.pc(1)+"_100v1"))
		}, true},
		{"pending", "no in-flight broadcast task", func(e *env) {
			e.put(e.meta(models.BroadcastTaskPrefix+"9"), sample.BroadcastTask(int32(models.BroadcastPending)))
		}, false},
		{"waitack", "no in-flight broadcast task", func(e *env) {
			e.put(e.meta(models.BroadcastTaskPrefix+"9"), sample.BroadcastTask(int32(models.BroadcastWaitAck)))
		}, false},
		{"replicated", "no in-flight broadcast task", func(e *env) {
			e.put(e.meta(models.BroadcastTaskPrefix+"9"), sample.BroadcastTask(int32(models.BroadcastReplicated)))
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := seedEnv(t, cli, ep, "gate-"+c.name, commonpb.WALName_Pulsar)
			c.seed(e)
			r0 := e.rev()
			for _, args := range []string{"--target-wal kafka", "--target-wal kafka --run", "--target-wal kafka --run --format json"} {
				out, errs, code := e.reset(args)
				if code != framework.ExitRefused || e.rev() != r0 {
					t.Fatalf("%s: exit %d, revision %d -> %d\n%s\n%s", args, code, r0, e.rev(), out, errs)
				}
				mustContain(t, out+errs, c.gate, "refused")
			}
			// A refused --run prints the whole plan of the dry run: the
			// same keys, the same gates, in every format.
			for _, f := range []string{"table", "json", "line"} {
				dry, _, _ := e.reset("--target-wal kafka --format " + f)
				run, _, _ := e.reset("--target-wal kafka --run --format " + f)
				if withoutEtcdSpace(run) != withoutEtcdSpace(dry) || !strings.Contains(dry, "REFUSED") && !strings.Contains(dry, "\"ok\": false") && !strings.Contains(dry, "ok=false") {
					t.Fatalf("%s: the refused --run printed\n%s\nthe dry run\n%s", f, run, dry)
				}
			}
			if s := planJSON(t, first(e.reset("--target-wal kafka --run --format json"))); s.TotalKeys == 0 || len(s.Gates) < 3 {
				t.Fatalf("a refused --run printed a partial plan: %+v", s)
			}
			files, _ := os.ReadDir(e.dir)
			if len(files) != 0 {
				t.Fatalf("refused run left %v", files)
			}
			if !c.growing {
				// --allow-growing does not lift the other gates.
				if _, _, code := e.reset("--target-wal kafka --allow-growing --run"); code != framework.ExitRefused {
					t.Fatalf("--allow-growing lifted %s: exit %d", c.gate, code)
				}
				return
			}
			out, _, _ := e.reset("--target-wal kafka --allow-growing")
			mustContain(t, out, "overridden", "LOST")
			out, errs, code := e.reset("--target-wal kafka --allow-growing --run --format json")
			if code != 0 {
				t.Fatalf("--allow-growing: exit %d\n%s\n%s", code, out, errs)
			}
			res := runJSON(t, out)
			mustContain(t, strings.Join(res.Plan.Warnings, "\n"), "LOST")
			if !res.Verify.OK {
				t.Fatalf("verify %+v", res.Verify)
			}
			got, _ := cli.Get(ctx, e.meta(models.SegmentAssignPrefix(e.pc(1))), clientv3.WithPrefix(), clientv3.WithCountOnly())
			if got.Count != 0 {
				t.Fatal("segment-assign record left")
			}
		})
	}
}

func first(out, _ string, _ int) string { return out }

// Each warning reaches the terminal once per run: in the plan shown before
// the first write, not again on stderr or after the verify.
func TestEachWarningOnce(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	e.put(e.meta(models.ChannelCPKey(e.pc(1)+"_100v1")), nil) // an empty value: a warning
	for _, f := range []string{"table", "json"} {
		out, errs, code := e.reset("--target-wal kafka --run --format " + f)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		terminal := errs
		if f == "table" {
			terminal = out + errs
		}
		if n := strings.Count(terminal, "empty values rewritten"); n != 1 {
			t.Fatalf("%s: the warning reached the terminal %d times:\n%s\n%s", f, n, out, errs)
		}
		e.put(e.meta(models.ChannelCPKey(e.pc(1)+"_100v1")), nil)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	r0 := e.rev()
	for _, f := range []string{"table", "json", "line"} {
		out, errs, code := e.reset("--target-wal woodpecker --format " + f)
		if code != 0 || e.rev() != r0 {
			t.Fatalf("%s: exit %d\n%s\n%s", f, code, out, errs)
		}
		mustContain(t, errs, "dry run")
	}
	out, _, _ := e.reset("--target-wal woodpecker --format json")
	s := planJSON(t, out)
	// 17 position keys and the mq.type override the run creates.
	if s.TotalKeys != 18 || s.Refused || !s.Scope.WholeInstance || len(s.Scope.PChannels) != 3 {
		t.Fatalf("plan %+v", s)
	}
	mustContain(t, strings.Join(s.NotTouched, "\n"), "channel-removal", "schema", "kv/", "replicat", "pchannel", "tombstone")
	mustContain(t, strings.Join(s.Reminders, "\n"), "mq.type", "fresh", "effective prefix by-dev/woodpecker/")
	if len(s.Deletions) != 1 || s.Deletions[0].Unit != "prefix" || s.Deletions[0].Prefixes[0] != e.meta(models.QueryTargetPrefix) || s.Deletions[0].Count != 3 {
		t.Fatalf("deletions %+v", s.Deletions)
	}
	files, _ := os.ReadDir(e.dir)
	if len(files) != 0 {
		t.Fatalf("dry run wrote %v", files)
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Kafka)
	_, errs, code := e.run("reset checkpoint --target-wal nats")
	if code != framework.ExitUsage {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, errs, "kafka", "pulsar", "rocksmq", "woodpecker")
	_, errs, code = e.run("reset checkpoint --target-wal pulsar --pchannel nope")
	if code != framework.ExitUsage {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, errs, "nope", e.pc(0), e.pc(1), e.pc(2))
	_, _, code = e.run("reset checkpoint --target-wal pulsar --max-txn-ops 0")
	if code != framework.ExitUsage {
		t.Fatalf("exit %d", code)
	}
}

func TestScopedRun(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := seedEnv(t, cli, ep, "by-dev", commonpb.WALName_Pulsar)
	// dml_1 and dml_2 are on kafka already (an earlier run): the scoped run
	// of dml_0 completes the instance, which the one-WAL gate lets through.
	e.moveOutside("kafka", e.pc(1), e.pc(2))
	before := e.dump()
	dry, _, _ := e.reset("--target-wal kafka --pchannel " + e.pc(0) + " --format json")
	s := planJSON(t, dry)
	if s.Scope.WholeInstance || fmt.Sprint(s.Scope.PChannels) != fmt.Sprint([]string{e.pc(0)}) {
		t.Fatalf("scope %+v", s.Scope)
	}
	if len(s.Deletions) != 1 || s.Deletions[0].Unit != "keys" || fmt.Sprint(s.Deletions[0].Keys) != fmt.Sprint([]string{e.meta(models.QueryTargetKey(100))}) {
		t.Fatalf("deletions %+v", s.Deletions)
	}
	out, errs, code := e.reset("--target-wal kafka --pchannel " + e.pc(0) + " --run")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	after := e.dump()
	v0 := e.pc(0) + "_100v0"
	snapshot := ""
	for k := range before {
		if strings.Contains(k, "snapshots/") {
			snapshot = k
		}
	}
	want := []string{
		e.meta(models.ConsumeCheckpointKey(e.pc(0))),
		e.meta(models.ChannelCPKey(v0)),
		e.meta(models.SegmentKey(100, 101, 1001)),
		e.meta(models.SegmentKey(100, 101, 1003)),
		e.meta(models.CollectionInfoKey(1, 100)),
		snapshot,
		e.meta(models.QueryTargetKey(100)),         // books has a shard on dml_0: its target goes
		e.inst.Layout.Root(models.MQTypeConfigKey), // no override existed: the run creates it
	}
	sort.Strings(want)
	if got := diffKeys(before, after); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("changed:\n%v\nwant:\n%v", got, want)
	}
	if _, ok := after[e.meta(models.QueryTargetKey(100))]; ok {
		t.Fatal("target of books kept")
	}
	for _, id := range []int64{200, 999} {
		if after[e.meta(models.QueryTargetKey(id))] != before[e.meta(models.QueryTargetKey(id))] {
			t.Fatalf("target %d touched", id)
		}
	}
	// Only the dml_0 pair of books' start positions changed.
	c, err := models.DecodeCollectionInfo([]byte(after[e.meta(models.CollectionInfoKey(1, 100))]))
	if err != nil {
		t.Fatal(err)
	}
	old, _ := models.DecodeCollectionInfo([]byte(before[e.meta(models.CollectionInfoKey(1, 100))]))
	if len(c.StartPositions[0].Data) != 8 || string(c.StartPositions[1].Data) != string(old.StartPositions[1].Data) {
		t.Fatalf("start positions %x", c.StartPositions)
	}
	// A whole-instance run then takes the rest, orphans included.
	out, errs, code = e.reset("--target-wal kafka --run --format json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, ok := e.dump()[e.meta(models.QueryTargetKey(999))]; ok {
		t.Fatal("orphan target 999 left by a whole-instance run")
	}
}

// TestSplitStateRerunAndRestore interrupts runs after k transactions, checks
// that the plan then reports a split state, that a re-run completes it to
// the very dump of an uninterrupted run, and that restore brings the
// original dump back byte for byte.
func TestSplitStateRerunAndRestore(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	e.put(e.inst.Layout.Root("config/mqtype"), []byte("pulsar"))
	original := e.dump()
	restoreRun := func(file string) {
		t.Helper()
		out, errs, _, err := shelltest.Run(t, restore.Commands(e.inst), "restore --backup-dir "+e.dir+" --file "+file+" --run")
		if err != nil {
			t.Fatalf("restore: %v\n%s\n%s", err, out, errs)
		}
		if d := diffKeys(original, e.dump()); len(d) != 0 {
			t.Fatalf("after restore these keys differ from the original: %v", d)
		}
	}
	out, errs, code := e.reset("--target-wal kafka --max-txn-ops 4 --run --format json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	res := runJSON(t, out)
	complete := e.dump()
	if complete[e.inst.Layout.Root("config/mqtype")] != "kafka" {
		t.Fatal("mq.type config not rewritten")
	}
	txns := res.Applied.Txns
	if txns < 8 {
		t.Fatalf("only %d transactions", txns)
	}
	restoreRun(res.Applied.Backup)

	for _, k := range []int{1, txns / 2, txns - 2, txns - 1} {
		t.Run(fmt.Sprint("after-", k), func(t *testing.T) {
			e.withTune(func(o *apply.Options) {
				o.Concurrency = 1
				prev := o.AfterTxn
				o.AfterTxn = func(n int) error {
					if prev != nil {
						_ = prev(n)
					}
					if n == k {
						return errors.New("simulated crash")
					}
					return nil
				}
			})
			out, errs, code := e.reset("--target-wal kafka --max-txn-ops 4 --run --format json")
			if code != framework.ExitFailed {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			mustContain(t, errs, "simulated crash", "re-run", "restore --file")
			backup := runJSON(t, out).Applied.Backup
			e.withTune(nil)
			dry, _, _ := e.reset("--target-wal kafka --format json")
			s := planJSON(t, dry)
			if len(s.SplitPChannels) == 0 {
				t.Fatalf("no split state reported after %d of %d transactions: %+v", k, txns, s.SplitState)
			}
			// Issue 16 §7: the plan names the backup that rolls the split back.
			table, _, _ := e.reset("--target-wal kafka")
			mustContain(t, table, "restore --file "+backup+" --run rolls it back")
			out, errs, code = e.reset("--target-wal kafka --run")
			if code != 0 {
				t.Fatalf("re-run: exit %d\n%s\n%s", code, out, errs)
			}
			if d := diffKeys(complete, e.dump()); len(d) != 0 {
				t.Fatalf("re-run differs from an uninterrupted run at %v", d)
			}
			restoreRun(backup)
		})
	}
}

func TestConcurrentChangeStopsTheRun(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	key := e.meta(models.SegmentKey(100, 101, 1002))
	e.withTune(func(o *apply.Options) {
		o.Concurrency = 1
		o.AfterBackup = func(string) error {
			e.put(key, []byte(e.sample.KVs[key]))
			return nil
		}
	})
	before := e.dump()
	out, errs, code := e.reset("--target-wal kafka --max-txn-ops 3 --run")
	if code != framework.ExitFailed {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContain(t, errs, key, "changed since the plan was read", "moved the instance on", "before completing or rolling back")
	mustContain(t, errs, "nothing after it was written")
	// Segment 1001 went before 1002 (put back with the same bytes, but a
	// new mod revision); nothing after 1002 was written.
	changed := diffKeys(before, e.dump())
	if fmt.Sprint(changed) != fmt.Sprint([]string{e.meta(models.SegmentKey(100, 101, 1001))}) {
		t.Fatalf("changed %v", changed)
	}
}

func TestCorruptValuesRefuse(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, c := range []struct{ name, rel string }{
		{"segment", models.SegmentKey(100, 101, 1001)},
		{"channel-cp", "CHANNEL"},
		{"collection-info", models.CollectionInfoKey(1, 100)},
		{"legacy-collection", models.LegacyCollectionKey(200)},
		{"consume-checkpoint", "CP"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := seedEnv(t, cli, ep, "corrupt-"+c.name, commonpb.WALName_Kafka)
			rel := c.rel
			switch rel {
			case "CHANNEL":
				rel = models.ChannelCPKey(e.pc(0) + "_100v0")
			case "CP":
				rel = models.ConsumeCheckpointKey(e.pc(1))
			}
			e.put(e.meta(rel), []byte{0xff, 0xff, 0xff, 0x07})
			r0 := e.rev()
			for _, args := range []string{"--target-wal pulsar", "--target-wal pulsar --run"} {
				out, errs, code := e.reset(args)
				if code == 0 || e.rev() != r0 {
					t.Fatalf("exit %d, revision %d -> %d\n%s\n%s", code, r0, e.rev(), out, errs)
				}
				mustContain(t, errs, e.meta(rel), "does not decode", "nothing was written")
			}
		})
	}
}

func TestBackupDirNotWritable(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	r0 := e.rev()
	dir := filepath.Join(e.dir, "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		dir = filepath.Join(e.dir, "missing", "folder") // root writes anywhere
	}
	_, errs, code := e.run("reset checkpoint --target-wal kafka --run --backup-dir " + dir)
	if code != framework.ExitFailed || e.rev() != r0 {
		t.Fatalf("exit %d, revision %d -> %d: %s", code, r0, e.rev(), errs)
	}
	mustContain(t, errs, "backup", dir)
}

func TestMQTypeConfigRewrite(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	for _, k := range models.MQTypeConfigKeys {
		e.put(e.inst.Layout.Root(k), []byte("pulsar"))
	}
	out, errs, code := e.reset("--target-wal woodpecker --run --format json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	d := e.dump()
	for _, k := range models.MQTypeConfigKeys {
		if d[e.inst.Layout.Root(k)] != "woodpecker" {
			t.Fatalf("%s = %q", k, d[e.inst.Layout.Root(k)])
		}
	}
	res := runJSON(t, out)
	found := false
	for _, r := range res.Plan.Rewrites {
		found = found || (r.Kind == KindMQType && r.Keys == 2)
	}
	if !found {
		t.Fatalf("rewrites %+v", res.Plan.Rewrites)
	}
}

func TestTargetNames(t *testing.T) {
	for _, w := range allWALs {
		p, err := NewPlanner(msgid.Name(w), nil, Context{})
		if err != nil || p.WAL != w {
			t.Fatal(w, err)
		}
	}
}

// TestDryRunAndRunPlanTheSameKeys builds the plan twice at one revision:
// the dry run's scan and --run's scan (the one that writes the backup) must
// report the same summary. The run is then not confirmed: nothing is
// written and its temporary backup is gone.
func TestDryRunAndRunPlanTheSameKeys(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	e.put(e.inst.Layout.Root("config/mqtype"), []byte("pulsar"))
	for _, args := range []string{
		"--target-wal kafka",
		fmt.Sprintf("--target-wal woodpecker --pchannel %s --pchannel %s --pchannel %s", e.pc(0), e.pc(1), e.pc(2)), // scoped, and it completes the instance
		fmt.Sprintf("--target-wal pulsar --pchannel %s --pchannel %s --allow-growing", e.pc(1), e.pc(2)),
	} {
		line := "reset checkpoint --max-txn-ops 6 --backup-dir " + e.dir + " " + args
		r0 := e.rev()
		dry, _, _ := e.run(line)
		dryJSON, _, _ := e.run(line + " --format json")
		keys := planJSON(t, dryJSON).TotalKeys
		var asked string
		var out, stderr strings.Builder
		sh := framework.NewShell(shelltest.State{Cmds: Commands(e.inst)}, &out, &stderr)
		sh.SetConfirm(func(_ context.Context, q string) (bool, error) { asked = q; return false, nil })
		if err := sh.Run(context.Background(), line+" --run --format json"); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if !strings.Contains(withoutEtcdSpace(stderr.String()), withoutEtcdSpace(dry)) || !strings.Contains(stderr.String(), "nothing was written") || out.Len() != 0 {
			t.Fatalf("%s: the dry run planned\n%s\n--run showed\n%s", args, dry, stderr.String())
		}
		if keys == 0 {
			t.Fatalf("%s: nothing planned", args)
		}
		if want := fmt.Sprintf("\napply these %d key changes to by-dev? [y/N] ", keys); !strings.HasSuffix(asked, want) || !strings.HasPrefix(asked, "reset checkpoint") {
			t.Fatalf("asked %q, want %q", asked, want)
		}
		mustContain(t, stderr.String(), "gates:", "rewrites (in write order):")
		if e.rev() != r0 {
			t.Fatalf("%s: a run not confirmed wrote", args)
		}
		if files, _ := os.ReadDir(e.dir); len(files) != 0 {
			t.Fatalf("a run not confirmed left %v", files)
		}
	}
}

// A Milvus component that starts at the question or during the write is
// noticed: at the question the run is refused with nothing written; during
// the write it stops between transactions naming the session key, and
// "verify: ok" is never printed.
func TestSessionAppearingAtTheQuestionOrMidWrite(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	ctx := context.Background()
	session := e.meta("session/datacoord")
	start := func() {
		lease, err := e.cli.Grant(ctx, 300)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.cli.Put(ctx, session, `{"ServerID":9}`, clientv3.WithLease(lease.ID)); err != nil {
			t.Fatal(err)
		}
	}
	r0 := e.rev()
	var out, errb strings.Builder
	sh := framework.NewShell(shelltest.State{Cmds: Commands(e.inst)}, &out, &errb)
	sh.SetConfirm(func(context.Context, string) (bool, error) { start(); return true, nil })
	err := sh.Run(ctx, "reset checkpoint --target-wal kafka --run --backup-dir "+e.dir)
	if framework.ExitCode(err) != framework.ExitRefused || e.rev() != r0+1 || !strings.Contains(err.Error(), session) {
		t.Fatalf("session at the question: %v\n%s", err, out.String())
	}
	if m, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-*")); len(m) != 0 {
		t.Fatalf("a refused run left %v", m)
	}
	if _, err := e.cli.Delete(ctx, session); err != nil {
		t.Fatal(err)
	}
	e.withTune(func(o *apply.Options) {
		o.Concurrency = 1
		o.AfterTxn = func(n int) error {
			if n == 2 {
				start()
			}
			return nil
		}
	})
	stdout, errs, code := e.reset("--target-wal kafka --run --max-txn-ops 4")
	e.withTune(nil)
	if code != framework.ExitFailed || strings.Contains(stdout, "verify: ok") || !strings.Contains(stdout, "STOPPED: 4 of 18 keys written") ||
		!strings.Contains(errs, "a Milvus component is running: "+session+" (datacoord, lease ") || !strings.Contains(stdout, "  a Milvus component is running: "+session) {
		t.Fatalf("session mid-write: exit %d\n%s\n%s", code, stdout, errs)
	}
}
