package models

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"os"
	"testing"
	"unsafe"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// fuzzTargets are the ids a rewrite may set: every WAL's earliest (woodpecker's
// is empty, which removes msgID) and ids with content.
var fuzzTargets = []msgid.ID{
	msgid.PulsarEarliest,
	msgid.OffsetID{Of: commonpb.WALName_Kafka},
	msgid.OffsetID{Of: commonpb.WALName_RocksMQ},
	msgid.WoodpeckerID{},
	msgid.OffsetID{Of: commonpb.WALName_Kafka, Offset: 1005},
	msgid.PulsarID{Ledger: 100, Entry: 5, Batch: -1},
	msgid.WoodpeckerID{Segment: 3, Entry: 12},
}

// rewriteSegmentPositions is a segment's rewrite on its own, the fast splice
// where inspectSegment reads the value, else the general decoder: what these
// tests hold both paths to (the code keeps only RewriteViewedSegment, which a
// reset calls with the view it decided by).
func rewriteSegmentPositions(b []byte, id msgid.ID) ([]byte, int, error) {
	v, _, ok := inspectSegment(b)
	if !ok {
		return rewriteSegmentPositionsGeneral(b, id)
	}
	out, n := spliceSegment(b, v, NewTarget(id))
	return out, n, nil
}

func testPosition(r *rand.Rand, ch string) []byte {
	ids := [][]byte{nil, {}, msgid.PulsarEarliest.Bytes(), msgid.OffsetID{Of: commonpb.WALName_Kafka, Offset: int64(r.Intn(5000))}.Bytes(),
		msgid.WoodpeckerID{Segment: 3, Entry: int64(r.Intn(9))}.Bytes(), msgid.PulsarID{Ledger: 100, Entry: 5, Batch: -1}.Bytes()}
	wals := []commonpb.WALName{0, 0, commonpb.WALName_Pulsar, commonpb.WALName_Kafka, commonpb.WALName_RocksMQ, commonpb.WALName_WoodPecker}
	p := &msgpb.MsgPosition{ChannelName: ch, MsgID: ids[r.Intn(len(ids))], Timestamp: uint64(r.Int63()), WALName: wals[r.Intn(len(wals))]}
	if r.Intn(3) == 0 {
		p.MsgGroup = "by-dev-dataNode-3"
	}
	b, err := proto.Marshal(p)
	if err != nil {
		panic(err)
	}
	if r.Intn(5) == 0 {
		b = append(b, (&wire.Builder{}).String(7, "a later field").Build()...)
	}
	return b
}

// testSegment encodes a SegmentInfo in the field order Milvus writes, with
// random positions, states and unknown fields.
func testSegment(r *rand.Rand) []byte {
	ch := "by-dev-rootcoord-dml_1_449v0"
	var b wire.Builder
	b.Varint(1, uint64(r.Int63())).Varint(2, 449).Varint(3, 450)
	if r.Intn(8) != 0 {
		b.String(4, ch)
	}
	b.Varint(5, uint64(r.Intn(10000))).Varint(6, uint64(r.Intn(8))).Varint(7, 1<<30)
	if r.Intn(4) != 0 {
		b.Message(9, testPosition(r, ch))
	}
	if r.Intn(4) != 0 {
		b.Message(10, testPosition(r, ch))
	}
	b.Message(11, (&wire.Builder{}).Varint(1, 101).Message(2, (&wire.Builder{}).Varint(1, 7).String(5, "files/insert_log/1").Build()).Build())
	if r.Intn(4) == 0 {
		b.Varint(17, 1)
	}
	b.Varint(20, 2).Varint(21, 2)
	if r.Intn(3) == 0 {
		b.Varint(99, 5).String(100, "later field")
	}
	return b.Build()
}

func sameView(a, b SegmentView) bool {
	pos := func(x, y PositionView) bool {
		return x.Present == y.Present && x.WAL == y.WAL && bytes.Equal(x.MsgID, y.MsgID) && x.Timestamp == y.Timestamp
	}
	return a.Channel == b.Channel && a.State == b.State && a.Importing == b.Importing && pos(a.Start, b.Start) && pos(a.DML, b.DML)
}

// checkSegmentPaths requires the fast and general paths to agree on b: the
// view, and the rewrite to every target (bytes and count), errors included.
func checkSegmentPaths(t *testing.T, b []byte) (fast bool) {
	t.Helper()
	general, gerr := viewSegmentGeneral(b)
	fv, channel, ok := inspectSegment(b)
	fv.Channel = string(channel)
	if ok {
		if gerr != nil {
			t.Fatalf("fast path accepts what the general decoder refuses (%v): %x", gerr, b)
		}
		if !sameView(fv, general) {
			t.Fatalf("views differ on %x:\nfast    %+v\ngeneral %+v", b, fv, general)
		}
	}
	if ch, ok := SegmentChannel(b); ok && gerr == nil && string(ch) != general.Channel {
		t.Fatalf("SegmentChannel %q, the general decoder %q on %x", ch, general.Channel, b)
	} else if !ok && gerr == nil && general.Channel != "" {
		t.Fatalf("SegmentChannel found no channel where the general decoder found %q on %x", general.Channel, b)
	}
	if ch := []byte(general.Channel); OnPChannel(ch, PChannelOf(general.Channel)) != true {
		t.Fatalf("OnPChannel(%q, %q) is false", ch, PChannelOf(general.Channel))
	}
	v, err := ViewSegment(b)
	if (err != nil) != (gerr != nil) || (err == nil && !sameView(v, general)) {
		t.Fatalf("ViewSegment %+v (%v), general %+v (%v) on %x", v, err, general, gerr, b)
	}
	for _, id := range fuzzTargets {
		got, n, err := rewriteSegmentPositions(b, id)
		want, wn, werr := rewriteSegmentPositionsGeneral(b, id)
		if (err != nil) != (werr != nil) {
			t.Fatalf("rewrite to %s %s: error %v, general %v on %x", msgid.Name(id.WAL()), id.Human(), err, werr, b)
		}
		if err == nil && (n != wn || !bytes.Equal(got, want)) {
			t.Fatalf("rewrite to %s %s of %x:\nfast    %d %x\ngeneral %d %x", msgid.Name(id.WAL()), id.Human(), b, n, got, wn, want)
		}
		if v, verr := ViewSegment(b); verr == nil && err == nil {
			vg, vn, _ := RewriteViewedSegment(b, v, NewTarget(id))
			if vn != wn || !bytes.Equal(vg, want) {
				t.Fatalf("RewriteViewedSegment to %s %s of %x:\nviewed  %d %x\ngeneral %d %x", msgid.Name(id.WAL()), id.Human(), b, vn, vg, wn, want)
			}
		}
		// A value ViewSegment refuses, rewritten with the zero view, takes
		// the general decoder (tests/sampletest rewrites any value so).
		if _, verr := ViewSegment(b); verr != nil {
			zg, zn, zerr := RewriteViewedSegment(b, SegmentView{}, NewTarget(id))
			if (zerr != nil) != (werr != nil) || (zerr == nil && (zn != wn || !bytes.Equal(zg, want))) {
				t.Fatalf("RewriteViewedSegment of the zero view to %s %s of %x:\nzero    %d %x (%v)\ngeneral %d %x (%v)", msgid.Name(id.WAL()), id.Human(), b, zn, zg, zerr, wn, want, werr)
			}
		}
	}
	return ok
}

func segmentSeeds() [][]byte {
	r := rand.New(rand.NewSource(11))
	var seeds [][]byte
	for i := 0; i < 60; i++ {
		seeds = append(seeds, testSegment(r))
	}
	ch := "by-dev-rootcoord-dml_0_1v0"
	plain := (&wire.Builder{}).String(4, ch).Message(9, testPosition(r, ch)).Build()
	seeds = append(seeds,
		nil,
		// Repeated start_position: the general decoder takes the last one.
		append(append([]byte{}, plain...), (&wire.Builder{}).Message(9, testPosition(r, ch)).Build()...),
		// A position with a wrongly typed field and one with bad UTF-8.
		(&wire.Builder{}).String(4, ch).Message(9, append(testPosition(r, ch), 0x30, 0x01)).Build(),
		(&wire.Builder{}).String(4, ch).Message(10, (&wire.Builder{}).Bytes(1, []byte{0xff, 0xfe}).Build()).Build(),
		// Non-canonical length of a position, a truncated value, a group.
		append([]byte{0x4a, 0x80, 0x00}, []byte{}...),
		plain[:len(plain)-1],
		append(append([]byte{}, plain...), 0xa3, 0x06, 0xa4, 0x06),
		// State as bytes, WAL_name out of int32 range, msgID twice.
		(&wire.Builder{}).Bytes(6, []byte("x")).Build(),
		(&wire.Builder{}).String(4, ch).Message(9, (&wire.Builder{}).Varint(5, 1<<32+3).Build()).Build(),
		(&wire.Builder{}).String(4, ch).Message(10, (&wire.Builder{}).Bytes(2, []byte{1}).Bytes(2, []byte{2}).Build()).Build(),
	)
	return seeds
}

// FuzzSegmentFastPath: the fast and the general segment paths agree on any
// input, for the view and for the rewrite to every target. The seed corpus
// runs in plain `go test`; `go test -fuzz FuzzSegmentFastPath ./models/` explores.
func FuzzSegmentFastPath(f *testing.F) {
	for _, s := range segmentSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSegmentPaths(t, b)
	})
}

// The fast path takes the shapes Milvus writes (random ones and Milvus's own
// bytes from tests/golden), so a million segments never reach the general decoder.
func TestSegmentFastPathTakesMilvusShapes(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 200; i++ {
		if b := testSegment(r); !checkSegmentPaths(t, b) {
			t.Fatalf("fast path refused a plain segment: %x", b)
		}
	}
	raw, err := os.ReadFile("../tests/golden/testdata/protos.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []struct{ Type, Name, Hex string }
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Type != "datapb.SegmentInfo" {
			continue
		}
		b, _ := hex.DecodeString(v.Hex)
		if !checkSegmentPaths(t, b) {
			t.Errorf("fast path refused Milvus's %s segment", v.Name)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no golden segment")
	}
}

func TestRewriteSegmentPositionsUnchangedKeepsValue(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	b := testSegment(r)
	for _, id := range fuzzTargets {
		once, _, err := rewriteSegmentPositions(b, id)
		if err != nil {
			t.Fatal(err)
		}
		again, n, err := rewriteSegmentPositions(once, id)
		if err != nil || n != 0 || !bytes.Equal(again, once) {
			t.Fatalf("second rewrite to %s: n=%d err=%v", id.Human(), n, err)
		}
		v, err := ViewSegment(once)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []PositionView{v.Start, v.DML} {
			if p.Present && !p.In(NewTarget(id)) {
				t.Fatalf("position %+v not at %s", p, id.Human())
			}
		}
	}
	if _, err := ViewSegment([]byte{0x0a, 0xff}); err == nil {
		t.Fatal("a truncated segment views without error")
	}
}

// The fast path is what keeps a million-segment reset cheap: a view costs one
// allocation (the channel name), none with a SegmentViewer that saw the
// channel before; a rewrite five (the target id, its two encoded fields, the
// output and the splice), one (the output) to a Target encoded before.
func TestSegmentFastPathAllocations(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	ch := "by-dev-rootcoord-dml_1_449v0"
	b := (&wire.Builder{}).Varint(1, 7).String(4, ch).Varint(6, 4).Message(9, testPosition(r, ch)).Message(10, testPosition(r, ch)).Build()
	if allocs := testing.AllocsPerRun(100, func() { _, _ = ViewSegment(b) }); allocs > 1 {
		t.Errorf("ViewSegment: %v allocations", allocs)
	}
	var sv SegmentViewer
	first, _ := sv.View(b)
	if allocs := testing.AllocsPerRun(100, func() {
		if v, _ := sv.View(b); v.Channel != ch || unsafe.StringData(v.Channel) != unsafe.StringData(first.Channel) {
			t.Fatalf("viewed channel %q, not the one seen first", v.Channel)
		}
	}); allocs != 0 {
		t.Errorf("SegmentViewer.View of a channel seen before: %v allocations", allocs)
	}
	target := msgid.PulsarEarliest
	if allocs := testing.AllocsPerRun(100, func() { _, _, _ = rewriteSegmentPositions(b, target) }); allocs > 5 {
		t.Errorf("rewriteSegmentPositions: %v allocations", allocs)
	}
	tg := NewTarget(target)
	if allocs := testing.AllocsPerRun(100, func() {
		if _, n, _ := RewriteViewedSegment(b, first, tg); n != 2 {
			t.Fatalf("rewrote %d positions, not 2", n)
		}
	}); allocs > 1 {
		t.Errorf("RewriteViewedSegment to a Target: %v allocations", allocs)
	}
}
