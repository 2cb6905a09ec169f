package repair

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/tests/sampletest"
)

// stuckTask seeds broadcast task 7: an AlterWAL message to Kafka over two
// vchannels, PENDING, the first acked, with a field of a later Milvus.
func (e *env) stuckTask() (string, []string) {
	vs := []string{e.sample.VChannels[0], e.sample.VChannels[1]}
	v := sampletest.AlterWALTask(int32(models.BroadcastPending), commonpb.WALName_Kafka, map[string]string{"k": "v"}, vs, 1)
	v = append(v, (&wire.Builder{}).Varint(9, 42).Build()...)
	key := e.meta(models.BroadcastTaskKey(7))
	e.put(key, v)
	return key, vs
}

// reset: the task is PENDING with no ack; its message and the unknown field
// keep their bytes; only its key is written; restore puts it back.
func TestRepairBroadcastTaskReset(t *testing.T) {
	e := newEnv(t)
	key, _ := e.stuckTask()
	before := e.dump()
	out, errs, code := e.repair("repair wal-broadcast-task --id 7")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "put "+key, "before: Pending AlterWAL, acked by 1 of 2 vchannels", "after:  Pending AlterWAL, acked by 0 of 2 vchannels",
		"ok  no live component caching broadcast tasks", "not needed here: a repair moves no position")
	e.changed(before)

	out, errs, code = e.repair("repair wal-broadcast-task --broadcast_id 7 --run")
	if code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, key)
	after := e.dump()[key]
	m, err := wire.Parse([]byte(after))
	if err != nil {
		t.Fatal(err)
	}
	was, _ := wire.Parse([]byte(before[key]))
	if string(m.BytesOf(1)) != string(was.BytesOf(1)) || m.Varint(9) != 42 || m.Varint(2) != uint64(models.BroadcastPending) {
		t.Fatalf("reset task lost its message or unknown field: %x", after)
	}
	if acks := m.All(4); len(acks) != 2 || len(acks[0].Payload) != 0 || len(acks[1].Payload) != 0 {
		t.Fatalf("acked checkpoints after reset: %v", acks)
	}
	out, errs, code = e.repair("repair wal-broadcast-task --id 7")
	if code != 0 || !strings.Contains(out, "changes: none") {
		t.Fatalf("a reset task resets again: exit %d\n%s%s", code, out, errs)
	}
	e.restoreLast(before)
}

// remove of a task some vchannels have not acked is refused, naming them,
// until --force; then only its key is deleted.
func TestRepairBroadcastTaskRemove(t *testing.T) {
	e := newEnv(t)
	key, vs := e.stuckTask()
	before := e.dump()
	out, errs, code := e.repair("repair wal-broadcast-task --id 7 --mode remove --run")
	if code != framework.ExitRefused {
		t.Fatalf("remove of an unacked task: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  every vchannel acked the task", vs[1], "--mode reset")
	e.changed(before)
	out, errs, code = e.repair("repair wal-broadcast-task --id 7 --mode remove --force --run")
	if code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "delete "+key)
	e.changed(before, key)
	e.restoreLast(before)
}

// The sample's task 1 is a Tombstone whose message has no broadcast
// header: a reset is refused (exit 3) for the state, before its message is
// read, and names the way out.
func TestRepairBroadcastTaskResetOfATombstone(t *testing.T) {
	e := newEnv(t)
	before := e.dump()
	out, errs, code := e.repair("repair wal-broadcast-task --id 1 --run")
	if code != framework.ExitRefused {
		t.Fatalf("reset of a tombstone: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  the task is in flight", "it is Tombstone", "--mode remove")
	e.changed(before)
}

// The flags heron refuses before reading anything, and a task that is not there.
func TestRepairBroadcastTaskUsage(t *testing.T) {
	e := newEnv(t)
	for line, want := range map[string]string{
		"repair wal-broadcast-task --id 0":             "--id 0",
		"repair wal-broadcast-task --id 7 --mode drop": "--mode",
		"repair wal-broadcast-task --id 7 --force":     "--force goes with --mode remove",
		"repair wal-broadcast-task --id 8":             "no broadcast task " + e.meta(models.BroadcastTaskKey(8)),
	} {
		out, errs, code := e.repair(line)
		if code != framework.ExitUsage || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want usage naming %q\n%s%s", line, code, want, out, errs)
		}
	}
}

// A coordinator alive refuses (exit 3), naming it as a cache of broadcast
// tasks; a saved plan applied after the task changed is refused.
func TestRepairBroadcastTaskRefusals(t *testing.T) {
	e := newEnv(t)
	e.stuckTask()
	e.live("session/mixcoord", "mixcoord")
	before := e.dump()
	out, errs, code := e.repair("repair wal-broadcast-task --id 7 --run")
	if code != framework.ExitRefused {
		t.Fatalf("live mixcoord: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  no live component caching broadcast tasks", "session/mixcoord (mixcoord", "REFUSED  no live Milvus component")
	e.changed(before)

	e2 := newEnv(t)
	key, vs := e2.stuckTask()
	plan := filepath.Join(e2.dir, "plan.jsonl")
	if out, errs, code := e2.repair("repair wal-broadcast-task --id 7 --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	e2.put(key, sampletest.AlterWALTask(int32(models.BroadcastPending), commonpb.WALName_Kafka, nil, vs, 2))
	e2.applyRefused(plan, "REFUSED  the plan is what heron plans now")
}

// remove of a task whose message has no broadcast header (or an empty
// value): heron cannot tell its vchannels, so it cannot tell that every one
// acked it; refused until --force, as a reset of it is.
func TestRepairBroadcastTaskRemoveNoHeader(t *testing.T) {
	e := newEnv(t)
	key := e.meta(models.BroadcastTaskKey(7))
	msg := (&wire.Builder{}).Message(2, (&wire.Builder{}).String(1, "_t").String(2, "5").Build()).Build()
	for _, v := range [][]byte{(&wire.Builder{}).Message(1, msg).Varint(2, uint64(models.BroadcastPending)).Build(), {}} {
		e.put(key, v)
		before := e.dump()
		out, errs, code := e.repair("repair wal-broadcast-task --id 7 --mode remove --run")
		if code != framework.ExitRefused {
			t.Fatalf("remove of a task with no broadcast header (%x): exit %d\n%s%s", v, code, out, errs)
		}
		mustContain(t, out, "REFUSED  every vchannel acked the task", "no broadcast header")
		e.changed(before)
	}
	out, errs, code := e.repair("repair wal-broadcast-task --id 7 --mode remove --force --run")
	if code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, out, errs)
	}
}

// reset of a task that is no longer in flight (Done: every vchannel saw its
// message and Milvus applied it; Tombstone: kept for deduplication) would
// append its message again to every vchannel, a DDL applied twice:
// refused, nothing written.
func TestRepairBroadcastTaskResetDone(t *testing.T) {
	e := newEnv(t)
	key := e.meta(models.BroadcastTaskKey(7))
	vs := []string{e.sample.VChannels[0], e.sample.VChannels[1]}
	for _, s := range []models.BroadcastState{models.BroadcastDone, models.BroadcastTombstone} {
		e.put(key, sampletest.AlterWALTask(int32(s), commonpb.WALName_Kafka, nil, vs, 2))
		before := e.dump()
		out, errs, code := e.repair("repair wal-broadcast-task --id 7 --mode reset --run")
		if code != framework.ExitRefused {
			t.Fatalf("reset of a %s task: exit %d\n%s%s", s, code, out, errs)
		}
		mustContain(t, out, "REFUSED  the task is in flight", s.String(), "--mode remove")
		e.changed(before)
	}
}

// An acked checkpoint at time tick 0 is no ack: the broadcaster reads it
// as none when it loads the task (milvus #45787, fixAckInfoFromProto), and
// appends the message to that vchannel again; so a remove is refused.
func TestRepairBroadcastTaskRemoveZeroTimeTickAck(t *testing.T) {
	e := newEnv(t)
	key := e.meta(models.BroadcastTaskKey(7))
	vs := []string{e.sample.VChannels[0], e.sample.VChannels[1]}
	m, err := wire.Parse(sampletest.AlterWALTask(int32(models.BroadcastPending), commonpb.WALName_Kafka, nil, vs, 2))
	if err != nil {
		t.Fatal(err)
	}
	id := (&wire.Builder{}).String(1, "x").Build()
	m.SetAll(4, [][]byte{(&wire.Builder{}).Varint(3, 1).Build(), (&wire.Builder{}).Message(1, id).Build()})
	e.put(key, m.Bytes())
	before := e.dump()
	out, errs, code := e.repair("repair wal-broadcast-task --id 7 --mode remove --run")
	if code != framework.ExitRefused {
		t.Fatalf("remove of a task acked at time tick 0: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "1 of 2 vchannels acked", vs[1])
	e.changed(before)
}
