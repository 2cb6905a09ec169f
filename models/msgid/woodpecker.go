package msgid

import (
	"encoding/base64"
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// WoodpeckerID is a woodpecker log position: proto3 {int64 segId = 1; int64 entryId = 2}
// as bytes, standard base64 of those bytes as text. {0, 0} is zero bytes and "".
type WoodpeckerID struct {
	Segment int64
	Entry   int64
}

func (id WoodpeckerID) WAL() commonpb.WALName { return commonpb.WALName_WoodPecker }

func (id WoodpeckerID) Bytes() []byte {
	var b wire.Builder
	return b.Varint(1, uint64(id.Segment)).Varint(2, uint64(id.Entry)).Build()
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
