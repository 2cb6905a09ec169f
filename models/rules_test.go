package models_test

import (
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

func TestClassifyStreamingKeysHeronDoesNotKnow(t *testing.T) {
	p := "by-dev-rootcoord-dml_0"
	cases := map[string]models.Key{
		models.WALPrefix + p + "/recovery-control":           {Kind: models.KindWALOther, PChannel: p},
		models.WALPrefix + p + "/transform/12":               {Kind: models.KindWALOther, PChannel: p},
		models.WALPrefix + p + "/consume-checkpoint/x":       {Kind: models.KindWALOther, PChannel: p},
		models.WALPrefix + p + "/segment-assign/1/2":         {Kind: models.KindOther},
		models.WALPrefix + p + "/vchannel/" + p + "_1v0/x/y": {Kind: models.KindOther, PChannel: p},
		models.WALPrefix + p:                                 {Kind: models.KindOther},
		models.ReplicatingPChannel + "standby-" + p:          {Kind: models.KindReplicatingPChannel, ID: "standby-" + p},
		models.ReplicateConfiguration:                        {Kind: models.KindReplicateConfiguration},
		models.ReplicateConfiguration + "x":                  {Kind: models.KindOther},
		// The kinds heron knows stay what they were.
		models.ConsumeCheckpointKey(p):                   {Kind: models.KindConsumeCheckpoint, PChannel: p},
		models.SegmentAssignPrefix(p) + "42":             {Kind: models.KindSegmentAssign, PChannel: p, Segment: 42},
		models.WALPrefix + p + "/vchannel/" + p + "_1v0": {Kind: models.KindVChannelMeta, PChannel: p, VChannel: p + "_1v0"},
	}
	for rel, want := range cases {
		want.Rel = rel
		assert.Equal(t, want, models.Classify(rel), rel)
	}
}

func TestStartPositionPChannel(t *testing.T) {
	for in, want := range map[string]string{
		"by-dev-rootcoord-dml_0":        "by-dev-rootcoord-dml_0",
		"by-dev-rootcoord-dml_0_449v1":  "by-dev-rootcoord-dml_0",
		"by-dev-rootcoord-dml_12_3v0":   "by-dev-rootcoord-dml_12",
		"plain":                         "plain",
		"_1v0":                          "_1v0",
		"by-dev-rootcoord-dml_0_vx":     "by-dev-rootcoord-dml_0_vx",
		"by-dev-rootcoord-dml_0_100v0x": "by-dev-rootcoord-dml_0_100v0x",
		"by-dev-rootcoord-dml_0_100v":   "by-dev-rootcoord-dml_0_100v",
	} {
		assert.Equal(t, want, models.StartPositionPChannel(in), in)
	}
	assert.True(t, models.IsVChannelName("by-dev-rootcoord-dml_0_449v1"))
	assert.False(t, models.IsVChannelName("by-dev-rootcoord-dml_0"))
}

// Milvus's etcd config source (config/etcd_source.go, config/config.go formatKey).
func TestMQTypeConfigKeys(t *testing.T) {
	for _, k := range []string{"config/mqtype", "config/mq.type", "config/mq_type", "config/MQ.TYPE", "config/Mq_Type",
		"config/mq/type", "config/m.q_t/ype", "config/mqType"} {
		assert.True(t, models.IsMQTypeConfigKey(k), k)
	}
	for _, k := range []string{"config/mq.types", "config/", "config", "configmqtype", "mqtype", "config/knowhere.mqtype",
		"kv/config/mqtype", "config/pulsar.mqtype", "meta/config/mqtype"} {
		assert.False(t, models.IsMQTypeConfigKey(k), k)
	}
	for _, k := range models.MQTypeConfigKeys {
		assert.True(t, models.IsMQTypeConfigKey(k), "the legacy list is a subset: %s", k)
	}
	assert.True(t, models.IsMQTypeConfigKey(models.MQTypeConfigKey))
	assert.Equal(t, "config/mqtype", models.EffectiveConfigKey([]string{"config/mq.type", "config/other", "config/mqtype", "config/MQ_TYPE"}, models.FormatConfigKey("mq.type")),
		"etcd returns keys in ascending order and the last one fills the map")
	assert.Equal(t, "", models.EffectiveConfigKey([]string{"config/other"}, models.FormatConfigKey("mq.type")))
}

func TestWALCensus(t *testing.T) {
	pulsar, kafka := commonpb.WALName_Pulsar, commonpb.WALName_Kafka
	c := models.NewWALCensus(map[string]commonpb.WALName{"p0": pulsar, "p1": kafka})
	pulsarID := sample.ID(pulsar, 1).Bytes()
	kafkaID := sample.ID(kafka, 1).Bytes()

	// p0: consistent pulsar, tagged and untagged.
	c.AddCheckpoint("p0", pulsar)
	c.Add("p0", commonpb.WALName_Unknown, pulsarID)
	c.Add("p0", pulsar, pulsarID)
	// p1: an interrupted reset to kafka left an untagged pulsar id and a tagged kafka one.
	c.AddCheckpoint("p1", kafka)
	c.Add("p1", commonpb.WALName_Unknown, pulsarID)
	c.Add("p1", kafka, kafkaID)
	// p2: no checkpoint in the map; AddCheckpoint names its WAL for the positions after it.
	c.AddCheckpoint("p2", kafka)
	c.Add("p2", commonpb.WALName_Unknown, (msgid.OffsetID{Of: kafka, Offset: -2}).Bytes())
	// p3: no checkpoint at all.
	c.Add("p3", commonpb.WALName_Unknown, kafkaID)

	rep := c.Report()
	require.Len(t, rep, 4)
	assert.Equal(t, models.PChannelWALs{PChannel: "p0", CheckpointWAL: "pulsar", Positions: map[string]int64{"pulsar": 3}}, rep[0])
	assert.Equal(t, models.PChannelWALs{PChannel: "p1", CheckpointWAL: "kafka", Positions: map[string]int64{"kafka": 2, "undecodable as kafka": 1}, Split: true}, rep[1])
	assert.Equal(t, models.PChannelWALs{PChannel: "p2", CheckpointWAL: "kafka", Positions: map[string]int64{"kafka": 2}}, rep[2], "kafka -2 decodes as kafka")
	assert.Equal(t, models.PChannelWALs{PChannel: "p3", CheckpointWAL: models.NoCheckpoint, Positions: map[string]int64{"unknown": 1}}, rep[3])
	assert.Equal(t, []string{"p1"}, c.Split())

	assert.True(t, c.OnlyOn("p0", pulsar))
	assert.False(t, c.OnlyOn("p0", kafka))
	assert.False(t, c.OnlyOn("p1", kafka), "a split pchannel is not on one WAL")
	assert.True(t, c.OnlyOn("p2", kafka))
	assert.True(t, c.OnlyOn("nothing", kafka), "a pchannel with nothing counted is on no other WAL")

	// A tagged position counts for its tag whatever its bytes, and the
	// checkpoint counts once it is added.
	d := models.NewWALCensus(nil)
	d.Add("q", commonpb.WALName_WoodPecker, []byte{0xff})
	d.AddCheckpoint("q", pulsar)
	assert.Equal(t, map[string]int64{"woodpecker": 1, "pulsar": 1}, d.PChannel("q").Positions)
	assert.True(t, d.PChannel("q").Split)
	assert.Equal(t, "pulsar", d.PChannel("q").CheckpointWAL)
}

// protobuf-go reads a known field with another wire type as an unknown field,
// as Milvus does for the sample's old field-6 varint: heron counts it unknown.
func TestWrongWireTypeIsUnknownAsInProto(t *testing.T) {
	b := (&wire.Builder{}).Varint(1, 7).Build() // channel_name (a string) as a varint
	var p msgpb.MsgPosition
	require.NoError(t, proto.Unmarshal(b, &p))
	assert.Equal(t, "", p.GetChannelName())
	assert.NotEmpty(t, p.ProtoReflect().GetUnknown())

	cp := sample.Checkpoint{ID: sample.ID(commonpb.WALName_Pulsar, 1), TimeTick: 5, Extra: []byte{0x30, 0x07}}.Encode()
	d, err := models.DecodeWALCheckpoint(cp)
	require.NoError(t, err)
	assert.Nil(t, d.AlterWAL)
	assert.Equal(t, 1, d.UnknownFields)
	assert.Equal(t, []int32{6}, d.UnknownFieldNumbers)
	kept, err := models.ClearAlterWALState(cp)
	require.NoError(t, err)
	assert.Equal(t, cp, kept, "a field 6 that is not a message is not alter_wal_state: kept")
}

func alterWAL(target commonpb.WALName, stage models.AlterWALStage) []byte {
	entry := (&wire.Builder{}).String(1, "mq.type").String(2, msgid.Name(target)).Build()
	return (&wire.Builder{}).Varint(1, uint64(target)).Varint(2, 99).Message(3, entry).Varint(4, uint64(stage)).Build()
}

func TestAlterWALStateDecodeAndClear(t *testing.T) {
	later := (&wire.Builder{}).Varint(7, 3).String(9, "term").Build()
	for _, stage := range []models.AlterWALStage{models.AlterWALStageNone, models.AlterWALStageFlushing, models.AlterWALStageAdvanceCheckpoint} {
		base := sample.Checkpoint{ID: sample.ID(commonpb.WALName_Pulsar, 1), TimeTick: 1 << 40, RecoveryMagic: 1, Replicate: true}.Encode()
		field6 := (&wire.Builder{}).Message(6, alterWAL(commonpb.WALName_Kafka, stage)).Build()
		orig := append(append(append([]byte{}, base...), field6...), later...)
		cp, err := models.DecodeWALCheckpoint(orig)
		require.NoError(t, err)
		require.NotNil(t, cp.AlterWAL, stage.String())
		assert.Equal(t, commonpb.WALName_Kafka, cp.AlterWAL.Target)
		assert.Equal(t, stage, cp.AlterWAL.Stage)
		assert.Equal(t, uint64(99), cp.AlterWAL.TimeTick)
		assert.Equal(t, map[string]string{"mq.type": "kafka"}, cp.AlterWAL.Configs)
		assert.Equal(t, stage != models.AlterWALStageNone, cp.AlterWAL.Interrupted())
		assert.Equal(t, "online switch to kafka, stage "+stage.String(), cp.AlterWAL.Describe())
		assert.Equal(t, []int32{9}, cp.UnknownFieldNumbers, "fields above 8 are reported")
		assert.Equal(t, 1, cp.UnknownFields)
		assert.Equal(t, []any{true, int64(3)}, []any{cp.HasTerm, cp.Term}, "master's term (7) is known")

		cleared, err := models.ClearAlterWALState(orig)
		require.NoError(t, err)
		assert.Equal(t, append(append([]byte{}, base...), later...), cleared, "only field 6 goes; every other byte stays in place")
		after, err := models.DecodeWALCheckpoint(cleared)
		require.NoError(t, err)
		assert.Nil(t, after.AlterWAL)
		assert.True(t, after.HasReplicateCheckpoint)
		assert.Equal(t, []int32{9}, after.UnknownFieldNumbers)

		// The id rewrite keeps alter_wal_state: clearing it is its own step.
		moved, err := models.RewriteWALCheckpoint(orig, msgid.WoodpeckerID{})
		require.NoError(t, err)
		assert.Equal(t, fieldsExcept(t, orig, 1), fieldsExcept(t, moved, 1))
	}
	assert.Equal(t, "STAGE_7", models.AlterWALStage(7).String())

	bad := (&wire.Builder{}).Message(6, []byte{0x0a, 0xff}).Build()
	_, err := models.DecodeWALCheckpoint(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "alter_wal_state")
	_, err = models.ClearAlterWALState([]byte{0x0a, 0xff})
	assert.Error(t, err)
}

func TestPositionAtEarliest(t *testing.T) {
	kafka := commonpb.WALName_Kafka
	minus2 := msgid.OffsetID{Of: kafka, Offset: -2}
	for _, c := range []struct {
		name string
		pos  *msgpb.MsgPosition
		wal  commonpb.WALName
		want bool
	}{
		{"kafka 0 tagged", &msgpb.MsgPosition{MsgID: msgid.OffsetID{Of: kafka}.Bytes(), WALName: kafka}, kafka, true},
		{"kafka -2 tagged (Milvus's switch)", &msgpb.MsgPosition{MsgID: minus2.Bytes(), WALName: kafka}, kafka, true},
		{"kafka -2 untagged", &msgpb.MsgPosition{MsgID: minus2.Bytes()}, kafka, false},
		{"kafka -1 tagged", &msgpb.MsgPosition{MsgID: msgid.OffsetID{Of: kafka, Offset: -1}.Bytes(), WALName: kafka}, kafka, false},
		{"rocksmq -1 tagged", &msgpb.MsgPosition{MsgID: msgid.OffsetID{Of: commonpb.WALName_RocksMQ, Offset: -1}.Bytes(), WALName: commonpb.WALName_RocksMQ}, commonpb.WALName_RocksMQ, true},
		{"kafka 0 against rocksmq", &msgpb.MsgPosition{MsgID: msgid.OffsetID{Of: kafka}.Bytes(), WALName: kafka}, commonpb.WALName_RocksMQ, false},
		// Woodpecker's empty form reads as {0,0} but a reset rewrites it to the explicit one.
		{"woodpecker empty tagged", &msgpb.MsgPosition{WALName: commonpb.WALName_WoodPecker}, commonpb.WALName_WoodPecker, false},
		{"woodpecker explicit tagged", &msgpb.MsgPosition{MsgID: []byte{8, 0, 16, 0}, WALName: commonpb.WALName_WoodPecker}, commonpb.WALName_WoodPecker, true},
		{"woodpecker explicit untagged", &msgpb.MsgPosition{MsgID: []byte{8, 0, 16, 0}}, commonpb.WALName_WoodPecker, false},
		{"pulsar earliest tagged", &msgpb.MsgPosition{MsgID: msgid.PulsarEarliest.Bytes(), WALName: commonpb.WALName_Pulsar}, commonpb.WALName_Pulsar, true},
		{"nil", nil, kafka, false},
	} {
		assert.Equal(t, c.want, models.PositionAtEarliest(c.pos, c.wal), c.name)
		if c.pos != nil {
			b, err := proto.Marshal(c.pos)
			require.NoError(t, err)
			seg := (&wire.Builder{}).String(4, "p_1v0").Message(10, b).Build()
			v, err := models.ViewSegment(seg)
			require.NoError(t, err)
			assert.Equal(t, c.want, v.DML.AtEarliest(c.wal), c.name)
			assert.False(t, v.Start.AtEarliest(c.wal), "an absent position is at no id")
		}
	}
}

func TestWALCensusSegmentsAndCollections(t *testing.T) {
	kafka := commonpb.WALName_Kafka
	c := models.NewWALCensus(map[string]commonpb.WALName{"p_0": kafka, "p_1": kafka})
	seg := sample.Segment{ID: 1, Channel: "p_0_9v0", State: commonpb.SegmentState_Flushed,
		Start: sample.Position("p_0_9v0", sample.ID(kafka, 1), 1, 0), DML: sample.Position("p_0_9v0", msgid.PulsarEarliest, 2, 0)}
	v, err := models.ViewSegment(seg.Encode())
	require.NoError(t, err)
	c.AddSegment(v)
	noChannel := sample.Segment{ID: 2, Start: sample.Position("", sample.ID(kafka, 1), 1, commonpb.WALName_Pulsar)}
	v, err = models.ViewSegment(noChannel.Encode())
	require.NoError(t, err)
	c.AddSegment(v)
	c.AddCollection(&models.CollectionInfo{StartPositions: []models.StartPosition{
		{Key: "p_0", Data: sample.ID(kafka, 3).Bytes()}, {Key: "p_1_9v1", Data: sample.ID(kafka, 4).Bytes()}}})
	assert.Equal(t, map[string]int64{"kafka": 2, "undecodable as kafka": 1}, c.PChannel("p_0").Positions)
	assert.Equal(t, map[string]int64{"kafka": 1}, c.PChannel("p_1").Positions, "a start position keyed by vchannel counts for its pchannel")
	assert.Len(t, c.Report(), 2, "a segment without insert_channel counts nowhere")
}

// Any input: decoding never panics, and clearing alter_wal_state removes only
// field-6 messages, keeping every other field's bytes in order.
func FuzzClearAlterWALState(f *testing.F) {
	f.Add(sample.Checkpoint{ID: sample.ID(commonpb.WALName_Pulsar, 1), TimeTick: 5, Replicate: true, Extra: sample.LaterCheckpointField}.Encode())
	f.Add(append(sample.Checkpoint{ID: sample.ID(commonpb.WALName_Kafka, 1)}.Encode(),
		(&wire.Builder{}).Message(6, alterWAL(commonpb.WALName_Kafka, models.AlterWALStageFlushing)).Varint(6, 1).Build()...))
	f.Add([]byte{0x32, 0x02, 0x0a, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, derr := models.DecodeWALCheckpoint(b)
		out, err := models.ClearAlterWALState(b)
		if err != nil {
			if _, perr := wire.Parse(b); perr == nil {
				t.Fatalf("clear refused a parseable value: %v", err)
			}
			return
		}
		in, _ := wire.Parse(b)
		kept, _ := wire.Parse(out)
		var want [][]byte
		for _, fl := range in.Fields {
			if fl.Num != 6 || fl.Type != protowire.BytesType {
				want = append(want, fl.Raw)
			}
		}
		var got [][]byte
		for _, fl := range kept.Fields {
			got = append(got, fl.Raw)
		}
		require.Equal(t, want, got)
		if derr == nil {
			cp, err := models.DecodeWALCheckpoint(out)
			require.NoError(t, err, "a decodable checkpoint stays decodable once cleared")
			require.Nil(t, cp.AlterWAL)
		}
	})
}
