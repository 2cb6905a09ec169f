package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"

	wppb "github.com/zilliztech/woodpecker/proto"
	wplog "github.com/zilliztech/woodpecker/woodpecker/log"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/msgpb"
	mqwp "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/wp"
	"github.com/milvus-io/milvus/pkg/v2/streaming/util/message"
	walwp "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/wp"
)

// wpEarliestReading is what one reader of Milvus 2.6 (pkg v2.6.23) makes of
// one form of woodpecker's earliest id {0,0}: Milvus's own empty form (what
// log.LogMessageId.Serialize and the online WAL switch write) and the
// explicit form with both fields written (what heron writes).
type wpEarliestReading struct {
	Form     string `json:"form"`
	BytesHex string `json:"bytes_hex"`
	String   string `json:"string"`
	// Bytes readers (MsgPosition.msgID, KeyDataPair.data).
	DeserializeBytes   string `json:"deserialize_bytes"`    // mqwrapper/wp.DeserializeWoodpeckerMsgID -> seg/entry
	AtEarliestPosition bool   `json:"at_earliest_position"` // mqwrapper/wp woodpeckerID.AtEarliestPosition
	EqualsEarliest     bool   `json:"equals_earliest"`      // mqwrapper/wp NewWoodpeckerID(EarliestLogMessageID()).Equal(bytes)
	// MsgStream Seek (mq/msgstream/mq_msgstream.go:967) refuses a position
	// whose msgID has length 0: "when msgID's length equal to 0, please use
	// AsConsumer interface".
	MsgStreamSeekRefuses bool `json:"msgstream_seek_refuses"`
	// Text readers (commonpb.MessageID.id).
	UnmarshalString string `json:"unmarshal_string"` // impls/wp.UnmarshalMessageID(s).String()
	UnmarshalProto  string `json:"unmarshal_proto"`  // message.UnmarshalMessageID(&MessageID{Id: s, WALName: WoodPecker}).String()
	EQEarliest      bool   `json:"eq_earliest"`      // that id .EQ(impls/wp.NewWpID(EarliestLogMessageID()))
	// ReadFrom is the position impls/wp walImpl.Read opens a reader at for
	// DeliverPolicy StartFrom this id (wal.go:57-68 copies SegmentId and
	// EntryId of the unmarshaled id into `from`).
	ReadFrom   string `json:"read_from"`
	ProducedBy string `json:"produced_by"`
}

// explicitWoodpeckerEarliest is {0,0} with both fields written, built with
// protowire from the field numbers of woodpecker's own LogMessageIdData
// (proto/logstore.proto: segId = 1, entryId = 2) as its descriptor gives them.
func explicitWoodpeckerEarliest() []byte {
	fields := (&wppb.LogMessageIdData{}).ProtoReflect().Descriptor().Fields()
	seg, entry := fields.ByName("segId"), fields.ByName("entryId")
	check(seg != nil && entry != nil, "LogMessageIdData has segId and entryId")
	var b []byte
	b = protowire.AppendTag(b, seg.Number(), protowire.VarintType)
	b = protowire.AppendVarint(b, 0)
	b = protowire.AppendTag(b, entry.Number(), protowire.VarintType)
	b = protowire.AppendVarint(b, 0)
	return b
}

func wpEarliestReadings() []wpEarliestReading {
	earliest := wplog.EarliestLogMessageID()
	empty := mqwp.NewWoodpeckerID(&earliest).Serialize()
	check(len(empty) == 0, "Milvus's woodpecker earliest is zero bytes")
	forms := []struct {
		name, how string
		b         []byte
	}{
		{"empty", pkgMQ + "wp.NewWoodpeckerID(&log.EarliestLogMessageID()).Serialize()", empty},
		{"explicit", "protowire: field segId varint 0, field entryId varint 0 (numbers from woodpecker proto.LogMessageIdData's descriptor)", explicitWoodpeckerEarliest()},
	}
	var out []wpEarliestReading
	for _, f := range forms {
		s := base64.StdEncoding.EncodeToString(f.b)
		r := wpEarliestReading{Form: f.name, BytesHex: hex.EncodeToString(f.b), String: s,
			ProducedBy: "bytes: " + f.how + "; string: standard base64 of the bytes (impls/wp wpID.Marshal's encoding)"}

		id, err := mqwp.DeserializeWoodpeckerMsgID(f.b)
		must(err)
		r.DeserializeBytes = fmt.Sprintf("%d/%d", id.SegmentId, id.EntryId)
		r.AtEarliestPosition = mqwp.NewWoodpeckerID(id).AtEarliestPosition()
		eq, err := mqwp.NewWoodpeckerID(&earliest).Equal(f.b)
		must(err)
		r.EqualsEarliest = eq
		r.MsgStreamSeekRefuses = len((&msgpb.MsgPosition{MsgID: f.b}).GetMsgID()) == 0

		sid, err := walwp.UnmarshalMessageID(s)
		must(err)
		r.UnmarshalString = sid.String()
		pid, err := message.UnmarshalMessageID(&commonpb.MessageID{Id: s, WALName: commonpb.WALName_WoodPecker})
		must(err)
		r.UnmarshalProto = pid.String()
		r.EQEarliest = pid.EQ(walwp.NewWpID(&earliest))
		w := sid.(interface{ WoodpeckerID() *wplog.LogMessageId }).WoodpeckerID()
		from := wplog.LatestLogMessageID()
		from.SegmentId, from.EntryId = w.SegmentId, w.EntryId
		r.ReadFrom = fmt.Sprintf("%d/%d", from.SegmentId, from.EntryId)
		out = append(out, r)
	}
	return out
}

// explicitWoodpeckerMessageID is the explicit {0,0} as impls/wp writes a
// MessageID: the id read back by UnmarshalMessageID, then IntoProto with the
// text of the explicit bytes (IntoProto would re-serialize it empty).
func explicitWoodpeckerMessageID() *commonpb.MessageID {
	s := base64.StdEncoding.EncodeToString(explicitWoodpeckerEarliest())
	id, err := walwp.UnmarshalMessageID(s)
	must(err)
	pb := id.IntoProto()
	check(pb.GetWALName() == commonpb.WALName_WoodPecker && pb.GetId() == "", "IntoProto re-serializes {0,0} empty")
	pb.Id = s
	return pb
}
