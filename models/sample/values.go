// Package sample builds the values of a realistic Milvus 2.6 instance, with
// message ids encoded for a chosen WAL, and seeds them into etcd. The demo and
// the tests share it.
package sample

import (
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/schemapb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// TSO builds a Milvus hybrid timestamp: physical milliseconds shifted by 18 bits.
func TSO(t time.Time, logical uint64) uint64 {
	return uint64(t.UnixMilli())<<18 | logical
}

// Base is the physical time of the sample's timestamps (fixed, so seeds repeat).
var Base = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// ID returns a non-earliest message id of wal, distinct for each n.
func ID(wal commonpb.WALName, n int64) msgid.ID {
	switch wal {
	case commonpb.WALName_Pulsar:
		return msgid.PulsarID{Ledger: 100 + n, Entry: 5 + n, Partition: 0, Batch: -1}
	case commonpb.WALName_WoodPecker:
		return msgid.WoodpeckerID{Segment: 3 + n, Entry: 12 + n}
	default:
		return msgid.OffsetID{Of: wal, Offset: 1000 + n}
	}
}

// Position encodes a msgpb.MsgPosition. walName may be Unknown, as most
// positions stored by Milvus 2.6 are.
func Position(channel string, id msgid.ID, ts uint64, walName commonpb.WALName) []byte {
	b, err := proto.Marshal(&msgpb.MsgPosition{ChannelName: channel, MsgID: id.Bytes(), Timestamp: ts, WALName: walName})
	if err != nil {
		panic(err)
	}
	return b
}

// DroppedChannelCP is datacoord's marker of a dropped vchannel.
func DroppedChannelCP(channel string) []byte {
	b, _ := proto.Marshal(&msgpb.MsgPosition{ChannelName: channel, Timestamp: ^uint64(0)})
	return b
}

// Checkpoint is a streamingpb.WALCheckpoint to encode.
type Checkpoint struct {
	ID            msgid.ID
	TimeTick      uint64
	RecoveryMagic int64
	// Replicate adds a replicate_checkpoint in a remote cluster's WAL.
	Replicate bool
	// Extra is appended verbatim: fields of later Milvus versions.
	Extra []byte
}

// Encode returns the checkpoint's protobuf bytes.
func (c Checkpoint) Encode() []byte {
	mid, _ := proto.Marshal(&commonpb.MessageID{Id: c.ID.Text(), WALName: c.ID.WAL()})
	var b wire.Builder
	b.Message(1, mid).Varint(2, c.TimeTick).Varint(3, uint64(c.RecoveryMagic))
	if c.Replicate {
		remote, _ := proto.Marshal(&commonpb.MessageID{Id: msgid.PulsarID{Ledger: 77, Entry: 9, Partition: 0, Batch: -1}.Text(), WALName: commonpb.WALName_Pulsar})
		rc, _ := proto.Marshal(&commonpb.ReplicateConfiguration{Clusters: []*commonpb.MilvusCluster{{ClusterId: "by-dev-primary"}, {ClusterId: "by-dev-standby"}}})
		var cp wire.Builder
		cp.String(1, "by-dev-primary").String(2, "primary-rootcoord-dml_2").Message(3, remote).Varint(4, c.TimeTick-5)
		b.Message(4, rc).Message(5, cp.Build())
	}
	return b.Raw(c.Extra).Build()
}

// LaterCheckpointField is a WALCheckpoint field of a Milvus version newer
// than heron knows (field 20, varint 7), for Checkpoint.Extra: every rewrite
// must keep it. Field 6 is alter_wal_state since Milvus 2.6.14; 7 and 8 are
// master's term and control_checkpoint_time_tick.
var LaterCheckpointField = []byte{0xa0, 0x01, 0x07}

// Segment is a datapb.SegmentInfo to encode.
type Segment struct {
	ID, Collection, Partition int64
	Channel                   string
	Rows                      int64
	State                     commonpb.SegmentState
	Start, DML                []byte
	Importing                 bool
	Level                     int32
	// Extra is appended verbatim (fields heron does not know).
	Extra []byte
}

// Encode returns the segment's protobuf bytes, with a binlog and storage version
// beside the positions, as Milvus writes them.
func (s Segment) Encode() []byte {
	var binlog wire.Builder
	binlog.Varint(1, 101).Message(2, (&wire.Builder{}).Varint(1, uint64(s.Rows)).String(5, "files/insert_log/1").Build())
	var b wire.Builder
	b.Varint(1, uint64(s.ID)).Varint(2, uint64(s.Collection)).Varint(3, uint64(s.Partition)).
		String(4, s.Channel).Varint(5, uint64(s.Rows)).Varint(6, uint64(s.State)).Varint(7, 1<<30).
		Bytes(9, s.Start).Bytes(10, s.DML).Message(11, binlog.Build())
	if s.Importing {
		b.Varint(17, 1)
	}
	return b.Varint(20, uint64(s.Level)).Varint(21, 2).Raw(s.Extra).Build()
}

// Collection is an etcdpb.CollectionInfo to encode.
type Collection struct {
	ID, DB     int64
	Name       string
	CreateTime uint64
	VChannels  []string
	PChannels  []string
	// Starts are the start positions keyed by pchannel, in order.
	Starts [][]byte
	State  uint64
}

// Encode returns the collection's protobuf bytes with a real schema.
func (c Collection) Encode() []byte {
	schema, _ := proto.Marshal(&schemapb.CollectionSchema{
		Name: c.Name,
		Fields: []*schemapb.FieldSchema{
			{FieldID: 100, Name: "id", IsPrimaryKey: true, DataType: schemapb.DataType_Int64},
			{FieldID: 101, Name: "vector", DataType: schemapb.DataType_FloatVector,
				TypeParams: []*commonpb.KeyValuePair{{Key: "dim", Value: "128"}}},
		},
	})
	var b wire.Builder
	b.Varint(1, uint64(c.ID)).Message(2, schema).Varint(3, c.CreateTime)
	for _, v := range c.VChannels {
		b.String(7, v)
	}
	for _, p := range c.PChannels {
		b.String(8, p)
	}
	b.Varint(10, uint64(len(c.VChannels)))
	for i, p := range c.PChannels {
		kd, _ := proto.Marshal(&commonpb.KeyDataPair{Key: p, Data: c.Starts[i]})
		b.Message(11, kd)
	}
	b.Varint(12, 2).Varint(13, c.State)
	props, _ := proto.Marshal(&commonpb.KeyValuePair{Key: "collection.ttl.seconds", Value: "0"})
	return b.Message(14, props).Varint(15, uint64(c.DB)).Build()
}

// Target encodes a zstd-compressed querypb.CollectionTarget with one channel
// target per vchannel, holding seek and delete-checkpoint positions.
func Target(collection int64, vchannels []string, positions [][]byte) []byte {
	var t wire.Builder
	t.Varint(1, uint64(collection))
	for i, v := range vchannels {
		var segment wire.Builder
		segment.Varint(1, uint64(collection*10+1)).Varint(2, 1000)
		var part wire.Builder
		part.Varint(1, uint64(collection+1)).Message(2, segment.Build())
		var ct wire.Builder
		ct.String(1, v).Bytes(2, protowire.AppendVarint(nil, 9001)).Message(4, part.Build()).
			Bytes(5, positions[i]).Bytes(6, positions[i])
		t.Message(2, ct.Build())
	}
	return models.CompressTarget(t.Varint(3, 7).Build())
}

// BroadcastTask encodes a streamingpb.BroadcastTask in the given state.
func BroadcastTask(state int32) []byte {
	var msg wire.Builder
	msg.Bytes(1, []byte("create-collection-payload")).Message(2, nil)
	var b wire.Builder
	return b.Message(1, msg.Build()).Varint(2, uint64(state)).Build()
}

// PChannel encodes a streamingpb.PChannelMeta.
func PChannel(name string, term int64) []byte {
	var ch wire.Builder
	ch.String(1, name).Varint(2, uint64(term))
	var b wire.Builder
	return b.Message(1, ch.Build()).Varint(3, 2).Build()
}

// VChannelMeta encodes a streamingpb.VChannelMeta (no MQ ids).
func VChannelMeta(vchannel string, collection int64) []byte {
	var coll wire.Builder
	coll.Varint(1, uint64(collection))
	var b wire.Builder
	return b.String(1, vchannel).Varint(2, 1).Message(3, coll.Build()).Build()
}

// Schema encodes a vchannel schema timeline entry.
func Schema(name string) []byte {
	s, _ := proto.Marshal(&schemapb.CollectionSchema{Name: name})
	var b wire.Builder
	return b.Message(1, s).Varint(2, 1).Build()
}
