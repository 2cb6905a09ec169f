package models

import (
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Valid protobuf of another message type decodes without error: proto
// reads a known field that arrives with another wire type as an unknown
// field. Such a value at a key is not the message the key holds (a
// SegmentInfo where a MsgPosition belongs, or the reverse), and rewriting
// or keeping it would be a guess: the decoders refuse it, naming the field.

// shape is the wire type of each singular known field of a message (a
// repeated scalar may come packed or not, so it is left out).
type shape struct {
	name  string
	types map[protowire.Number]protowire.Type
}

// shapeOf is the shape of a generated message.
func shapeOf(md protoreflect.MessageDescriptor) shape {
	s := shape{name: string(md.Name()), types: map[protowire.Number]protowire.Type{}}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if t, ok := wireTypeOf(fd.Kind()); ok && (!fd.IsList() || t == protowire.BytesType) {
			s.types[fd.Number()] = t
		}
	}
	return s
}

func wireTypeOf(k protoreflect.Kind) (protowire.Type, bool) {
	switch k {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Int64Kind,
		protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.VarintType, true
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type, true
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type, true
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType, true
	}
	return 0, false
}

var (
	positionShape = shapeOf((&msgpb.MsgPosition{}).ProtoReflect().Descriptor())
	// segmentShape is datapb.SegmentInfo's fields heron reads (datapb is
	// Milvus's internal proto, not in milvus-proto), with the other
	// singular scalars: max_row_num 7, last_expire_time 8,
	// createdByCompaction 14, dropped_at 16, is_fake 18, compacted 19.
	segmentShape = shape{name: "SegmentInfo", types: map[protowire.Number]protowire.Type{
		segID: protowire.VarintType, segCollection: protowire.VarintType, segPartition: protowire.VarintType,
		segChannel: protowire.BytesType, segRows: protowire.VarintType, segState: protowire.VarintType,
		7: protowire.VarintType, 8: protowire.VarintType,
		segStartPosition: protowire.BytesType, segDMLPosition: protowire.BytesType,
		14: protowire.VarintType, 16: protowire.VarintType,
		segIsImporting: protowire.VarintType, 18: protowire.VarintType, 19: protowire.VarintType,
		segLevel: protowire.VarintType,
	}}
)

// checkpointShape is streamingpb.WALCheckpoint's fields but
// alter_wal_state, whose other wire types proto reads as an unknown field
// that heron keeps byte for byte (DecodeWALCheckpoint counts it).
var checkpointShape = shape{name: "WALCheckpoint", types: map[protowire.Number]protowire.Type{
	cpMessageID: protowire.BytesType, cpTimeTick: protowire.VarintType, cpRecoveryMagic: protowire.VarintType,
	cpReplicateConfig: protowire.BytesType, cpReplicateCheckpoint: protowire.BytesType,
}}

// segmentWire is segmentShape as an array for the fast path of
// ViewSegment: segmentWire[n] is 1 + the wire type of field n, 0 when
// unknown.
var segmentWire = func() (a [segLevel + 1]int8) {
	for n, t := range segmentShape.types {
		a[n] = int8(t) + 1
	}
	return a
}()

// check refuses b when a known field has another wire type than its
// message's. Bytes that do not parse are left to the decoder's own error.
func (s shape) check(b []byte) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil
		}
		if want, ok := s.types[num]; ok && want != typ {
			return fmt.Errorf("not a %s: its field %d is %s where a %s has %s (a value of another message type?)",
				s.name, num, wireTypeName(typ), s.name, wireTypeName(want))
		}
		b = b[n+m:]
	}
	return nil
}

func wireTypeName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "a varint"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.BytesType:
		return "length-delimited (bytes, string or message)"
	case protowire.StartGroupType, protowire.EndGroupType:
		return "a group"
	}
	return fmt.Sprintf("wire type %d", t)
}
