package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"sort"

	"github.com/apache/pulsar-client-go/pulsar"
	rawkafka "github.com/confluentinc/confluent-kafka-go/kafka"
	"github.com/klauspost/compress/zstd"
	wplog "github.com/zilliztech/woodpecker/woodpecker/log"
	"google.golang.org/protobuf/proto"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/msgpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	mqkafka "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/kafka"
	mqpulsar "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/pulsar"
	mqwp "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/wp"
	"github.com/milvus-io/milvus/pkg/v2/proto/datapb"
	"github.com/milvus-io/milvus/pkg/v2/proto/etcdpb"
	"github.com/milvus-io/milvus/pkg/v2/proto/messagespb"
	"github.com/milvus-io/milvus/pkg/v2/proto/querypb"
	"github.com/milvus-io/milvus/pkg/v2/proto/streamingpb"
	"github.com/milvus-io/milvus/pkg/v2/streaming/util/message"
	walkafka "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/kafka"
	walpulsar "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/pulsar"
	walwp "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/wp"
	"github.com/milvus-io/milvus/pkg/v2/util/compressor"
)

type protoVector struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Hex  string `json:"hex"`
	// Compression is "zstd" when hex holds the zstd-compressed marshaled message.
	Compression string          `json:"compression,omitempty"`
	Fields      json.RawMessage `json:"fields"`
	ProducedBy  string          `json:"produced_by"`
	Note        string          `json:"note,omitempty"`
}

const marshaledBy = "proto.MarshalOptions{Deterministic: true}.Marshal of the Milvus generated type"

func pv(typ, name string, m proto.Message, note string) protoVector {
	b := marshal(m)
	// Self-check: the bytes decode back into an equal message.
	back := m.ProtoReflect().New().Interface()
	must(proto.Unmarshal(b, back))
	check(proto.Equal(m, back), "%s/%s does not round trip", typ, name)
	return protoVector{Type: typ, Name: name, Hex: hex.EncodeToString(b), Fields: fieldsJSON(m), ProducedBy: marshaledBy, Note: note}
}

// Names used throughout: a collection with two shards on two pchannels.
const (
	collID int64  = 451234567890123456
	partID int64  = 451234567890123457
	segID  int64  = 451234567890123460
	segID2 int64  = 451234567890123461
	dbID   int64  = 1
	pch0          = "by-dev-rootcoord-dml_0"
	pch1          = "by-dev-rootcoord-dml_1"
	vch0          = "by-dev-rootcoord-dml_0_451234567890123456v0"
	vch1          = "by-dev-rootcoord-dml_1_451234567890123456v1"
	ts1    uint64 = 456789012345671680
	ts2    uint64 = 456789012607815680
	ts3    uint64 = 456789015229251584
)

// Message ids, each produced by the Milvus functions listed in msgid.json.
func pulsarBytes(l, e int64, b, p int32) []byte {
	return mqpulsar.NewPulsarID(pulsar.NewMessageID(l, e, b, p)).Serialize()
}

func pulsarMsgID(l, e int64, b, p int32) *commonpb.MessageID {
	return walpulsar.NewPulsarID(pulsar.NewMessageID(l, e, b, p)).IntoProto()
}

func pos(ch string, id []byte, ts uint64, wal commonpb.WALName) *msgpb.MsgPosition {
	return &msgpb.MsgPosition{ChannelName: ch, MsgID: id, MsgGroup: "by-dev-dataNode-3", Timestamp: ts, WALName: wal}
}

func protoVectors() []protoVector {
	var out []protoVector
	out = append(out, msgPositionVectors()...)
	out = append(out, messageIDVectors()...)
	out = append(out, segmentInfoVectors()...)
	out = append(out, collectionInfoVectors()...)
	out = append(out, walCheckpointVectors()...)
	out = append(out, broadcastTaskVectors()...)
	out = append(out, streamingMetaVectors()...)
	out = append(out, collectionTargetVectors()...)
	out = append(out, channelWatchVectors()...)
	return out
}

func msgPositionVectors() []protoVector {
	wpEarliest := wplog.EarliestLogMessageID()
	t := "msgpb.MsgPosition"
	return []protoVector{
		pv(t, "pulsar", pos(vch0, pulsarBytes(100, 5, -1, 0), ts1, commonpb.WALName_Pulsar), "msgID: pulsar l100_e5_p0_bm1"),
		pv(t, "pulsar_wal_name_unknown", pos(vch0, pulsarBytes(100, 5, -1, 0), ts1, commonpb.WALName_Unknown),
			"WAL_name 0, as most stored positions are"),
		pv(t, "pulsar_earliest", pos(vch0, mqpulsar.NewPulsarID(pulsar.EarliestMessageID()).Serialize(), ts1, commonpb.WALName_Pulsar), ""),
		pv(t, "kafka_offset_0", pos(vch0, mqkafka.NewKafkaID(0).Serialize(), ts1, commonpb.WALName_Kafka), ""),
		pv(t, "kafka_offset_1005", pos(vch0, mqkafka.NewKafkaID(1005).Serialize(), ts1, commonpb.WALName_Kafka), ""),
		pv(t, "rocksmq_id_0", pos(vch0, mqkafka.SerializeKafkaID(0), ts1, commonpb.WALName_RocksMQ),
			"msgID from mqwrapper/kafka.SerializeKafkaID (same body as rocksmq server.SerializeRmqID)"),
		pv(t, "woodpecker_earliest", pos(vch0, mqwp.NewWoodpeckerID(&wpEarliest).Serialize(), ts1, commonpb.WALName_WoodPecker),
			"msgID is empty: only WAL_name marks it"),
		pv(t, "woodpecker_earliest_explicit", pos(vch0, explicitWoodpeckerEarliest(), ts1, commonpb.WALName_WoodPecker),
			"msgID {0,0} with both fields written (see wp_earliest.json): what heron writes"),
		pv(t, "woodpecker_s3_e12", pos(vch0, mqwp.NewWoodpeckerID(&wplog.LogMessageId{SegmentId: 3, EntryId: 12}).Serialize(), ts1, commonpb.WALName_WoodPecker), ""),
		pv(t, "dropped_channel_cp", &msgpb.MsgPosition{ChannelName: vch1, Timestamp: math.MaxUint64},
			"a dropped vchannel's channel-cp: empty msgID, timestamp MaxUint64"),
	}
}

func messageIDVectors() []protoVector {
	wpEarliest := wplog.EarliestLogMessageID()
	t := "commonpb.MessageID"
	note := "from the walimpl id's IntoProto()"
	return []protoVector{
		pv(t, "pulsar_earliest", walpulsar.NewPulsarID(pulsar.EarliestMessageID()).IntoProto(), note),
		pv(t, "pulsar_l100_e5_p0_bm1", pulsarMsgID(100, 5, -1, 0), note),
		pv(t, "kafka_offset_0", walkafka.NewKafkaID(0).IntoProto(), note),
		pv(t, "kafka_offset_1005", walkafka.NewKafkaID(1005).IntoProto(), note),
		pv(t, "kafka_offset_beginning_negative", walkafka.NewKafkaID(rawkafka.OffsetBeginning).IntoProto(), note),
		pv(t, "rocksmq_id_0", &commonpb.MessageID{Id: message.EncodeInt64(0), WALName: commonpb.WALName_RocksMQ},
			"id from message.EncodeInt64, the call inside impls/rmq rmqID.IntoProto (that package needs cgo rocksdb)"),
		pv(t, "woodpecker_earliest", walwp.NewWpID(&wpEarliest).IntoProto(), note+": id is empty, only WAL_name is on the wire"),
		pv(t, "woodpecker_s3_e12", walwp.NewWpID(&wplog.LogMessageId{SegmentId: 3, EntryId: 12}).IntoProto(), note),
	}
}

func segmentInfo(id int64, state commonpb.SegmentState, rows int64) *datapb.SegmentInfo {
	return &datapb.SegmentInfo{
		ID:            id,
		CollectionID:  collID,
		PartitionID:   partID,
		InsertChannel: vch0,
		NumOfRows:     rows,
		State:         state,
		StartPosition: pos(vch0, pulsarBytes(100, 5, -1, 0), ts1, commonpb.WALName_Unknown),
		DmlPosition:   pos(vch0, pulsarBytes(123456789, 42, -1, 0), ts2, commonpb.WALName_Unknown),
		Level:         datapb.SegmentLevel_L1,
		IsImporting:   false,
	}
}

func segmentInfoVectors() []protoVector {
	flushed := segmentInfo(segID, commonpb.SegmentState_Flushed, 3000)
	flushed.StorageVersion = 2
	flushed.Binlogs = []*datapb.FieldBinlog{{
		FieldID: 100,
		Binlogs: []*datapb.Binlog{{EntriesNum: 3000, TimestampFrom: ts1, TimestampTo: ts2, LogSize: 24000, LogID: 451234567890123470, MemorySize: 24000}},
	}}
	flushed.Statslogs = []*datapb.FieldBinlog{{
		FieldID: 100,
		Binlogs: []*datapb.Binlog{{EntriesNum: 3000, TimestampFrom: ts1, TimestampTo: ts2, LogSize: 512, LogID: 451234567890123471, MemorySize: 512}},
	}}
	flushed.IsSorted = true

	growing := segmentInfo(segID2, commonpb.SegmentState_Growing, 120)
	growing.DmlPosition = pos(vch0, pulsarBytes(123456789, 50, -1, 0), ts3, commonpb.WALName_Unknown)
	growing.IsCreatedByStreaming = true
	growing.StorageVersion = 2

	t := "datapb.SegmentInfo"
	return []protoVector{
		pv(t, "flushed", flushed, "start_position pulsar l100_e5_p0_bm1, dml_position pulsar l123456789_e42_p0_bm1"),
		pv(t, "growing", growing, "start_position pulsar l100_e5_p0_bm1, dml_position pulsar l123456789_e50_p0_bm1"),
	}
}

func collectionInfoVectors() []protoVector {
	ci := &etcdpb.CollectionInfo{
		ID: collID,
		Schema: &schemapb.CollectionSchema{
			Name: "heron_golden",
			Fields: []*schemapb.FieldSchema{
				{FieldID: 100, Name: "pk", IsPrimaryKey: true, DataType: schemapb.DataType_Int64},
				{FieldID: 101, Name: "vec", DataType: schemapb.DataType_FloatVector, TypeParams: []*commonpb.KeyValuePair{{Key: "dim", Value: "4"}}},
			},
		},
		CreateTime:           ts1,
		VirtualChannelNames:  []string{vch0, vch1},
		PhysicalChannelNames: []string{pch0, pch1},
		ShardsNum:            2,
		StartPositions: []*commonpb.KeyDataPair{
			{Key: pch0, Data: pulsarBytes(100, 5, -1, 0)},
			{Key: pch1, Data: pulsarBytes(101, 0, -1, 0)},
		},
		ConsistencyLevel: commonpb.ConsistencyLevel_Bounded,
		State:            etcdpb.CollectionState_CollectionCreated,
		Properties:       []*commonpb.KeyValuePair{{Key: "collection.ttl.seconds", Value: "0"}},
		DbId:             dbID,
	}
	return []protoVector{pv("etcdpb.CollectionInfo", "two_shards_pulsar", ci,
		"start_positions keyed by pchannel: pulsar l100_e5_p0_bm1 and l101_e0_p0_bm1")}
}

func walCheckpointVectors() []protoVector {
	wpEarliest := wplog.EarliestLogMessageID()
	t := "streamingpb.WALCheckpoint"
	minimal := &streamingpb.WALCheckpoint{
		MessageId:     pulsarMsgID(123456789, 42, -1, 0),
		TimeTick:      ts2,
		RecoveryMagic: 1,
	}
	all := &streamingpb.WALCheckpoint{
		MessageId:     pulsarMsgID(123456789, 42, -1, 0),
		TimeTick:      ts2,
		RecoveryMagic: 1,
		ReplicateConfig: &commonpb.ReplicateConfiguration{
			Clusters: []*commonpb.MilvusCluster{
				{ClusterId: "source-cluster", ConnectionParam: &commonpb.ConnectionParam{Uri: "http://source-cluster:19530"}, Pchannels: []string{"source-dml_0", "source-dml_1"}},
				{ClusterId: "by-dev", ConnectionParam: &commonpb.ConnectionParam{Uri: "http://localhost:19530"}, Pchannels: []string{pch0, pch1}},
			},
			CrossClusterTopology: []*commonpb.CrossClusterTopology{{SourceClusterId: "source-cluster", TargetClusterId: "by-dev"}},
		},
		ReplicateCheckpoint: &commonpb.ReplicateCheckpoint{
			ClusterId: "source-cluster",
			Pchannel:  "source-dml_0",
			MessageId: pulsarMsgID(777, 9, -1, 0),
			TimeTick:  ts1,
		},
		AlterWalState: &streamingpb.AlterWALState{
			TargetWalName: commonpb.WALName_Kafka,
			TimeTick:      ts3,
			Configs:       map[string]string{"mq.type": "kafka", "kafka.brokerList": "localhost:9092"},
			Stage:         streamingpb.AlterWALStage_ADVANCE_CHECKPOINT,
		},
	}
	withoutAlter := proto.Clone(all).(*streamingpb.WALCheckpoint)
	withoutAlter.AlterWalState = nil
	alter := func(target commonpb.WALName, stage streamingpb.AlterWALStage, configs map[string]string) *streamingpb.WALCheckpoint {
		cp := proto.Clone(minimal).(*streamingpb.WALCheckpoint)
		cp.AlterWalState = &streamingpb.AlterWALState{TargetWalName: target, TimeTick: ts3, Configs: configs, Stage: stage}
		return cp
	}
	return []protoVector{
		pv(t, "pulsar_minimal", minimal, "fields 1-3 only: message_id pulsar l123456789_e42_p0_bm1"),
		pv(t, "pulsar_all_fields_without_alter_wal_state", withoutAlter,
			"pulsar_all_fields with alter_wal_state unset: what removing field 6 from it must give"),
		pv(t, "pulsar_alter_wal_state_advance_checkpoint_kafka",
			alter(commonpb.WALName_Kafka, streamingpb.AlterWALStage_ADVANCE_CHECKPOINT, map[string]string{"mq.type": "kafka", "kafka.brokerList": "localhost:9092"}),
			"pulsar_minimal plus an interrupted online switch to kafka at stage ADVANCE_CHECKPOINT"),
		pv(t, "pulsar_alter_wal_state_flushing_kafka", alter(commonpb.WALName_Kafka, streamingpb.AlterWALStage_FLUSHING, nil),
			"pulsar_minimal plus an interrupted online switch to kafka at stage FLUSHING"),
		pv(t, "pulsar_alter_wal_state_none_woodpecker", alter(commonpb.WALName_WoodPecker, streamingpb.AlterWALStage_NONE, nil),
			"pulsar_minimal plus alter_wal_state at stage NONE (target woodpecker)"),
		pv(t, "kafka_offset_beginning", &streamingpb.WALCheckpoint{MessageId: walkafka.NewKafkaID(rawkafka.OffsetBeginning).IntoProto(), TimeTick: ts2, RecoveryMagic: 1},
			"message_id kafka -2 (OffsetBeginning), the kafka earliest of adaptor.MustGetEarliestMessageIDFromMQType that Milvus's online switch writes"),
		pv(t, "rocksmq_earliest_negative", &streamingpb.WALCheckpoint{MessageId: &commonpb.MessageID{Id: message.EncodeInt64(-1), WALName: commonpb.WALName_RocksMQ}, TimeTick: ts2, RecoveryMagic: 1},
			"message_id rocksmq -1 (rocksmq client.EarliestMessageID(), as MustGetEarliestMessageIDFromMQType returns it), text by message.EncodeInt64"),
		pv(t, "pulsar_all_fields", all, "every field of this version set, 1-6 (replicate_config 4, replicate_checkpoint 5, alter_wal_state 6); replicate_checkpoint.message_id is pulsar l777_e9_p0_bm1"),
		pv(t, "kafka_offset_0", &streamingpb.WALCheckpoint{MessageId: walkafka.NewKafkaID(0).IntoProto(), TimeTick: ts2, RecoveryMagic: 1}, ""),
		pv(t, "rocksmq_id_0", &streamingpb.WALCheckpoint{MessageId: &commonpb.MessageID{Id: message.EncodeInt64(0), WALName: commonpb.WALName_RocksMQ}, TimeTick: ts2, RecoveryMagic: 1}, ""),
		pv(t, "woodpecker_earliest", &streamingpb.WALCheckpoint{MessageId: walwp.NewWpID(&wpEarliest).IntoProto(), TimeTick: ts2, RecoveryMagic: 1},
			"message_id holds only WAL_name=WoodPecker"),
		pv(t, "woodpecker_earliest_explicit", &streamingpb.WALCheckpoint{MessageId: explicitWoodpeckerMessageID(), TimeTick: ts2, RecoveryMagic: 1},
			"message_id {0,0} with both fields written, as text (see wp_earliest.json): what heron writes"),
	}
}

// broadcastMessage builds a DropCollection broadcast message with Milvus's
// message builder. The builder collects the vchannels from a set (random
// order); they are sorted and the header re-encoded with message.EncodeProto
// so that the golden bytes are stable.
func broadcastMessage() *messagespb.Message {
	msg := message.NewDropCollectionMessageBuilderV1().
		WithHeader(&message.DropCollectionMessageHeader{CollectionId: collID, DbId: dbID}).
		WithBody(&msgpb.DropCollectionRequest{
			Base:           &commonpb.MsgBase{MsgType: commonpb.MsgType_DropCollection, Timestamp: ts3},
			DbName:         "default",
			CollectionName: "heron_golden",
			DbID:           dbID,
			CollectionID:   collID,
		}).
		WithBroadcast([]string{vch0, vch1}).
		MustBuildBroadcast().
		WithBroadcastID(42)
	pb := msg.IntoMessageProto()
	const bhKey = "_bh" // messageBroadcastHeader in message/properties.go
	bh := &messagespb.BroadcastHeader{}
	must(message.DecodeProto(pb.Properties[bhKey], bh))
	sort.Strings(bh.Vchannels)
	s, err := message.EncodeProto(bh)
	must(err)
	pb.Properties[bhKey] = s
	return pb
}

func broadcastTaskVectors() []protoVector {
	t := "streamingpb.BroadcastTask"
	pending := &streamingpb.BroadcastTask{
		Message: broadcastMessage(),
		State:   streamingpb.BroadcastTaskState_BROADCAST_TASK_STATE_PENDING,
		AckedCheckpoints: []*streamingpb.AckedCheckpoint{
			{MessageId: pulsarMsgID(123456789, 60, -1, 0), LastConfirmedMessageId: pulsarMsgID(123456789, 58, -1, 0), TimeTick: ts3},
			{},
		},
	}
	tomb := &streamingpb.BroadcastTask{
		Message: broadcastMessage(),
		State:   streamingpb.BroadcastTaskState_BROADCAST_TASK_STATE_TOMBSTONE,
		AckedCheckpoints: []*streamingpb.AckedCheckpoint{
			{MessageId: pulsarMsgID(123456789, 60, -1, 0), LastConfirmedMessageId: pulsarMsgID(123456789, 58, -1, 0), TimeTick: ts3},
			{MessageId: pulsarMsgID(123456790, 3, -1, 0), LastConfirmedMessageId: pulsarMsgID(123456790, 1, -1, 0), TimeTick: ts3},
		},
	}
	note := "message: DropCollection V1 broadcast to [" + vch0 + ", " + vch1 + "], broadcast id 42, built by pkg/v2/streaming/util/message.NewDropCollectionMessageBuilderV1"
	return []protoVector{
		pv(t, "pending", pending, note+"; first vchannel acked (pulsar l123456789_e60/e58), second not yet (empty AckedCheckpoint)"),
		pv(t, "tombstone", tomb, note+"; both vchannels acked"),
	}
}

func streamingMetaVectors() []protoVector {
	sam := &streamingpb.SegmentAssignmentMeta{
		CollectionId: collID,
		PartitionId:  partID,
		SegmentId:    segID2,
		Vchannel:     vch0,
		State:        streamingpb.SegmentAssignmentState_SEGMENT_ASSIGNMENT_STATE_GROWING,
		Stat: &streamingpb.SegmentAssignmentStat{
			MaxBinarySize: 1 << 30, ModifiedRows: 120, ModifiedBinarySize: 4096,
			CreateTimestamp: 1767225600, LastModifiedTimestamp: 1767225660, BinlogCounter: 1,
			CreateSegmentTimeTick: ts2, Level: datapb.SegmentLevel_L1, MaxRows: 1000000,
		},
		StorageVersion:     2,
		CheckpointTimeTick: ts3,
	}
	pcm := &streamingpb.PChannelMeta{
		Channel: &streamingpb.PChannelInfo{Name: pch0, Term: 3, AccessMode: streamingpb.PChannelAccessMode_PCHANNEL_ACCESS_READWRITE},
		Node:    &streamingpb.StreamingNodeInfo{ServerId: 7, Address: "10.0.0.7:22222"},
		State:   streamingpb.PChannelMetaState_PCHANNEL_META_STATE_ASSIGNED,
		Histories: []*streamingpb.PChannelAssignmentLog{
			{Term: 2, Node: &streamingpb.StreamingNodeInfo{ServerId: 5, Address: "10.0.0.5:22222"}, AccessMode: streamingpb.PChannelAccessMode_PCHANNEL_ACCESS_READWRITE},
		},
		LastAssignTimestampSeconds: 1767225600,
	}
	rpm := &streamingpb.ReplicatePChannelMeta{
		SourceChannelName: pch0,
		TargetChannelName: "target-dml_0",
		TargetCluster:     &commonpb.MilvusCluster{ClusterId: "target-cluster", ConnectionParam: &commonpb.ConnectionParam{Uri: "http://target-cluster:19530"}, Pchannels: []string{"target-dml_0"}},
		InitializedCheckpoint: &commonpb.ReplicateCheckpoint{
			ClusterId: "by-dev", Pchannel: pch0, MessageId: pulsarMsgID(123456789, 42, -1, 0), TimeTick: ts2,
		},
	}
	return []protoVector{
		pv("streamingpb.SegmentAssignmentMeta", "growing", sam, ""),
		pv("streamingpb.PChannelMeta", "assigned", pcm, "holds no MQ id"),
		pv("streamingpb.ReplicatePChannelMeta", "pulsar_initialized", rpm, "initialized_checkpoint.message_id: local pulsar l123456789_e42_p0_bm1"),
	}
}

func collectionTargetVectors() []protoVector {
	ct := &querypb.CollectionTarget{
		CollectionID: collID,
		ChannelTargets: []*querypb.ChannelTarget{{
			ChannelName:       vch0,
			DroppedSegmentIDs: []int64{451234567890123401},
			GrowingSegmentIDs: []int64{segID2},
			PartitionTargets: []*querypb.PartitionTarget{{
				PartitionID: partID,
				Segments:    []*querypb.SegmentTarget{{ID: segID, Level: datapb.SegmentLevel_L1, NumOfRows: 3000}},
			}},
			SeekPosition:     pos(vch0, pulsarBytes(123456789, 42, -1, 0), ts2, commonpb.WALName_Unknown),
			DeleteCheckpoint: pos(vch0, pulsarBytes(123456789, 40, -1, 0), ts2-1, commonpb.WALName_Unknown),
		}},
		Version: int64(ts3),
	}
	t := "querypb.CollectionTarget"
	raw := pv(t, "one_channel_pulsar", ct, "raw protobuf, uncompressed: seek_position pulsar l123456789_e42_p0_bm1, delete_checkpoint l123456789_e40_p0_bm1")
	rawBytes := marshal(ct)

	// (a) Milvus's pkg/v2/util/compressor.ZstdCompressBytes: klauspost zstd
	// EncodeAll with a default zstd.NewWriter(nil).
	a := compressor.ZstdCompressBytes(rawBytes, nil)
	// Same thing straight from klauspost, as a cross-check.
	enc, err := zstd.NewWriter(nil)
	must(err)
	check(bytes.Equal(a, enc.EncodeAll(rawBytes, nil)), "ZstdCompressBytes != EncodeAll default")
	must(enc.Close())

	// (b) Milvus's streaming compressor.ZstdCompress with SpeedBetterCompression.
	var bb bytes.Buffer
	must(compressor.ZstdCompress(bytes.NewReader(rawBytes), &bb, zstd.WithEncoderLevel(zstd.SpeedBetterCompression)))
	b := bb.Bytes()

	for _, c := range [][]byte{a, b} {
		d, err := compressor.ZstdDecompressBytes(c, nil)
		must(err)
		check(bytes.Equal(d, rawBytes), "zstd round trip")
	}
	za := raw
	za.Name, za.Hex, za.Compression = "one_channel_pulsar_zstd_default", hex.EncodeToString(a), "zstd"
	za.ProducedBy = marshaledBy + ", then github.com/milvus-io/milvus/pkg/v2/util/compressor.ZstdCompressBytes(raw, nil) (= klauspost zstd.NewWriter(nil).EncodeAll)"
	za.Note = "the same message zstd-compressed; querycoord's own compression call (internal/) was not available in the module cache, see README"
	zb := raw
	zb.Name, zb.Hex, zb.Compression = "one_channel_pulsar_zstd_better", hex.EncodeToString(b), "zstd"
	zb.ProducedBy = marshaledBy + ", then github.com/milvus-io/milvus/pkg/v2/util/compressor.ZstdCompress(r, w, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))"
	zb.Note = "the same message zstd-compressed with a streaming encoder at SpeedBetterCompression (believed, not verified here, to be the querycoord catalog's call)"
	if bytes.Equal(a, b) {
		zb.Note += "; for this small input both encoders give the same bytes"
	}
	return []protoVector{raw, za, zb}
}

func channelWatchVectors() []protoVector {
	cw := &datapb.ChannelWatchInfo{
		Vchan: &datapb.VchannelInfo{
			CollectionID:        collID,
			ChannelName:         vch0,
			SeekPosition:        pos(vch0, pulsarBytes(123456789, 42, -1, 0), ts2, commonpb.WALName_Unknown),
			UnflushedSegmentIds: []int64{segID2},
			FlushedSegmentIds:   []int64{segID},
			DeleteCheckpoint:    pos(vch0, pulsarBytes(123456789, 40, -1, 0), ts2-1, commonpb.WALName_Unknown),
		},
		StartTs: 1767225600,
		State:   datapb.ChannelWatchState_WatchSuccess,
		OpID:    451234567890123480,
	}
	return []protoVector{pv("datapb.ChannelWatchInfo", "watch_success_pulsar", cw,
		"vchan.seek_position pulsar l123456789_e42_p0_bm1, vchan.delete_checkpoint l123456789_e40_p0_bm1")}
}
