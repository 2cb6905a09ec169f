package models_test

import (
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/tests/sampletest"
)

// unknown is a field no heron definition knows (Milvus 3.0 adds such fields).
var unknown = protowire.AppendString(protowire.AppendTag(nil, 99, protowire.BytesType), "from-milvus-3.0")

// fieldsExcept returns the raw fields of b, minus the numbers given, in order.
func fieldsExcept(t *testing.T, b []byte, skip ...protowire.Number) [][]byte {
	t.Helper()
	m, err := wire.Parse(b)
	require.NoError(t, err)
	var out [][]byte
next:
	for _, f := range m.Fields {
		for _, s := range skip {
			if f.Num == s {
				continue next
			}
		}
		out = append(out, f.Raw)
	}
	return out
}

func TestClassify(t *testing.T) {
	cases := map[string]models.Key{
		"streamingnode-meta/wal/by-dev-rootcoord-dml_0/consume-checkpoint": {Kind: models.KindConsumeCheckpoint, PChannel: "by-dev-rootcoord-dml_0"},
		"streamingnode-meta/wal/by-dev-rootcoord-dml_0/segment-assign/42":  {Kind: models.KindSegmentAssign, PChannel: "by-dev-rootcoord-dml_0", Segment: 42},
		"streamingnode-meta/wal/p/vchannel/p_1v0":                          {Kind: models.KindVChannelMeta, PChannel: "p", VChannel: "p_1v0"},
		"streamingnode-meta/wal/p/vchannel/p_1v0/schema/4455":              {Kind: models.KindVChannelSchema, PChannel: "p", VChannel: "p_1v0"},
		"datacoord-meta/channel-cp/by-dev-rootcoord-dml_0_449v0":           {Kind: models.KindChannelCP, VChannel: "by-dev-rootcoord-dml_0_449v0", PChannel: "by-dev-rootcoord-dml_0"},
		"datacoord-meta/s/1/2/3":                                           {Kind: models.KindSegment, Collection: 1, Partition: 2, Segment: 3},
		"datacoord-meta/statslog/1/2/3/4":                                  {Kind: models.KindOther},
		"datacoord-meta/s/1/2/3/4":                                         {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/100/1005":                                        {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/abc/101/1007":                                    {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/100/101/1008\n":                                  {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/1/02/3":                                          {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/+1/2/3":                                          {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/":                                                {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/1/2/":                                            {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/99999999999999999999/2/3":                        {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/9223372036854775807/0/449000000000000001":        {Kind: models.KindSegment, Collection: 9223372036854775807, Segment: 449000000000000001},
		"datacoord-meta/s/9223372036854775808/2/3":                         {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/1/2/9300000000000000000":                         {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s/1/2/3a":                                          {Kind: models.KindSegment, Odd: true},
		"datacoord-meta/s":                                                 {Kind: models.KindOther},
		"datacoord-meta/segment-index/1/2/3":                               {Kind: models.KindOther},
		"root-coord/database/collection-info/1/100":                        {Kind: models.KindCollectionInfo, DB: 1, Collection: 100},
		"root-coord/collection/200":                                        {Kind: models.KindLegacyCollection, Collection: 200},
		"snapshots/root-coord/database/collection-info/1/100_ts445566":     {Kind: models.KindSnapshotCollection, Collection: 100},
		"queryCoord-Collection-Target/100":                                 {Kind: models.KindQueryTarget, Collection: 100},
		"streamingcoord-meta/broadcast-task/7":                             {Kind: models.KindBroadcastTask, ID: "7"},
		"session/querycoord":                                               {Kind: models.KindSession, ID: "querycoord"},
		"datacoord-meta/channel-removal/by-dev-rootcoord-dml_0_449v0":      {Kind: models.KindChannelRemoval, VChannel: "by-dev-rootcoord-dml_0_449v0"},
		"streamingcoord-meta/pchannel/by-dev-rootcoord-dml_3":              {Kind: models.KindPChannel, PChannel: "by-dev-rootcoord-dml_3"},
	}
	for rel, want := range cases {
		got := models.Classify(rel)
		want.Rel = rel
		assert.Equal(t, want, got, rel)
	}
	assert.Equal(t, "by-dev-rootcoord-dml_0", models.PChannelOf("by-dev-rootcoord-dml_0_449v0"))
}

// Classifying a segment key allocates nothing: a scan classifies every key
// of a million-segment instance.
func TestClassifySegmentAllocatesNothing(t *testing.T) {
	rel := models.SegmentKey(451234567890000017, 451234567890000018, 451234567900000042)
	allocs := testing.AllocsPerRun(100, func() {
		if k := models.Classify(rel); k.Kind != models.KindSegment || k.Segment != 451234567900000042 || k.Odd {
			t.Fatalf("classified %+v", k)
		}
	})
	assert.Zero(t, allocs)
}

func TestRewritePositionKeepsEverythingElse(t *testing.T) {
	orig := append(sample.Position("by-dev-rootcoord-dml_0_1v0", sample.ID(commonpb.WALName_Pulsar, 3), 445566, 0), unknown...)
	orig = append(orig, protowire.AppendString(protowire.AppendTag(nil, 3, protowire.BytesType), "group")...)
	for _, wal := range []commonpb.WALName{commonpb.WALName_WoodPecker, commonpb.WALName_Kafka, commonpb.WALName_Pulsar, commonpb.WALName_RocksMQ} {
		c, _ := msgid.For(wal)
		got, err := models.RewritePosition(orig, c.Earliest())
		require.NoError(t, err)
		p, err := models.DecodePosition(got)
		require.NoError(t, err)
		assert.Equal(t, wal, p.GetWALName())
		assert.Equal(t, string(c.Earliest().Bytes()), string(p.GetMsgID()))
		assert.Equal(t, uint64(445566), p.GetTimestamp())
		assert.True(t, models.PositionIn(p, c.Earliest()))
		assert.Equal(t, fieldsExcept(t, orig, 2, 5), fieldsExcept(t, got, 2, 5), "fields other than msgID and WAL_name keep their bytes")
	}
}

// MovePosition sets msgID, WAL_name and timestamp; channel_name, msgGroup
// and an unknown field keep their bytes; no value is a new position.
func TestMovePosition(t *testing.T) {
	ch := "by-dev-rootcoord-dml_0_1v0"
	orig := append(sample.Position(ch, sample.ID(commonpb.WALName_Pulsar, 3), 445566, 0), unknown...)
	orig = append(orig, protowire.AppendString(protowire.AppendTag(nil, 3, protowire.BytesType), "group")...)
	id := msgid.OffsetID{Of: commonpb.WALName_Kafka, Offset: 77}
	got, err := models.MovePosition(orig, "ignored", id, 998877)
	require.NoError(t, err)
	p, err := models.DecodePosition(got)
	require.NoError(t, err)
	assert.Equal(t, ch, p.GetChannelName())
	assert.Equal(t, string(id.Bytes()), string(p.GetMsgID()))
	assert.Equal(t, uint64(998877), p.GetTimestamp())
	assert.Equal(t, commonpb.WALName_Kafka, p.GetWALName())
	assert.Equal(t, fieldsExcept(t, orig, 2, 4, 5), fieldsExcept(t, got, 2, 4, 5))

	fresh, err := models.MovePosition(nil, ch, id, 998877)
	require.NoError(t, err)
	assert.Equal(t, sample.Position(ch, id, 998877, commonpb.WALName_Kafka), fresh, "a new position is what proto writes")
	_, err = models.MovePosition([]byte{0xff}, ch, id, 1)
	assert.Error(t, err)
}

// A message's time tick is its _tt property in base 36.
func TestMessageTimeTick(t *testing.T) {
	tt, err := models.MessageTimeTick(map[string]string{"_tt": "3krv5f9dkw00", "_v": "1"})
	require.NoError(t, err)
	assert.Equal(t, uint64(470818278604800000), tt)
	for _, props := range []map[string]string{{}, {"_tt": "not base 36!"}, {"_tt": ""}} {
		_, err := models.MessageTimeTick(props)
		assert.ErrorContains(t, err, "_tt", "%v", props)
	}
}

func TestRewriteWALCheckpointKeepsReplicationAndUnknown(t *testing.T) {
	cp := sample.Checkpoint{ID: sample.ID(commonpb.WALName_Pulsar, 1), TimeTick: 1 << 40, RecoveryMagic: 1, Replicate: true, Extra: unknown}
	orig := cp.Encode()
	target := msgid.WoodpeckerID{}
	got, err := models.RewriteWALCheckpoint(orig, target)
	require.NoError(t, err)
	d, err := models.DecodeWALCheckpoint(got)
	require.NoError(t, err)
	assert.Equal(t, commonpb.WALName_WoodPecker, d.WAL)
	assert.Equal(t, "CAAQAA==", d.MessageID, "woodpecker's {0,0} with explicit zero fields")
	assert.True(t, d.InWAL(target))
	assert.Equal(t, uint64(1<<40), d.TimeTick)
	assert.True(t, d.HasReplicateCheckpoint)
	assert.Equal(t, 1, d.UnknownFields)
	assert.Equal(t, fieldsExcept(t, orig, 1), fieldsExcept(t, got, 1))

	kafka, err := models.RewriteWALCheckpoint(orig, msgid.OffsetID{Of: commonpb.WALName_Kafka})
	require.NoError(t, err)
	d, _ = models.DecodeWALCheckpoint(kafka)
	assert.Equal(t, "0", d.MessageID)

	// A checkpoint without a message id gets one.
	bare := (&wire.Builder{}).Varint(2, 5).Build()
	got, err = models.RewriteWALCheckpoint(bare, msgid.PulsarEarliest)
	require.NoError(t, err)
	d, _ = models.DecodeWALCheckpoint(got)
	assert.True(t, d.InWAL(msgid.PulsarEarliest))
	assert.Equal(t, uint64(5), d.TimeTick)
}

func TestRewriteSegmentAndCollection(t *testing.T) {
	wal := commonpb.WALName_Kafka
	seg := sample.Segment{ID: 9, Collection: 1, Partition: 2, Channel: "r-dml_0_1v0", Rows: 10, State: commonpb.SegmentState_Flushed,
		Start: sample.Position("r-dml_0_1v0", sample.ID(wal, 1), 100, 0), DML: sample.Position("r-dml_0_1v0", sample.ID(wal, 2), 200, 0), Extra: unknown}
	orig := seg.Encode()
	target := msgid.PulsarEarliest
	got, n, err := sampletest.RewriteSegmentPositions(orig, target)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	s, err := models.DecodeSegmentInfo(got)
	require.NoError(t, err)
	assert.Equal(t, uint64(100), s.StartPosition.GetTimestamp())
	assert.Equal(t, uint64(200), s.DMLPosition.GetTimestamp())
	assert.True(t, models.PositionIn(s.StartPosition, target))
	assert.True(t, models.PositionIn(s.DMLPosition, target))
	assert.Equal(t, fieldsExcept(t, orig, 9, 10), fieldsExcept(t, got, 9, 10))
	again, n, err := sampletest.RewriteSegmentPositions(got, target)
	require.NoError(t, err)
	assert.Zero(t, n, "a second rewrite changes nothing")
	assert.Equal(t, got, again)

	coll := sample.Collection{ID: 1, DB: 1, Name: "c", CreateTime: 5, VChannels: []string{"r-dml_0_1v0", "r-dml_1_1v1"},
		PChannels: []string{"r-dml_0", "r-dml_1"}, Starts: [][]byte{sample.ID(wal, 1).Bytes(), sample.ID(wal, 2).Bytes()}}
	corig := append(coll.Encode(), unknown...)
	cgot, n, err := sampletest.RewriteStartPositions(corig, func(p string) bool { return p == "r-dml_1" }, target)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	c, err := models.DecodeCollectionInfo(cgot)
	require.NoError(t, err)
	assert.Equal(t, "c", c.Name)
	assert.Equal(t, sample.ID(wal, 1).Bytes(), c.StartPositions[0].Data, "out of scope pchannel untouched")
	assert.Equal(t, target.Bytes(), c.StartPositions[1].Data)
	assert.Equal(t, fieldsExcept(t, corig, 11), fieldsExcept(t, cgot, 11))
	for state, live := range map[uint64]bool{0: true, 1: false, 2: false, 3: false} {
		coll.State = state
		ch, err := models.DecodeCollectionChannels(append(coll.Encode(), unknown...))
		require.NoError(t, err)
		assert.Equal(t, models.CollectionChannels{ID: 1, Live: live, VChannels: coll.VChannels}, ch, "state %d", state)
	}
	sp, ok := c.StartPositionOf("r-dml_1_1v1")
	assert.True(t, ok)
	assert.Equal(t, "r-dml_1", sp.Key)

	// EditStartPositions: the same rewrite, with the pairs as read; with
	// nothing to change, the value itself.
	egot, n, read, err := models.EditStartPositions(corig, func(p string) bool { return p == "r-dml_1" }, target)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, cgot, egot)
	before, err := models.DecodeCollectionInfo(corig)
	require.NoError(t, err)
	assert.Equal(t, before.StartPositions, read, "the pairs as read, before the rewrite")
	same, n, read, err := models.EditStartPositions(cgot, func(p string) bool { return p == "r-dml_1" }, target)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Equal(t, c.StartPositions, read)
	assert.Same(t, &cgot[0], &same[0], "nothing changed: the value itself, not a copy")
}

func TestDecodeErrorsNeverPanic(t *testing.T) {
	junk := []byte{0x0a, 0xff, 0xff}
	_, err := models.DecodeSegmentInfo(junk)
	assert.Error(t, err)
	_, err = models.DecodeCollectionInfo(junk)
	assert.Error(t, err)
	_, err = models.DecodeCollectionChannels(junk)
	assert.Error(t, err)
	_, err = models.DecodeWALCheckpoint(junk)
	assert.Error(t, err)
	_, err = models.DecodePosition(junk)
	assert.Error(t, err)
	_, err = models.DecodeCollectionTarget(junk)
	assert.Error(t, err)
	_, _, err = sampletest.RewriteSegmentPositions(junk, msgid.PulsarEarliest)
	assert.Error(t, err)
	_, err = models.RewriteWALCheckpoint(junk, msgid.PulsarEarliest)
	assert.Error(t, err)
	assert.True(t, models.IsTombstone([]byte{0xE2, 0x9B, 0xBC}))
}

func TestQueryTargetRoundTrip(t *testing.T) {
	pos := sample.Position("r-dml_0_1v0", sample.ID(commonpb.WALName_Pulsar, 4), 77, 0)
	tg, err := models.DecodeCollectionTarget(sample.Target(1, []string{"r-dml_0_1v0"}, [][]byte{pos}))
	require.NoError(t, err)
	require.Len(t, tg.Channels, 1)
	assert.Equal(t, "r-dml_0_1v0", tg.Channels[0].VChannel)
	assert.Equal(t, uint64(77), tg.Channels[0].SeekPosition.GetTimestamp())
	assert.Equal(t, uint64(77), tg.Channels[0].DeleteCheckpoint.GetTimestamp())
}

func TestSeekResolverFallback(t *testing.T) {
	wal := commonpb.WALName_Pulsar
	r := models.NewSeekResolver()
	c := &models.CollectionInfo{ID: 1, CreateTime: 9, VChannels: []string{"p_0_1v0", "p_1_1v1", "p_2_1v2"},
		StartPositions: []models.StartPosition{{Key: "p_0", Data: []byte{1}}, {Key: "p_1", Data: []byte{2}}, {Key: "p_2", Data: []byte{3}}}}
	r.AddCollection("coll", c)
	cp, _ := models.DecodePosition(sample.Position("p_0_1v0", sample.ID(wal, 1), 50, 0))
	r.AddChannelCP("cp", "p_0_1v0", cp)
	for _, s := range []sample.Segment{
		{ID: 1, Channel: "p_1_1v1", State: commonpb.SegmentState_Flushed, DML: sample.Position("p_1_1v1", sample.ID(wal, 2), 30, 0)},
		{ID: 2, Channel: "p_1_1v1", State: commonpb.SegmentState_Dropped, DML: sample.Position("p_1_1v1", sample.ID(wal, 3), 10, 0)},
		{ID: 3, Channel: "p_1_1v1", State: commonpb.SegmentState_Flushed, Importing: true, DML: sample.Position("p_1_1v1", sample.ID(wal, 4), 5, 0)},
		{ID: 4, Channel: "p_1_1v1", State: commonpb.SegmentState_Flushed, Start: sample.Position("p_1_1v1", sample.ID(wal, 5), 20, 0)},
	} {
		d, err := models.DecodeSegmentInfo(s.Encode())
		require.NoError(t, err)
		r.AddSegment("seg", d)
	}
	seeks := r.Seeks()
	require.Len(t, seeks, 3)
	assert.Equal(t, models.SeekChannelCP, seeks[0].Level)
	assert.Equal(t, models.SeekSegment, seeks[1].Level)
	assert.Equal(t, uint64(20), seeks[1].Position.GetTimestamp(), "smallest timestamp of live, non-importing segments")
	assert.Equal(t, models.SeekCollectionStart, seeks[2].Level)
	assert.Equal(t, []byte{3}, seeks[2].Position.GetMsgID())
}

// Rel strips exactly the meta root {root}/{meta}/: a key under another root,
// another meta path, or one of their names extended, is outside it.
func TestLayoutRel(t *testing.T) {
	l := models.NewLayout("by-dev", "meta")
	for _, tc := range []struct {
		abs, rel string
		ok       bool
	}{
		{"by-dev/meta/datacoord-meta/s/1/2/3", "datacoord-meta/s/1/2/3", true},
		{"by-dev/meta/", "", true},
		{"by-dev/meta", "by-dev/meta", false},
		{"by-dev/metadata/x", "by-dev/metadata/x", false},
		{"by-dev2/meta/x", "by-dev2/meta/x", false},
		{"by-dev/kv/gid", "by-dev/kv/gid", false},
		{"other/meta/x", "other/meta/x", false},
		{"", "", false},
	} {
		if rel, ok := l.Rel(tc.abs); rel != tc.rel || ok != tc.ok {
			t.Errorf("Rel(%q) = %q, %v; want %q, %v", tc.abs, rel, ok, tc.rel, tc.ok)
		}
		if want, wantOK := strings.CutPrefix(tc.abs, l.MetaRoot()); tc.rel != want || tc.ok != wantOK {
			t.Errorf("%q: the case disagrees with MetaRoot's prefix", tc.abs)
		}
	}
}
