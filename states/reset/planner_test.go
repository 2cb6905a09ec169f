package reset

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/tests/sampletest"
)

// The planner is pure: these tests run it on the sample's values without etcd.

func decideAll(t *testing.T, p *Planner, in *sample.Instance) map[string]Decision {
	t.Helper()
	out := map[string]Decision{}
	for _, key := range in.Keys() {
		rel, ok := in.Layout.Rel(key)
		if !ok {
			continue
		}
		d, err := p.Decide(models.Classify(rel), in.KVs[key])
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		out[rel] = d
	}
	return out
}

func TestPlannerOnSample(t *testing.T) {
	in := sample.Build(models.NewLayout("by-dev", "meta"), commonpb.WALName_Pulsar)
	p, err := NewPlanner("kafka", nil, Context{})
	if err != nil {
		t.Fatal(err)
	}
	ds := decideAll(t, p, in)
	want := map[string]Action{
		models.ConsumeCheckpointKey(in.PChannels[0]):             Rewrite,
		models.ChannelCPKey(in.PChannels[0] + "_100v0"):          Rewrite,
		models.ChannelCPKey(in.PChannels[0] + "_400v0"):          Keep, // dropped marker
		models.CollectionInfoKey(1, 400):                         Keep, // tombstone
		models.CollectionInfoKey(1, 100):                         Rewrite,
		models.LegacyCollectionKey(200):                          Rewrite,
		models.SegmentKey(100, 101, 1003):                        Rewrite, // Dropped segments too
		models.QueryTargetKey(999):                               Delete,  // whole instance: orphans go
		models.ChannelRemovalPrefix + in.PChannels[0] + "_100v0": Keep,
		models.PChannelPrefix + in.PChannels[0]:                  Keep,
		models.SessionIDKey:                                      Keep,
		"datacoord-meta/statslog/100/101/1001/100/1":             Keep,
	}
	for rel, a := range want {
		if ds[rel].Action != a {
			t.Errorf("%s: action %d, want %d", rel, ds[rel].Action, a)
		}
	}
	if ds[models.ChannelCPKey(in.PChannels[0]+"_400v0")].Reason != KeepDropped || ds[models.CollectionInfoKey(1, 400)].Reason != KeepTombstone {
		t.Fatal("keep reasons")
	}
	d := ds[models.SegmentKey(100, 101, 1001)]
	k := models.Classify(models.SegmentKey(100, 101, 1001))
	if before, after := p.Describe(k, in.KVs[in.Layout.Meta(k.Rel)], d); d.Positions != 2 || before == "" || after != "kafka 0" {
		t.Fatalf("segment decision %+v", d)
	}
	// Deciding the rewritten values again plans nothing: the second run.
	for _, key := range in.Keys() {
		rel, _ := in.Layout.Rel(key)
		if dd := ds[rel]; dd.Action == Rewrite {
			again, err := p.Decide(models.Classify(rel), dd.Value)
			if err != nil || again.Action != Keep || again.Reason != KeepAtTarget {
				t.Fatalf("%s decided again: %+v %v", rel, again, err)
			}
		}
	}
}

func TestPlannerScope(t *testing.T) {
	in := sample.Build(models.NewLayout("by-dev", "meta"), commonpb.WALName_WoodPecker)
	p, _ := NewPlanner("pulsar", []string{in.PChannels[0]}, Context{Collections: map[int64]bool{100: true}})
	ds := decideAll(t, p, in)
	for rel, a := range map[string]Action{
		models.ConsumeCheckpointKey(in.PChannels[0]):    Rewrite,
		models.ConsumeCheckpointKey(in.PChannels[1]):    Keep,
		models.ChannelCPKey(in.PChannels[1] + "_100v1"): Keep,
		models.SegmentKey(100, 101, 1002):               Keep,
		models.SegmentKey(100, 101, 1001):               Rewrite,
		models.CollectionInfoKey(1, 100):                Rewrite,
		models.CollectionInfoKey(1, 300):                Keep,
		models.QueryTargetKey(100):                      Delete,
		models.QueryTargetKey(200):                      Keep,
		models.QueryTargetKey(999):                      Keep, // orphans stay on scoped runs
	} {
		if ds[rel].Action != a {
			t.Errorf("%s: action %d, want %d", rel, ds[rel].Action, a)
		}
	}
	// Only the in-scope pair of a collection sharded over two pchannels changes.
	c, _ := models.DecodeCollectionInfo(ds[models.CollectionInfoKey(1, 100)].Value)
	old, _ := models.DecodeCollectionInfo(in.KVs[in.Layout.Meta(models.CollectionInfoKey(1, 100))])
	if ds[models.CollectionInfoKey(1, 100)].Positions != 1 || !bytes.Equal(c.StartPositions[0].Data, msgid.PulsarEarliest.Bytes()) ||
		!bytes.Equal(c.StartPositions[1].Data, old.StartPositions[1].Data) {
		t.Fatalf("start positions %x", c.StartPositions)
	}
}

func TestEarliestBytesAreMilvus(t *testing.T) {
	want := map[string][2]string{
		"kafka":   {"0000000000000000", "0"},
		"rocksmq": {"0000000000000000", "0"},
		"pulsar":  {"08ffffffffffffffffff0110ffffffffffffffffff0118ffffffffffffffffff0120ffffffffffffffffff013000", "CP///////////wEQ////////////ARj///////////8BIP///////////wEwAA=="},
		// {0,0} with explicit zero fields: Milvus's readers take it as its own
		// empty form (tests/golden/testdata/wp_earliest.json), 3.x's migration
		// does not refuse it.
		"woodpecker": {"08001000", "CAAQAA=="},
	}
	for name, w := range want {
		p, _ := NewPlanner(name, nil, Context{})
		if hex.EncodeToString(p.Target.Bytes()) != w[0] || p.Target.Text() != w[1] {
			t.Errorf("%s: %x %q", name, p.Target.Bytes(), p.Target.Text())
		}
	}
}

func TestPlannerCorruptValues(t *testing.T) {
	p, _ := NewPlanner("kafka", nil, Context{})
	bad := []byte{0xff, 0xff, 0xff}
	for _, rel := range []string{
		models.SegmentKey(1, 2, 3), models.ChannelCPKey("by-dev-rootcoord-dml_0_1v0"),
		models.CollectionInfoKey(1, 2), models.LegacyCollectionKey(2), models.ConsumeCheckpointKey("by-dev-rootcoord-dml_0"),
		models.SnapshotCollectionInfo + "1/2_ts5",
	} {
		_, err := p.Decide(models.Classify(rel), bad)
		var de *DecodeError
		if !errors.As(err, &de) || de.Key != rel {
			t.Errorf("%s: %v", rel, err)
		}
	}
	// Out of scope, keys scoped by name need not decode.
	ps, _ := NewPlanner("kafka", []string{"other"}, Context{})
	if d, err := ps.Decide(models.Classify(models.ChannelCPKey("by-dev-rootcoord-dml_0_1v0")), bad); err != nil || d.Reason != KeepOutOfScope {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestDecideConfig(t *testing.T) {
	p, _ := NewPlanner("woodpecker", nil, Context{})
	if d := p.DecideConfig([]byte("pulsar")); d.Action != Rewrite || string(d.Value) != "woodpecker" {
		t.Fatalf("%+v", d)
	}
	if d := p.DecideConfig([]byte("woodpecker")); d.Action != Keep {
		t.Fatalf("%+v", d)
	}
}

func TestPChannelKey(t *testing.T) {
	for in, want := range map[string]string{
		"by-dev-rootcoord-dml_0":        "by-dev-rootcoord-dml_0",
		"by-dev-rootcoord-dml_0_449v1":  "by-dev-rootcoord-dml_0",
		"by-dev-rootcoord-dml_12_3v0":   "by-dev-rootcoord-dml_12",
		"plain":                         "plain",
		"by-dev-rootcoord-dml_0_vx":     "by-dev-rootcoord-dml_0_vx",
		"by-dev-rootcoord-dml_0_100v0x": "by-dev-rootcoord-dml_0_100v0x",
	} {
		if got := models.StartPositionPChannel(in); got != want {
			t.Errorf("StartPositionPChannel(%q) = %q, want %q", in, got, want)
		}
	}
}

// listTags moves a segment decision's tags into Tags (the reference's form).
func listTags(d Decision) Decision {
	d.Tags = slices.Clone(d.tags())
	d.segmentTags, d.nSegment = [2]Tag{}, 0
	return d
}

// segmentReference decides a segment with the general models decoder: the
// reference the planner's segment view path is checked against.
func (p *Planner) segmentReference(k models.Key, value []byte) (Decision, error) {
	d := Decision{Kind: KindSegment}
	s, err := models.DecodeSegmentInfo(value)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	pc := models.PChannelOf(s.InsertChannel)
	for _, pos := range []*msgpb.MsgPosition{s.StartPosition, s.DMLPosition} {
		if pos != nil {
			d.Tags = append(d.Tags, Tag{PChannel: pc, WAL: pos.GetWALName(), Data: pos.GetMsgID()})
		}
	}
	if s.InsertChannel == "" || !p.InScope(pc) {
		d.Reason = KeepOutOfScope
		return d, nil
	}
	d.State = s.State.String()
	d.Unflushed = s.Unflushed()
	if s.StartPosition == nil && s.DMLPosition == nil {
		d.Reason = KeepNoPosition
		return d, nil
	}
	done := func(pos *msgpb.MsgPosition) bool {
		return pos == nil || models.PositionIn(pos, p.Target) || models.PositionAtEarliest(pos, p.WAL)
	}
	if done(s.StartPosition) && done(s.DMLPosition) {
		d.Reason = KeepAtTarget
		return d, nil
	}
	nv, n, err := sampletest.RewriteSegmentPositions(value, p.Target)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	d.Action, d.Value, d.Positions = Rewrite, nv, n
	return d, nil
}

// TestSegmentFastPathMatchesModels decides many segment shapes with the
// planner (models' segment view, fast where it can) and with the general
// models decoder, and requires the same decision, byte for byte.
func TestSegmentFastPathMatchesModels(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	states := []commonpb.SegmentState{commonpb.SegmentState_Flushed, commonpb.SegmentState_Growing, commonpb.SegmentState_Sealed, commonpb.SegmentState_Flushing, commonpb.SegmentState_Dropped}
	var values [][]byte
	for i := 0; i < 400; i++ {
		src := allWALs[r.Intn(4)]
		ch := fmt.Sprintf("by-dev-rootcoord-dml_%d_%dv0", r.Intn(3), r.Intn(1000))
		pos := func() []byte {
			tag := commonpb.WALName_Unknown
			if r.Intn(3) == 0 {
				tag = src
			}
			id := sample.ID(src, int64(r.Intn(50)))
			if r.Intn(5) == 0 {
				c, _ := msgid.For(src)
				id = c.Earliest()
			}
			return sample.Position(ch, id, uint64(r.Int63()), tag)
		}
		s := sample.Segment{ID: int64(i), Collection: 1, Partition: 2, Channel: ch, Rows: int64(r.Intn(10000)), State: states[r.Intn(4)], Level: 2}
		if r.Intn(4) != 0 {
			s.Start = pos()
		}
		if r.Intn(4) != 0 {
			s.DML = pos()
		}
		if r.Intn(3) == 0 {
			s.Extra = (&wire.Builder{}).Varint(99, 5).String(100, "later field").Build()
		}
		if r.Intn(10) == 0 {
			s.Channel = ""
		}
		if r.Intn(4) == 0 {
			s.Importing = true
		}
		values = append(values, s.Encode())
	}
	// A repeated position, bad UTF-8 in a channel name and a truncated value
	// go to the models path; a position with a field of a later version stays
	// on the fast one.
	v := sample.Segment{ID: 1, Channel: "by-dev-rootcoord-dml_0_1v0", Start: sample.Position("c", sample.ID(commonpb.WALName_Kafka, 3), 9, 0)}.Encode()
	values = append(values,
		append(append([]byte{}, v...), (&wire.Builder{}).Message(9, sample.Position("d", sample.ID(commonpb.WALName_Kafka, 4), 9, 0)).Build()...),
		(&wire.Builder{}).String(4, "by-dev-rootcoord-dml_0_1v0").Message(9, append(sample.Position("c", sample.ID(commonpb.WALName_Kafka, 3), 9, 0), 0x30, 0x01)).Build(),
		(&wire.Builder{}).String(4, "by-dev-rootcoord-dml_0_1v0").Message(10, (&wire.Builder{}).Bytes(1, []byte{0xff, 0xfe}).Build()).Build(),
		v[:len(v)-1],
	)
	dryOnly := 0
	for _, target := range allWALs {
		for _, scope := range [][]string{nil, {"by-dev-rootcoord-dml_1"}} {
			p, _ := NewPlanner(msgid.Name(target), scope, Context{CheckpointWAL: map[string]commonpb.WALName{"by-dev-rootcoord-dml_0": commonpb.WALName_Pulsar}})
			var sv models.SegmentViewer
			for i, val := range values {
				k := models.Classify(models.SegmentKey(1, 2, int64(i)))
				slow, serr := p.segmentReference(k, val)
				fast, ferr := p.segment(k, val, true, &sv)
				dry, derr := p.segment(k, val, false, nil)
				fast, dry = listTags(fast), listTags(dry)
				if (serr != nil) != (ferr != nil) || (derr != nil) != (ferr != nil) {
					t.Fatalf("value %d: errors %v, %v (dry run) and %v", i, ferr, derr, serr)
				}
				if serr != nil {
					continue
				}
				// The dry run decides the same, without the new value.
				if dry.Action == Rewrite && dry.Value == nil {
					dryOnly++
					dry.Value = fast.Value
				}
				if !reflect.DeepEqual(fast, dry) {
					t.Fatalf("value %d to %s:\nrun %+v\ndry run %+v", i, msgid.Name(target), fast, dry)
				}
				if len(fast.Value) == 0 && len(slow.Value) == 0 {
					fast.Value, slow.Value = nil, nil
				}
				if !reflect.DeepEqual(fast, slow) {
					t.Fatalf("value %d to %s:\nfast %+v\nslow %+v", i, msgid.Name(target), fast, slow)
				}
			}
		}
	}
	if dryOnly == 0 {
		t.Fatal("no dry-run decision went without its value")
	}
}

// A dry run builds no new segment value (it counts the positions a rewrite
// changes), except for a value large enough that the plan must check the
// size of the new one against etcd's request limit.
func TestDryRunBuildsNoSegmentValue(t *testing.T) {
	p, err := NewPlanner("woodpecker", nil, Context{})
	if err != nil {
		t.Fatal(err)
	}
	ch := "by-dev-rootcoord-dml_0_1v0"
	seg := sample.Segment{ID: 1, Collection: 1, Partition: 2, Channel: ch, Rows: 10, State: commonpb.SegmentState_Flushed, Level: 2,
		Start: sample.Position(ch, sample.ID(commonpb.WALName_Pulsar, 3), 9, 0), DML: sample.Position(ch, sample.ID(commonpb.WALName_Pulsar, 4), 10, 0)}
	k := models.Classify(models.SegmentKey(1, 2, 1))
	val := seg.Encode()
	dry, err := p.decide(k, val, false, nil)
	if err != nil || dry.Action != Rewrite || dry.Positions != 2 || dry.Value != nil {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	built := testing.AllocsPerRun(200, func() { _, _ = p.decide(k, val, true, nil) })
	counted := testing.AllocsPerRun(200, func() { _, _ = p.decide(k, val, false, nil) })
	if counted >= built {
		t.Fatalf("a dry-run decision allocates %v times, a run's %v: the dry run builds the value", counted, built)
	}
	seg.Extra = (&wire.Builder{}).Bytes(100, make([]byte, maxValueBytes/2)).Build()
	large, err := p.decide(k, seg.Encode(), false, nil)
	if err != nil || large.Action != Rewrite || len(large.Value) <= maxValueBytes/2 {
		t.Fatalf("a large value is built in a dry run too: %+v, %v", large.Action, err)
	}
}
