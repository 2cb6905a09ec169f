package models_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/tests/sampletest"
)

// goldenProto is a value marshaled by Milvus's own generated types (tests/golden).
type goldenProto struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Hex    string          `json:"hex"`
	Fields json.RawMessage `json:"fields"`
}

func goldenProtos(t *testing.T, typ string) map[string][]byte {
	t.Helper()
	return goldenFile(t, "protos.json", typ)
}

// goldenFile reads the values of one type from a file of tests/golden/testdata.
func goldenFile(t *testing.T, file, typ string) map[string][]byte {
	t.Helper()
	raw, err := os.ReadFile("../tests/golden/testdata/" + file)
	require.NoError(t, err)
	var all []goldenProto
	require.NoError(t, json.Unmarshal(raw, &all))
	out := map[string][]byte{}
	for _, g := range all {
		if g.Type == typ {
			b, err := hex.DecodeString(g.Hex)
			require.NoError(t, err)
			out[g.Name] = b
		}
	}
	require.NotEmpty(t, out, "no golden %s", typ)
	return out
}

func b64(t *testing.T, s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	require.NoError(t, err)
	return b
}

func TestGoldenSegmentInfo(t *testing.T) {
	g := goldenProtos(t, "datapb.SegmentInfo")
	s, err := models.DecodeSegmentInfo(g["flushed"])
	require.NoError(t, err)
	assert.Equal(t, int64(451234567890123460), s.ID)
	assert.Equal(t, int64(451234567890123456), s.CollectionID)
	assert.Equal(t, commonpb.SegmentState_Flushed, s.State)
	assert.Equal(t, "by-dev-rootcoord-dml_0_451234567890123456v0", s.InsertChannel)
	assert.Equal(t, int64(3000), s.NumRows)
	assert.Equal(t, uint64(456789012607815680), s.DMLPosition.GetTimestamp())
	assert.Equal(t, b64(t, "CJWa7zoQKhgAIP///////////wEwAA=="), s.DMLPosition.GetMsgID())

	grow, err := models.DecodeSegmentInfo(g["growing"])
	require.NoError(t, err)
	assert.True(t, grow.Unflushed())

	// A rewrite of Milvus's bytes changes the two positions and nothing else.
	out, n, err := sampletest.RewriteSegmentPositions(g["flushed"], msgid.WoodpeckerID{})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, fieldsExcept(t, g["flushed"], 9, 10), fieldsExcept(t, out, 9, 10))
	s2, err := models.DecodeSegmentInfo(out)
	require.NoError(t, err)
	assert.Equal(t, commonpb.WALName_WoodPecker, s2.DMLPosition.GetWALName())
	assert.Equal(t, "08001000", hex.EncodeToString(s2.DMLPosition.GetMsgID()), "woodpecker's {0,0} with explicit zero fields")
	assert.Equal(t, s.DMLPosition.GetTimestamp(), s2.DMLPosition.GetTimestamp())
	assert.Equal(t, s.DMLPosition.GetMsgGroup(), s2.DMLPosition.GetMsgGroup())
	assert.Equal(t, s.StartPosition.GetChannelName(), s2.StartPosition.GetChannelName())
}

func TestGoldenCollectionInfo(t *testing.T) {
	g := goldenProtos(t, "etcdpb.CollectionInfo")
	raw := g["two_shards_pulsar"]
	c, err := models.DecodeCollectionInfo(raw)
	require.NoError(t, err)
	assert.Equal(t, int64(451234567890123456), c.ID)
	assert.Equal(t, int64(1), c.DBID)
	assert.Equal(t, "heron_golden", c.Name)
	assert.Equal(t, []string{"by-dev-rootcoord-dml_0", "by-dev-rootcoord-dml_1"}, c.PChannels)
	require.Len(t, c.VChannels, 2)
	require.Len(t, c.StartPositions, 2)
	sp, ok := c.StartPositionOf(c.VChannels[1])
	require.True(t, ok)
	assert.Equal(t, b64(t, "CGUQABgAIP///////////wEwAA=="), sp.Data)
	ch, err := models.DecodeCollectionChannels(raw)
	require.NoError(t, err)
	assert.Equal(t, models.CollectionChannels{ID: c.ID, Live: c.Live(), VChannels: c.VChannels}, ch, "the top level alone says what the full decode says")
	require.True(t, ch.Live)
	human, err := models.DescribeBytes(commonpb.WALName_Pulsar, sp.Data)
	require.NoError(t, err)
	assert.Equal(t, "101:0:0:-1", human)

	out, n, err := sampletest.RewriteStartPositions(raw, func(p string) bool { return true }, msgid.OffsetID{Of: commonpb.WALName_Kafka})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, fieldsExcept(t, raw, 11), fieldsExcept(t, out, 11), "schema, properties, fields 16+ keep their bytes")
}

func TestGoldenWALCheckpoint(t *testing.T) {
	g := goldenProtos(t, "streamingpb.WALCheckpoint")
	full := g["pulsar_all_fields"]
	cp, err := models.DecodeWALCheckpoint(full)
	require.NoError(t, err)
	assert.Equal(t, commonpb.WALName_Pulsar, cp.WAL)
	assert.True(t, cp.HasReplicateCheckpoint)
	assert.Equal(t, "source-cluster", cp.ReplicateCluster)
	assert.True(t, cp.HasReplicateConfig)
	assert.Zero(t, cp.UnknownFields, "field 6 is alter_wal_state, known since Milvus 2.6.14")
	require.NotNil(t, cp.AlterWAL)
	assert.Equal(t, "online switch to kafka, stage ADVANCE_CHECKPOINT", cp.AlterWAL.Describe())
	human, err := models.DescribeText(cp.WAL, cp.MessageID)
	require.NoError(t, err)
	assert.Equal(t, "123456789:42:0:-1", human)

	out, err := models.RewriteWALCheckpoint(full, msgid.WoodpeckerID{})
	require.NoError(t, err)
	assert.Equal(t, fieldsExcept(t, full, 1), fieldsExcept(t, out, 1))

	// heron's rewrite produces what Milvus itself writes for each WAL's earliest id.
	for name, id := range map[string]msgid.ID{
		"woodpecker_earliest_explicit": msgid.WoodpeckerID{},
		"kafka_offset_0":               msgid.OffsetID{Of: commonpb.WALName_Kafka},
		"rocksmq_id_0":                 msgid.OffsetID{Of: commonpb.WALName_RocksMQ},
	} {
		out, err := models.RewriteWALCheckpoint(g["pulsar_minimal"], id)
		require.NoError(t, err)
		assert.Equal(t, hex.EncodeToString(g[name]), hex.EncodeToString(out), name)
	}
	// Milvus's own woodpecker earliest (the empty form its online switch
	// writes) reads as {0,0} but is not kept as it is: a reset rewrites it.
	empty, err := models.DecodeWALCheckpoint(g["woodpecker_earliest"])
	require.NoError(t, err)
	assert.True(t, empty.HasMessageID)
	assert.Equal(t, "", empty.MessageID)
	assert.False(t, empty.AtEarliest(commonpb.WALName_WoodPecker))
	explicit, err := models.DecodeWALCheckpoint(g["woodpecker_earliest_explicit"])
	require.NoError(t, err)
	assert.True(t, explicit.AtEarliest(commonpb.WALName_WoodPecker))
	assert.True(t, explicit.InWAL(msgid.WoodpeckerID{}))
}

// The explicit woodpecker earliest in a MsgPosition: what heron's rewrite of
// Milvus's bytes gives, byte for byte; Milvus's empty form is not kept.
func TestGoldenWoodpeckerEarliestPosition(t *testing.T) {
	g := goldenProtos(t, "msgpb.MsgPosition")
	out, err := models.RewritePosition(g["woodpecker_s3_e12"], msgid.WoodpeckerID{})
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(g["woodpecker_earliest_explicit"]), hex.EncodeToString(out))
	for name, kept := range map[string]bool{"woodpecker_earliest": false, "woodpecker_earliest_explicit": true} {
		pos, err := models.DecodePosition(g[name])
		require.NoError(t, err)
		assert.Equal(t, kept, models.PositionAtEarliest(pos, commonpb.WALName_WoodPecker), name)
	}
}

func TestGoldenTargetAndBroadcast(t *testing.T) {
	g := goldenProtos(t, "querypb.CollectionTarget")
	for _, name := range []string{"one_channel_pulsar_zstd_default", "one_channel_pulsar_zstd_better"} {
		tg, err := models.DecodeCollectionTarget(g[name])
		require.NoError(t, err, name)
		assert.Equal(t, int64(451234567890123456), tg.CollectionID)
		require.Len(t, tg.Channels, 1)
		assert.Equal(t, "by-dev-rootcoord-dml_0_451234567890123456v0", tg.Channels[0].VChannel)
		assert.Equal(t, uint64(456789012607815679), tg.Channels[0].DeleteCheckpoint.GetTimestamp())
	}
	b := goldenProtos(t, "streamingpb.BroadcastTask")
	pending, err := models.DecodeBroadcastTask(b["pending"])
	require.NoError(t, err)
	assert.True(t, pending.State.InFlight())
	// Milvus's own message builder: _t and the broadcast header _bh (base64
	// protobuf) in the properties; the second vchannel's ack an empty entry.
	assert.Empty(t, pending.MessageError)
	assert.NotZero(t, pending.MessageType)
	assert.Len(t, pending.VChannels, 2)
	assert.Equal(t, []bool{true, false}, pending.AckedVChannels)
	assert.Equal(t, 1, pending.Acked)
	tomb, err := models.DecodeBroadcastTask(b["tombstone"])
	require.NoError(t, err)
	assert.Equal(t, models.BroadcastTombstone, tomb.State)
	assert.False(t, tomb.State.InFlight())

	a := goldenProtos(t, "streamingpb.SegmentAssignmentMeta")
	for _, v := range a {
		m, err := models.DecodeSegmentAssignmentMeta(v)
		require.NoError(t, err)
		assert.NotZero(t, m.SegmentID)
		assert.NotEmpty(t, m.VChannel)
	}
	p := goldenProtos(t, "streamingpb.PChannelMeta")
	for _, v := range p {
		m, err := models.DecodePChannelMeta(v)
		require.NoError(t, err)
		assert.NotEmpty(t, m.Name)
		// tests/golden/protos.go: term 3 on node 7, ASSIGNED, one history (term 2, node 5).
		assert.Equal(t, int64(3), m.Term)
		require.NotNil(t, m.Node)
		assert.Equal(t, models.StreamingNode{ServerID: 7, Address: "10.0.0.7:22222"}, *m.Node)
		assert.Equal(t, models.PChannelAssigned, m.State)
		require.Len(t, m.Histories, 1)
		assert.Equal(t, int64(2), m.Histories[0].Term)
		assert.Equal(t, int64(5), m.Histories[0].Node.ServerID)
		assert.Equal(t, uint64(1767225600), m.LastAssignSeconds)
	}
}

// alter_wal_state as Milvus's own streamingpb types marshal it: decoded in
// each stage, and removed so that exactly Milvus's bytes of the same
// checkpoint without it remain.
func TestGoldenAlterWALState(t *testing.T) {
	g := goldenProtos(t, "streamingpb.WALCheckpoint")
	for _, c := range []struct {
		name        string
		target      commonpb.WALName
		stage       models.AlterWALStage
		describe    string
		interrupted bool
		configs     int
		without     string
	}{
		{"pulsar_all_fields", commonpb.WALName_Kafka, models.AlterWALStageAdvanceCheckpoint, "online switch to kafka, stage ADVANCE_CHECKPOINT", true, 2, "pulsar_all_fields_without_alter_wal_state"},
		{"pulsar_alter_wal_state_advance_checkpoint_kafka", commonpb.WALName_Kafka, models.AlterWALStageAdvanceCheckpoint, "online switch to kafka, stage ADVANCE_CHECKPOINT", true, 2, "pulsar_minimal"},
		{"pulsar_alter_wal_state_flushing_kafka", commonpb.WALName_Kafka, models.AlterWALStageFlushing, "online switch to kafka, stage FLUSHING", true, 0, "pulsar_minimal"},
		{"pulsar_alter_wal_state_none_woodpecker", commonpb.WALName_WoodPecker, models.AlterWALStageNone, "online switch to woodpecker, stage NONE", false, 0, "pulsar_minimal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := g[c.name]
			require.NotEmpty(t, raw)
			cp, err := models.DecodeWALCheckpoint(raw)
			require.NoError(t, err)
			require.NotNil(t, cp.AlterWAL)
			assert.Equal(t, c.target, cp.AlterWAL.Target)
			assert.Equal(t, c.stage, cp.AlterWAL.Stage)
			assert.Equal(t, uint64(456789015229251584), cp.AlterWAL.TimeTick)
			assert.Len(t, cp.AlterWAL.Configs, c.configs)
			assert.Equal(t, c.describe, cp.AlterWAL.Describe())
			assert.Equal(t, c.interrupted, cp.AlterWAL.Interrupted())
			assert.Equal(t, commonpb.WALName_Pulsar, cp.WAL)

			cleared, err := models.ClearAlterWALState(raw)
			require.NoError(t, err)
			assert.Equal(t, hex.EncodeToString(g[c.without]), hex.EncodeToString(cleared), "removing field 6 leaves Milvus's bytes of %s", c.without)
			back, err := models.DecodeWALCheckpoint(cleared)
			require.NoError(t, err)
			assert.Nil(t, back.AlterWAL)

			// A reset clears it and moves the id: the rest is what Milvus writes.
			moved, err := models.RewriteWALCheckpoint(cleared, msgid.OffsetID{Of: commonpb.WALName_Kafka})
			require.NoError(t, err)
			if c.without == "pulsar_minimal" {
				assert.Equal(t, hex.EncodeToString(g["kafka_offset_0"]), hex.EncodeToString(moved))
			}
		})
	}
	same, err := models.ClearAlterWALState(g["pulsar_minimal"])
	require.NoError(t, err)
	assert.Equal(t, g["pulsar_minimal"], same, "a checkpoint without the field stays as it is")
}

// The earliest ids Milvus's online switch writes (kafka -2, rocksmq -1) decode
// and count as the WAL's earliest.
func TestGoldenNegativeEarliestCheckpoints(t *testing.T) {
	g := goldenProtos(t, "streamingpb.WALCheckpoint")
	for name, c := range map[string]struct {
		wal   commonpb.WALName
		human string
	}{
		"kafka_offset_beginning":    {commonpb.WALName_Kafka, "-2"},
		"rocksmq_earliest_negative": {commonpb.WALName_RocksMQ, "-1"},
		"kafka_offset_0":            {commonpb.WALName_Kafka, "0"},
	} {
		cp, err := models.DecodeWALCheckpoint(g[name])
		require.NoError(t, err, name)
		assert.Equal(t, c.wal, cp.WAL, name)
		human, err := models.DescribeText(cp.WAL, cp.MessageID)
		require.NoError(t, err, name)
		assert.Equal(t, c.human, human, name)
		assert.True(t, cp.AtEarliest(c.wal), "%s is at %s's earliest", name, msgid.Name(c.wal))
		assert.False(t, cp.AtEarliest(commonpb.WALName_Pulsar), name)
	}
	cp, err := models.DecodeWALCheckpoint(g["pulsar_minimal"])
	require.NoError(t, err)
	assert.False(t, cp.AtEarliest(commonpb.WALName_Pulsar), "pulsar l123456789_e42 is not the earliest")
}
