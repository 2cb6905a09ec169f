package repair

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

// ts is the sample's timestamp minutes after sample.Base.
func ts(minutes int) uint64 {
	return sample.TSO(sample.Base.Add(time.Duration(minutes)*time.Minute), 0)
}

// later is a MsgPosition field of a later Milvus (field 20, varint 7): a
// move must keep it.
var later = (&wire.Builder{}).Varint(20, 7).Build()

// seg seeds segment id of collection on channel, its start and dml
// positions (nil: none) encoded for the sample's WAL.
func (e *env) seg(id, collection int64, channel string, state commonpb.SegmentState, rows int64, start, dml []byte) string {
	key := e.meta(models.SegmentKey(collection, collection+1, id))
	e.put(key, sample.Segment{ID: id, Collection: collection, Partition: collection + 1, Channel: channel,
		Rows: rows, State: state, Start: start, DML: dml, Level: 2}.Encode())
	return key
}

// pos is a position of the sample's WAL on channel at minute m, offset n.
func (e *env) pos(channel string, n int64, m int) []byte {
	return sample.Position(channel, sample.ID(e.sample.WAL, n), ts(m), commonpb.WALName_Unknown)
}

// cpWith seeds v's channel-cp at offset n, minute m, with a later field.
func (e *env) cpWith(v string, n int64, m int) string {
	key := e.meta(models.ChannelCPKey(v))
	e.put(key, append(e.pos(v, n, m), later...))
	return key
}

// moved requires key to hold a position of channel at id and timestamp
// at, tagged with id's WAL, that kept the later field when keep.
func (e *env) moved(key, channel string, id msgid.ID, at uint64, keep bool) {
	e.t.Helper()
	v := []byte(e.dump()[key])
	p, err := models.DecodePosition(v)
	if err != nil {
		e.t.Fatal(err)
	}
	if p.GetChannelName() != channel || string(p.GetMsgID()) != string(id.Bytes()) || p.GetTimestamp() != at || p.GetWALName() != id.WAL() {
		e.t.Fatalf("%s: %v, want %s at %d (%s)", key, p, id.Human(), at, id.WAL())
	}
	m, _ := wire.Parse(v)
	if keep && m.Varint(20) != 7 {
		e.t.Fatalf("%s lost the later field: %x", key, v)
	}
}

// latest-cp: the latest position of the pchannel's Flushed, Growing and
// Flushing segments, never a Dropped one's, a dropped-channel marker or a
// position tagged with another WAL; the other bytes of the checkpoint stay.
func TestRepairCheckpointLatestCP(t *testing.T) {
	e := newEnv(t)
	v, p0 := e.sample.VChannels[0], e.sample.PChannels[0]
	key := e.cpWith(v, 40, 55)
	e.seg(1010, 100, v, commonpb.SegmentState_Flushed, 10, e.pos(v, 60, 60), e.pos(v, 70, 70))
	e.seg(1011, 100, v, commonpb.SegmentState_Dropped, 10, nil, e.pos(v, 90, 90))
	other := p0 + "_500v0"
	pulsar := sample.Position(other, sample.ID(commonpb.WALName_Pulsar, 95), ts(95), commonpb.WALName_Pulsar)
	e.seg(1012, 500, other, commonpb.SegmentState_Flushed, 10, nil, pulsar)
	e.seg(1013, 500, other, commonpb.SegmentState_Growing, 10, nil, sample.DroppedChannelCP(other))
	before := e.dump()
	out, errs, code := e.repair("repair checkpoint --vchannel " + v)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "to latest-cp: the dml_position of segment 1010 (Flushed", "put "+key, "before: kafka (untagged) 1040 at 2026-11-30T08:55:00.000Z",
		"after:  kafka 1070 at 2026-11-30T09:10:00.000Z", "ok  the checkpoint does not move backwards",
		"ok  no live component caching channel checkpoints", "left out 1 position(s) of segments of "+p0+" not in kafka and 1 without a message id")
	e.changed(before)

	out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set_to latest-cp --run")
	if code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, key)
	e.moved(key, v, sample.ID(commonpb.WALName_Kafka, 70), ts(70), true)
	out, errs, code = e.repair("repair checkpoint --vchannel " + v)
	if code != 0 || !strings.Contains(out, "changes: none") {
		t.Fatalf("a moved checkpoint moves again: exit %d\n%s%s", code, out, errs)
	}
	e.restoreLast(before)
}

// pchannel-cp: the consume checkpoint's id in bytes and its time tick; an
// absent channel-cp (movies, legacy layout) is created.
func TestRepairCheckpointPChannelCP(t *testing.T) {
	e := newEnv(t)
	v := e.sample.PChannels[1] + "_200v0"
	key := e.meta(models.ChannelCPKey(v))
	before := e.dump()
	out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --collection 200 --set-to pchannel-cp")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "(collection 200 movies) to pchannel-cp: the consume checkpoint of "+e.sample.PChannels[1], "create "+key, "after:  kafka 1051 at 2026-11-30T09:01:00.000Z")
	e.changed(before)
	if out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --run"); code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, key)
	e.moved(key, v, sample.ID(commonpb.WALName_Kafka, 51), ts(61), false)
	e.restoreLast(before)
}

// latest-msgid: the last record of the pchannel's Kafka topic, its time
// tick from the record's _tt header (base 36); a last record without one
// is refused, not guessed.
func TestRepairCheckpointLatestMsgID(t *testing.T) {
	e := newEnv(t)
	v, p0 := e.sample.VChannels[0], e.sample.PChannels[0]
	key := e.cpWith(v, 40, 55)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, p0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	produce := func(headers ...kgo.RecordHeader) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: p0, Partition: 0, Value: []byte("x"), Headers: headers}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	brokers := " --kafka-brokers " + strings.Join(c.ListenAddrs(), ",")
	out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to latest-msgid" + brokers)
	if code != framework.ExitUsage || !strings.Contains(errs, "kafka topic "+p0+" holds no message") {
		t.Fatalf("an empty topic: exit %d\n%s%s", code, out, errs)
	}
	for m := 78; m <= 80; m++ {
		produce(kgo.RecordHeader{Key: "_v", Value: []byte("1")}, kgo.RecordHeader{Key: "_tt", Value: []byte(strconv.FormatUint(ts(m), 36))})
	}
	before := e.dump()
	out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to latest-msgid" + brokers)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "the last message of kafka topic "+p0+" (offset 2)", "after:  kafka 2 at 2026-11-30T09:20:00.000Z")
	e.changed(before)
	if out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to latest-msgid --run" + brokers); code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, key)
	e.moved(key, v, msgid.OffsetID{Of: commonpb.WALName_Kafka, Offset: 2}, ts(80), true)
	e.restoreLast(before)

	produce(kgo.RecordHeader{Key: "_v", Value: []byte("1")})
	out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to latest-msgid --run" + brokers)
	if code == 0 || !strings.Contains(errs, "offset 3: no _tt property") || !strings.Contains(errs, "--set-to pchannel-cp") {
		t.Fatalf("a last message without a time tick: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)
}

// Unflushed segments of the vchannel that start before the new position are
// refused, named with their rows, until --force; a later one is not named.
func TestRepairCheckpointUnflushed(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	key := e.meta(models.ChannelCPKey(v))
	e.seg(1020, 100, v, commonpb.SegmentState_Growing, 77, e.pos(v, 58, 58), nil)
	e.seg(1021, 100, v, commonpb.SegmentState_Sealed, 5, e.pos(v, 65, 65), nil)
	before := e.dump()
	out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --run")
	if code != framework.ExitRefused {
		t.Fatalf("unflushed segment before the new position: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  no unflushed segment of the vchannel starts before the new position", "1 unflushed segment of "+v+" (77 rows)", "1020 (Growing, 77 rows)")
	if strings.Contains(out, "1021 (") {
		t.Fatalf("a segment that starts after the new position is named:\n%s", out)
	}
	e.changed(before)
	out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --force --run")
	if code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "overridden  no unflushed segment", "warning: --force: 1 unflushed segment of "+v+" (77 rows)")
	e.changed(before, key)
	e.restoreLast(before)
}

// A position older than the checkpoint is refused until --force.
func TestRepairCheckpointBackwards(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	key := e.cpWith(v, 65, 65)
	before := e.dump()
	out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --run")
	if code != framework.ExitRefused {
		t.Fatalf("backwards: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  the checkpoint does not move backwards", "would replay")
	e.changed(before)
	if out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --force --run"); code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, key)
	e.moved(key, v, sample.ID(commonpb.WALName_Kafka, 50), ts(60), true)
}

// The flags and vchannels heron refuses, before anything is written.
func TestRepairCheckpointUsage(t *testing.T) {
	e := newEnv(t)
	books, p2 := e.sample.VChannels, e.sample.PChannels[2]
	e.put(e.meta(models.ChannelCPKey(books[1])), sample.DroppedChannelCP(books[1]))
	logs := p2 + "_300v0"
	cases := []struct{ line, want string }{
		{"--vchannel nope", "want a vchannel name"},
		{"--vchannel " + books[0] + " --set-to newest", "--set-to"},
		{"--vchannel " + books[0] + " --kafka-brokers k:9092", "--kafka-brokers goes with --set-to latest-msgid"},
		{"--vchannel " + books[0] + " --set-to latest-msgid", "needs --kafka-brokers"},
		{"--vchannel " + books[0] + " --set-to latest-msgid --kafka-brokers k:x", "--kafka-brokers \"k:x\""},
		{"--vchannel " + books[0] + " --set-to latest-msgid --kafka-brokers k:99999", "--kafka-brokers \"k:99999\""},
		{"--vchannel " + p2 + "_999v0", "not a vchannel of a live collection"},
		{"--vchannel " + books[1], "is dropped"},
		{"--vchannel " + books[0] + " --collection 200", "not a vchannel of collection 200"},
		{"--vchannel " + books[0] + " --collection 12345", "--collection 12345: no such collection, or it is dropped"},
		{"--vchannel " + books[0] + " --collection 400", "--collection 400: no such collection, or it is dropped"},
		{"--vchannel " + logs, "no Flushed, Growing or Flushing segment of pchannel " + p2},
	}
	before := e.dump()
	check := func(line, want string) {
		t.Helper()
		out, errs, code := e.repair("repair checkpoint " + line + " --run")
		if code != framework.ExitUsage || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want usage naming %q\n%s%s", line, code, want, out, errs)
		}
	}
	for _, c := range cases {
		check(c.line, c.want)
	}
	e.changed(before)
	if _, err := e.cli.Delete(context.Background(), e.meta(models.ConsumeCheckpointKey(p2))); err != nil {
		t.Fatal(err)
	}
	check("--vchannel "+logs+" --set-to pchannel-cp", "pchannel "+p2+" has no consume checkpoint")

	pe := newEnvWAL(t, commonpb.WALName_Pulsar)
	out, errs, code := pe.repair("repair checkpoint --vchannel " + pe.sample.VChannels[0] + " --set-to latest-msgid")
	if code != framework.ExitUsage || !strings.Contains(errs, "reads Kafka only and the instance's WAL is pulsar") || !strings.Contains(errs, "--set-to pchannel-cp") {
		t.Errorf("latest-msgid on pulsar: exit %d\n%s%s", code, out, errs)
	}
}

// A saved plan applied after the checkpoint changed is refused.
func TestRepairCheckpointStalePlan(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	plan := filepath.Join(e.dir, "plan.jsonl")
	if out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	e.cpWith(v, 42, 56)
	e.applyRefused(plan, "REFUSED  the plan is what heron plans now")
}

// latest-cp never takes a position at timestamp MaxUint64, with a message
// id or not: Milvus's dropped-channel sentinel is the timestamp alone
// (pkg/v2@v2.6.23 util/funcutil/checkpoint.go IsDroppedChannelCheckpoint;
// birdwatcher #527); and a channel checkpoint holding it is dropped, never
// moved.
func TestRepairCheckpointSentinelWithMessageID(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	e.cpWith(v, 40, 55)
	e.seg(1010, 100, v, commonpb.SegmentState_Flushed, 10, nil, e.pos(v, 70, 70))
	e.seg(1011, 100, v, commonpb.SegmentState_Flushed, 10, nil, sample.Position(v, sample.ID(e.sample.WAL, 99), math.MaxUint64, commonpb.WALName_Kafka))
	out, errs, code := e.repair("repair checkpoint --vchannel " + v)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "the dml_position of segment 1010", "after:  kafka 1070")

	e.put(e.meta(models.ChannelCPKey(v)), sample.Position(v, sample.ID(e.sample.WAL, 99), math.MaxUint64, commonpb.WALName_Kafka))
	before := e.dump()
	out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --force --run")
	if code != framework.ExitUsage || !strings.Contains(errs, "is dropped") {
		t.Fatalf("a sentinel with a message id is moved: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)
}

// A consume checkpoint at time tick MaxUint64 is no position to move to:
// written, the channel checkpoint would be datacoord's dropped-channel
// sentinel, and the vchannel dropped for Milvus.
func TestRepairCheckpointSentinelTarget(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	e.put(e.meta(models.ConsumeCheckpointKey(models.PChannelOf(v))), sample.Checkpoint{ID: sample.ID(e.sample.WAL, 60), TimeTick: math.MaxUint64}.Encode())
	before := e.dump()
	out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --force --run")
	if code != framework.ExitUsage || !strings.Contains(errs, "MaxUint64") {
		t.Fatalf("moved to the sentinel: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)
}

// A segment of the vchannel's collection that does not decode may be an
// unflushed segment of the vchannel: the gate cannot say that none starts
// before the new position; refused, naming its key, until --force.
func TestRepairCheckpointSegmentDoesNotDecode(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	bad := e.meta(models.SegmentKey(100, 101, 1099))
	e.put(bad, []byte{0x0a, 0x05, 'a'})
	before := e.dump()
	out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --run")
	if code != framework.ExitRefused {
		t.Fatalf("a segment of the collection that does not decode: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  no unflushed segment of the vchannel starts before the new position", bad)
	e.changed(before)
	if out, errs, code = e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --force --run"); code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before, e.meta(models.ChannelCPKey(v)))
}

// Milvus reads every value under the segment prefix as a segment, whatever
// its key: one that does not decode under a key naming no collection, or
// whose channel field (its top level parses, a position in it does not)
// names V, may be V's and refuses as one of V's collection does; one of
// another collection is not V's and is only counted in a warning.
func TestRepairCheckpointBrokenSegmentElsewhere(t *testing.T) {
	truncated := []byte{0x0a, 0x05, 'a'}
	namingV := func(v string) []byte {
		b := protowire.AppendTag(nil, 4, protowire.BytesType) // insert_channel
		b = protowire.AppendString(b, v)
		b = protowire.AppendTag(b, 9, protowire.BytesType) // start_position
		return protowire.AppendBytes(b, truncated)
	}
	for _, tc := range []struct {
		name, rel string
		value     func(v string) []byte
		refused   bool
	}{
		{"a key naming no collection", models.SegmentPrefix + "not-a-segment", func(string) []byte { return truncated }, true},
		{"another collection's segment", models.SegmentKey(900, 901, 9099), func(string) []byte { return truncated }, false},
		{"another collection's key, the value naming V", models.SegmentKey(900, 901, 9098), namingV, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			v := e.sample.VChannels[0]
			bad := e.meta(tc.rel)
			e.put(bad, tc.value(v))
			before := e.dump()
			out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --run")
			if tc.refused {
				if code != framework.ExitRefused {
					t.Fatalf("exit %d, want refused\n%s%s", code, out, errs)
				}
				mustContain(t, out, "REFUSED  no unflushed segment of the vchannel starts before the new position", bad, "1 segment that may be "+v+"'s (", "does not decode: heron cannot tell")
				e.changed(before)
				return
			}
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			mustContain(t, out+errs, "1 segment under "+models.SegmentPrefix+" does not decode")
			e.changed(before, e.meta(models.ChannelCPKey(v)))
		})
	}
}

// A vchannel whose name holds a space: the command line the plan and the
// backup record (and a STOPPED run's "to complete it") is quoted, so that
// it parses back to the same vchannel; of both repairs that take one.
func TestRepairCheckpointQuotedLine(t *testing.T) {
	e := newEnv(t)
	p, v := "by dev", "by dev_700v0"
	e.put(e.meta(models.CollectionInfoKey(1, 700)), sample.Collection{ID: 700, DB: 1, Name: "odd", CreateTime: ts(0), VChannels: []string{v},
		PChannels: []string{p}, Starts: [][]byte{e.pos(p, 1, 0)}, State: 0}.Encode())
	e.put(e.meta(models.ConsumeCheckpointKey(p)), sample.Checkpoint{ID: sample.ID(e.sample.WAL, 60), TimeTick: ts(60)}.Encode())
	line := `repair checkpoint --vchannel "by dev_700v0" --set-to pchannel-cp`
	out, errs, code := e.repair(line + " --format json")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, `"command_line": "`+strings.ReplaceAll(line, `"`, `\"`)+`"`)
	line = `repair vchannel-registration --vchannel "by dev_700v0"`
	out, errs, code = e.repair(line + " --format json")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, `"command_line": "`+strings.ReplaceAll(line, `"`, `\"`)+`"`)
}
