package msgid

import (
	"encoding/base64"
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// WoodpeckerID is a woodpecker log position: proto3 {int64 segId = 1; int64 entryId = 2}
// as bytes, standard base64 of those bytes as text.
//
// {0, 0}, the earliest, has two encodings. Milvus's own (woodpecker's
// LogMessageId.Serialize, proto3) is zero bytes and "": Milvus's online WAL
// switch writes it. heron writes both fields explicitly, 08001000 and
// "CAAQAA==": every Milvus 2.6 reader of a woodpecker position reads both as
// {0, 0} (tests/golden/testdata/wp_earliest.json, from pkg/v2 v2.6.23's own
// functions), while 3.x's migration of 2.6 checkpoints refuses a seek
// position with an empty msgID and the 2.6 msgstream Seek refuses one with
// zero bytes (mq/msgstream/mq_msgstream.go:967 @v2.6.23).
type WoodpeckerID struct {
	Segment int64
	Entry   int64
}

// woodpeckerExplicitEarliest is {0, 0} with both fields written.
var woodpeckerExplicitEarliest = []byte{0x08, 0x00, 0x10, 0x00}

func (id WoodpeckerID) WAL() commonpb.WALName { return commonpb.WALName_WoodPecker }

// Bytes is the proto3 encoding, except for {0, 0}: explicit zero fields.
func (id WoodpeckerID) Bytes() []byte {
	if id.IsEarliest() {
		return append([]byte(nil), woodpeckerExplicitEarliest...)
	}
	var b wire.Builder
	return b.Varint(1, uint64(id.Segment)).Varint(2, uint64(id.Entry)).Build()
}

// IsEmptyEarliest reports whether a position of wal holds woodpecker's
// earliest in Milvus's empty form (zero bytes, or "" as text): it reads as
// {0, 0}, and a reset rewrites it to the explicit form (see WoodpeckerID).
func IsEmptyEarliest(wal commonpb.WALName, b []byte) bool {
	return wal == commonpb.WALName_WoodPecker && len(b) == 0
}

func (id WoodpeckerID) Text() string     { return base64.StdEncoding.EncodeToString(id.Bytes()) }
func (id WoodpeckerID) Human() string    { return fmt.Sprintf("%d:%d", id.Segment, id.Entry) }
func (id WoodpeckerID) IsEarliest() bool { return id.Segment == 0 && id.Entry == 0 }

type woodpeckerCodec struct{}

func (woodpeckerCodec) WAL() commonpb.WALName { return commonpb.WALName_WoodPecker }
func (woodpeckerCodec) Earliest() ID          { return WoodpeckerID{} }

func (woodpeckerCodec) DecodeBytes(b []byte) (ID, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("woodpecker id: %w", err)
	}
	var id WoodpeckerID
	for _, f := range m.Fields {
		if f.Num != 1 && f.Num != 2 {
			continue
		}
		if f.Type != protowire.VarintType {
			return nil, fmt.Errorf("woodpecker id: field %d has wire type %d, want varint", f.Num, f.Type)
		}
		if f.Num == 1 {
			id.Segment = int64(f.Varint)
		} else {
			id.Entry = int64(f.Varint)
		}
	}
	return id, nil
}

func (c woodpeckerCodec) DecodeText(s string) (ID, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("woodpecker id %q is not standard base64", s)
	}
	return c.DecodeBytes(b)
}
