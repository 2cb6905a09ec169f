package reset

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// alterWALState encodes a streamingpb.AlterWALState (field numbers of
// pkg/v2@v2.6.23 proto/streaming.proto) as WALCheckpoint field 6.
func alterWALState(target commonpb.WALName, stage models.AlterWALStage) []byte {
	entry := (&wire.Builder{}).String(1, "mq.type").String(2, msgid.Name(target)).Build()
	st := (&wire.Builder{}).Varint(1, uint64(target)).Varint(2, 456789015229251584).Message(3, entry).Varint(4, uint64(stage)).Build()
	return (&wire.Builder{}).Message(6, st).Build()
}

// refusedUnchanged runs args, which must be refused (exit 3) without a
// write or a backup file, and returns stdout and stderr.
func refusedUnchanged(t *testing.T, e *env, args string) string {
	t.Helper()
	before, r0 := e.dump(), e.rev()
	out, errs, code := e.reset(args)
	if code != framework.ExitRefused || e.rev() != r0 || len(diffKeys(before, e.dump())) != 0 {
		t.Fatalf("%s: exit %d, revision %d -> %d\n%s\n%s", args, code, r0, e.rev(), out, errs)
	}
	if files, _ := os.ReadDir(e.dir); len(files) != 0 {
		t.Fatalf("%s: refused run left %v", args, files)
	}
	return out + errs
}

func runOK(t *testing.T, e *env, args string) *RunResult {
	t.Helper()
	out, errs, code := e.reset(args + " --run --format json")
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s\n%s", args, code, out, errs)
	}
	r := runJSON(t, out)
	if r.Verify == nil || !r.Verify.OK {
		t.Fatalf("%s: verify %+v", args, r.Verify)
	}
	return r
}

func kindCount(s *Summary, kind string) *KindCount {
	for i := range s.Rewrites {
		if s.Rewrites[i].Kind == kind {
			return &s.Rewrites[i]
		}
	}
	return nil
}

// Issue 8 item 1: a scoped run that would leave another pchannel on another
// WAL is refused; one that completes the instance goes through.
func TestOneWALGate(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := seedEnv(t, cli, ep, "mixed", commonpb.WALName_Pulsar)
	for _, args := range []string{"--target-wal kafka --pchannel " + e.pc(0), "--target-wal kafka --pchannel " + e.pc(0) + " --run",
		"--target-wal kafka --pchannel " + e.pc(0) + " --pchannel " + e.pc(1) + " --run --allow-growing"} {
		msg := refusedUnchanged(t, e, args)
		mustContain(t, msg, "one WAL for the whole instance", e.pc(2)+" (pulsar:", "run without --pchannel", "refused")
	}
	// The whole instance is one run: it passes.
	runOK(t, e, "--target-wal kafka")

	e = seedEnv(t, cli, ep, "completes", commonpb.WALName_Pulsar)
	e.moveOutside("kafka", e.pc(1), e.pc(2))
	dry, _, _ := e.reset("--target-wal kafka --pchannel " + e.pc(0) + " --format json")
	s := planJSON(t, dry)
	if s.Refused {
		t.Fatalf("a scoped run that completes the instance is refused: %+v", s.Gates)
	}
	res := runOK(t, e, "--target-wal kafka --pchannel "+e.pc(0))
	if got := e.dump()[e.inst.Layout.Root(models.MQTypeConfigKey)]; got != "kafka" {
		t.Fatalf("scoped run: mq.type override %q, want created as kafka", got)
	}
	// Afterwards every pchannel is on kafka: a whole-instance plan finds nothing split.
	if len(res.Plan.SplitPChannels) != 0 {
		t.Fatalf("split %v", res.Plan.SplitPChannels)
	}

	// An out-of-scope pchannel on the target but with an online switch recorded is not done.
	e = seedEnv(t, cli, ep, "outside-alter", commonpb.WALName_Pulsar)
	e.moveOutside("kafka", e.pc(1), e.pc(2))
	cpKey := e.meta(models.ConsumeCheckpointKey(e.pc(2)))
	e.put(cpKey, append([]byte(e.dump()[cpKey]), alterWALState(commonpb.WALName_RocksMQ, models.AlterWALStageFlushing)...))
	msg := refusedUnchanged(t, e, "--target-wal kafka --pchannel "+e.pc(0)+" --run")
	mustContain(t, msg, e.pc(2)+" (online switch to rocksmq, stage FLUSHING)")
}

// Issue 8 item 2: alter_wal_state is removed in every stage, listed as its
// own kind, warned about, and a checkpoint that keeps it is not done.
func TestAlterWALStateCleared(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, stage := range []models.AlterWALStage{models.AlterWALStageNone, models.AlterWALStageFlushing, models.AlterWALStageAdvanceCheckpoint} {
		t.Run(stage.String(), func(t *testing.T) {
			e := seedEnv(t, cli, ep, "alter-"+stage.String(), commonpb.WALName_Pulsar)
			key := e.meta(models.ConsumeCheckpointKey(e.pc(0)))
			plain := []byte(e.dump()[key])
			e.put(key, append(append([]byte{}, plain...), alterWALState(commonpb.WALName_Kafka, stage)...))
			res := runOK(t, e, "--target-wal rocksmq")
			k := kindCount(res.Plan, KindAlterWALState)
			want := "online switch to kafka, stage " + stage.String()
			if k == nil || k.Keys != 1 || k.Examples[0].Key != key || k.Examples[0].Before != want || k.Examples[0].After != "cleared" {
				t.Fatalf("alter-wal-state kind %+v", k)
			}
			mustContain(t, strings.Join(res.Plan.Warnings, "\n"), e.pc(0)+" ("+want+")", "alter_wal_state")
			// Every other byte is the reset of the checkpoint without it.
			wantValue, _ := models.RewriteWALCheckpoint(plain, msgid.OffsetID{Of: commonpb.WALName_RocksMQ})
			if got := e.dump()[key]; got != string(wantValue) {
				t.Fatalf("checkpoint %x, want %x", got, wantValue)
			}
		})
	}

	// At the target already, the field alone is still work: the plan lists
	// it, verify fails on it, and a (second) run finishes it.
	e := seedEnv(t, cli, ep, "alter-at-target", commonpb.WALName_Pulsar)
	runOK(t, e, "--target-wal kafka")
	key := e.meta(models.ConsumeCheckpointKey(e.pc(1)))
	done := []byte(e.dump()[key])
	e.put(key, append(append([]byte{}, done...), alterWALState(commonpb.WALName_Pulsar, models.AlterWALStageAdvanceCheckpoint)...))
	// Verify plans again: the checkpoint that keeps alter_wal_state is work left.
	again := dryPlan(t, e.inst, &Params{TargetWAL: "kafka"})
	if k := kindCount(again, KindAlterWALState); again.TotalKeys != 1 || k == nil || k.Examples[0].Key != key {
		t.Fatalf("planning again passes a checkpoint that keeps alter_wal_state: %+v", again.Rewrites)
	}
	res := runOK(t, e, "--target-wal kafka")
	if res.Plan.TotalKeys != 1 || kindCount(res.Plan, KindAlterWALState) == nil || kindCount(res.Plan, KindConsumeCP) != nil {
		t.Fatalf("second run plan %+v", res.Plan.Rewrites)
	}
	if e.dump()[key] != string(done) {
		t.Fatal("alter_wal_state not removed byte for byte")
	}
}

// TestGoldenAlterWALStateReset: the reset of Milvus's own checkpoint with
// alter_wal_state (tests/golden/testdata, marshaled by Milvus's streamingpb)
// is Milvus's checkpoint without it, with the target id.
func TestGoldenAlterWALStateReset(t *testing.T) {
	raw, err := os.ReadFile("../../tests/golden/testdata/protos.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []struct{ Type, Name, Hex string }
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	g := map[string][]byte{}
	for _, p := range all {
		if p.Type == "streamingpb.WALCheckpoint" {
			g[p.Name], _ = hex.DecodeString(p.Hex)
		}
	}
	p, _ := NewPlanner("kafka", nil, Context{})
	k := models.Classify(models.ConsumeCheckpointKey("by-dev-rootcoord-dml_0"))
	for name, want := range map[string]string{
		"pulsar_alter_wal_state_advance_checkpoint_kafka": "kafka_offset_0",
		"pulsar_alter_wal_state_flushing_kafka":           "kafka_offset_0",
		"pulsar_alter_wal_state_none_woodpecker":          "kafka_offset_0",
		"pulsar_all_fields":                               "",
	} {
		if len(g[name]) == 0 {
			t.Fatalf("no golden %s", name)
		}
		d, err := p.Decide(k, g[name])
		if err != nil || d.Action != Rewrite || d.AlterWAL == nil {
			t.Fatalf("%s: %+v %v", name, d, err)
		}
		wantBytes := g[want]
		if want == "" {
			wantBytes, _ = models.RewriteWALCheckpoint(g["pulsar_all_fields_without_alter_wal_state"], p.Target)
		}
		if !bytes.Equal(d.Value, wantBytes) {
			t.Fatalf("%s: reset gives %x, want %x", name, d.Value, wantBytes)
		}
	}
	// Milvus's own earliest ids are at the target: kept.
	for name, target := range map[string]string{"kafka_offset_beginning": "kafka", "rocksmq_earliest_negative": "rocksmq"} {
		p, _ := NewPlanner(target, nil, Context{})
		if d, err := p.Decide(k, g[name]); err != nil || d.Action != Keep || d.Reason != KeepAtTarget {
			t.Fatalf("%s to %s: %+v %v", name, target, d, err)
		}
	}
}

// Issue 8 item 3: every spelling Milvus reads as mq.type is rewritten; with
// none, {root}/config/mqtype is created and restore deletes it.
func TestMQTypeConfigSpellings(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	spellings := []string{"config/mqtype", "config/mq.type", "config/MQ_TYPE", "config/mq/type", "config/Mq.Type"}
	for _, k := range spellings {
		e.put(e.inst.Layout.Root(k), []byte("pulsar"))
	}
	other := e.inst.Layout.Root("config/mq.typex")
	e.put(other, []byte("pulsar"))
	res := runOK(t, e, "--target-wal kafka")
	d := e.dump()
	for _, k := range spellings {
		if d[e.inst.Layout.Root(k)] != "kafka" {
			t.Fatalf("%s = %q", k, d[e.inst.Layout.Root(k)])
		}
	}
	if d[other] != "pulsar" {
		t.Fatalf("%s is not mq.type but was rewritten", other)
	}
	if k := kindCount(res.Plan, KindMQType); k == nil || k.Keys != int64(len(spellings)) {
		t.Fatalf("mq.type kind %+v", k)
	}
	// Verify checks every spelling.
	e.put(e.inst.Layout.Root("config/MQ_TYPE"), []byte("pulsar"))
	if again := dryPlan(t, e.inst, &Params{TargetWAL: "kafka"}); again.TotalKeys != 1 || kindCount(again, KindMQType) == nil {
		t.Fatalf("planning again passes a spelling left on pulsar: %+v", again.Rewrites)
	}
}

func TestMQTypeCreatedAndRestoreDeletesIt(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	original := e.dump()
	key := e.inst.Layout.Root(models.MQTypeConfigKey)
	res := runOK(t, e, "--target-wal woodpecker")
	if got := e.dump()[key]; got != "woodpecker" {
		t.Fatalf("%s = %q, want created", key, got)
	}
	k := kindCount(res.Plan, KindMQType)
	if k == nil || k.Keys != 1 || k.Examples[0].Before != "absent" {
		t.Fatalf("mq.type kind %+v", k)
	}
	b, err := os.ReadFile(res.Applied.Backup)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(b), `"key":"`+key+`"`)
	out, errs, _, err := shelltest.Run(t, restore.Commands(e.inst), "restore --backup-dir "+e.dir+" --file "+res.Applied.Backup+" --run")
	if err != nil {
		t.Fatalf("restore: %v\n%s\n%s", err, out, errs)
	}
	if _, ok := e.dump()[key]; ok {
		t.Fatal("restore left the created mq.type override")
	}
	if d := diffKeys(original, e.dump()); len(d) != 0 {
		t.Fatalf("after restore: %v", d)
	}
}

// Issue 8 item 4: Milvus's negative earliest ids (kafka -2, rocksmq -1) are
// read in the split state and in descriptions, kept at the target, never written.
func TestNegativeIDs(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, c := range []struct {
		wal commonpb.WALName
		id  int64
	}{{commonpb.WALName_Kafka, msgid.KafkaOffsetBeginning}, {commonpb.WALName_RocksMQ, msgid.RocksMQEarliestID}} {
		name := msgid.Name(c.wal)
		t.Run(name, func(t *testing.T) {
			e := seedEnv(t, cli, ep, "neg-"+name, c.wal)
			neg := msgid.OffsetID{Of: c.wal, Offset: c.id}
			cpKey := e.meta(models.ConsumeCheckpointKey(e.pc(0)))
			e.put(cpKey, sample.Checkpoint{ID: neg, TimeTick: 9, RecoveryMagic: 1}.Encode())
			v := e.pc(0) + "_100v0"
			segKey := e.meta(models.SegmentKey(100, 101, 1001))
			e.put(segKey, sample.Segment{ID: 1001, Collection: 100, Partition: 101, Channel: v, Rows: 5, State: commonpb.SegmentState_Flushed,
				Start: sample.Position(v, neg, 1, c.wal), DML: sample.Position(v, neg, 2, c.wal)}.Encode())
			ccKey := e.meta(models.ChannelCPKey(v))
			e.put(ccKey, sample.Position(v, neg, 3, 0)) // untagged: the checkpoint's WAL
			// Another WAL as target: the negative ids are described and moved to 0.
			dry, _, _ := e.reset("--target-wal pulsar --format json")
			s := planJSON(t, dry)
			for _, p := range s.SplitState {
				for b := range p.Positions {
					if strings.HasPrefix(b, "undecodable") {
						t.Fatalf("negative id read as %s: %+v", b, p)
					}
				}
			}
			if k := kindCount(s, KindConsumeCP); k == nil || k.Examples[0].Before != fmt.Sprintf("%s %d", name, c.id) {
				t.Fatalf("consume checkpoint examples %+v", k)
			}
			// The same WAL as target: every negative earliest id is kept.
			before := e.dump()
			res := runOK(t, e, "--target-wal "+name)
			after := e.dump()
			for _, k := range []string{cpKey, segKey} {
				if after[k] != before[k] {
					t.Fatalf("%s at %s's earliest rewritten", k, name)
				}
			}
			found := false
			for _, k := range res.Plan.Kept {
				found = found || (k.Kind == KindConsumeCP && k.Reason == KeepAtTarget)
			}
			if !found {
				t.Fatalf("kept %+v", res.Plan.Kept)
			}
			// No negative id is ever written.
			for k, v := range after {
				if before[k] == v {
					continue
				}
				if bytes.Contains([]byte(v), neg.Bytes()) {
					t.Fatalf("%s written with a negative id", k)
				}
			}
		})
	}
}

// Issue 8 item 6 and issue 9 items 4 and 10: what the reset does not
// rewrite, or writes with care, is said.
func TestWarnings(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Kafka)
	e.put(e.meta(models.ReplicatingPChannel+"standby-"+e.pc(0)), []byte("x"))
	e.put(e.meta(models.ReplicateConfiguration), []byte("x"))
	e.put(e.meta(models.WALPrefix+e.pc(1)+"/transform-log"), []byte("x"))
	cp2 := e.meta(models.ConsumeCheckpointKey(e.pc(2)))
	e.put(e.meta(models.ConsumeCheckpointKey(e.pc(0))), sample.Checkpoint{ID: sample.ID(commonpb.WALName_Kafka, 5), TimeTick: 3, Extra: sample.LaterCheckpointField}.Encode())
	e.put(cp2, nil)
	emptyCC := e.meta(models.ChannelCPKey(e.pc(1) + "_100v1"))
	e.put(emptyCC, nil)
	dry, _, code := e.reset("--target-wal kafka --format json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, dry)
	}
	w := strings.Join(planJSON(t, dry).Warnings, "\n")
	mustContain(t, w, "replication source", e.meta(models.ReplicatingPChannel+"standby-"+e.pc(0)), e.meta(models.ReplicateConfiguration),
		"set replication up again",
		"heron does not know", e.meta(models.WALPrefix+e.pc(1)+"/transform-log"),
		e.meta(models.ConsumeCheckpointKey(e.pc(0)))+" (fields 20)",
		"empty values rewritten", cp2, emptyCC)
	_, errs, _ := e.reset("--target-wal kafka --run --format json")
	mustContain(t, errs, "warning: this instance is a replication source")
	e.put(cp2, nil)
	e.put(emptyCC, nil)
	res := runOK(t, e, "--target-wal kafka")
	for _, k := range []string{cp2, emptyCC} {
		if len(e.dump()[k]) == 0 {
			t.Fatalf("%s still empty", k)
		}
	}
	mustContain(t, strings.Join(res.Plan.Warnings, "\n"), "replication source")
	// The replicate_config of a consume checkpoint (the sample's dml_2)
	// names it too; and --target-wal the WAL in use is said.
	e = newEnv(t, commonpb.WALName_Kafka)
	dry, _, _ = e.reset("--target-wal kafka --format json")
	mustContain(t, strings.Join(planJSON(t, dry).Warnings, "\n"), cp2+" (replicate_config)", "every position in scope already names kafka")
	dry, _, _ = e.reset("--target-wal pulsar --format json")
	if strings.Contains(dry, "already names") {
		t.Fatal("a move to another WAL says it is the WAL in use")
	}
}

// Issue 9 item 4, issue 24 case 6: a value above etcd's request limit
// refuses the plan before anything is written (the gate names the key; not
// seeded: the test etcd refuses it too), unless --max-request-bytes says
// the server allows it.
func TestLargeValueRefused(t *testing.T) {
	p, _ := NewPlanner("kafka", nil, Context{})
	big := sample.Segment{ID: 1, Collection: 1, Partition: 2, Channel: "by-dev-rootcoord-dml_0_1v0", State: commonpb.SegmentState_Flushed,
		Start: sample.Position("c", sample.ID(commonpb.WALName_Pulsar, 3), 9, 0), Extra: (&wire.Builder{}).Bytes(99, make([]byte, maxValueBytes)).Build()}.Encode()
	k := models.Classify(models.SegmentKey(1, 2, 1))
	d, err := p.Decide(k, big)
	if err != nil || d.Action != Rewrite {
		t.Fatalf("%+v %v", d, err)
	}
	for _, c := range []struct {
		limit      int
		ok, listed bool
	}{{0, false, true}, {4 << 20, true, false}} {
		pl := &Plan{planner: p, params: Params{WriteFlags: framework.WriteFlags{MaxRequestBytes: c.limit}}}
		pl.TargetWAL = "kafka"
		a := newAccumulator(p)
		a.limit.Limit = c.limit
		a.add("by-dev/meta/"+k.Rel, k, big, d)
		pl.acc = a
		gs, err := pl.scanGates(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pl.inst = &instance.Instance{}
		pl.view(gs)
		var g *Gate
		for i := range pl.Gates {
			if pl.Gates[i].Name == apply.RequestLimitName {
				g = &pl.Gates[i]
			}
		}
		if g == nil || g.OK != c.ok || pl.Refused == c.ok || (len(g.Keys) > 0) != c.listed {
			t.Fatalf("limit %d: gate %+v, refused %v", c.limit, g, pl.Refused)
		}
		if c.ok {
			mustContain(t, g.Detail, "--max-request-bytes 4194304", "etcd must run with --max-request-bytes 4194304 or more")
		} else {
			mustContain(t, g.Keys[0], "by-dev/meta/"+k.Rel)
			mustContain(t, g.Fix[0].Text, "--max-request-bytes")
		}
	}
}

// help reset checkpoint documents the gates' flags and gives an example.
func TestHelpResetCheckpoint(t *testing.T) {
	out, _, code, _ := shelltest.Run(t, Commands(nil), "help reset checkpoint")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// Piped help wraps at 120 columns: compare with the wrapping undone.
	mustContain(t, strings.Join(strings.Fields(out), " "), "alter_wal_state", "mq.type", "--allow-non-empty-target", "woodpecker's metadata holds logs", "--wp-meta-prefix", "every other pchannel is already on the target",
		"Example:", "reset checkpoint --target-wal kafka --run")
}
