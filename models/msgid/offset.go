package msgid

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
)

// OffsetID is a kafka offset or a rocksmq id: 8 little-endian bytes, base-36 text.
type OffsetID struct {
	Of     commonpb.WALName
	Offset int64
}

func (id OffsetID) WAL() commonpb.WALName { return id.Of }

func (id OffsetID) Bytes() []byte {
	return binary.LittleEndian.AppendUint64(nil, uint64(id.Offset))
}

func (id OffsetID) Text() string     { return strconv.FormatInt(id.Offset, 36) }
func (id OffsetID) Human() string    { return strconv.FormatInt(id.Offset, 10) }
func (id OffsetID) IsEarliest() bool { return id.Offset == 0 }

type offsetCodec struct{ wal commonpb.WALName }

func (c offsetCodec) WAL() commonpb.WALName { return c.wal }

func (c offsetCodec) Earliest() ID { return OffsetID{Of: c.wal, Offset: 0} }

// NewOffset builds a kafka or rocksmq id. Negative ids are refused: Milvus
// decodes the text with ParseUint and cannot read them back.
func NewOffset(wal commonpb.WALName, offset int64) (OffsetID, error) {
	if offset < 0 {
		return OffsetID{}, fmt.Errorf("%s id %d is negative: Milvus cannot read it back", Name(wal), offset)
	}
	return OffsetID{Of: wal, Offset: offset}, nil
}

func (c offsetCodec) DecodeBytes(b []byte) (ID, error) {
	if len(b) != 8 {
		return nil, fmt.Errorf("%s id must be 8 bytes, got %d", Name(c.wal), len(b))
	}
	return NewOffset(c.wal, int64(binary.LittleEndian.Uint64(b)))
}

func (c offsetCodec) DecodeText(s string) (ID, error) {
	v, err := strconv.ParseUint(s, 36, 64)
	if err != nil {
		return nil, fmt.Errorf("%s id %q is not a base-36 unsigned number", Name(c.wal), s)
	}
	if v > 1<<63-1 {
		return nil, fmt.Errorf("%s id %q overflows int64", Name(c.wal), s)
	}
	return OffsetID{Of: c.wal, Offset: int64(v)}, nil
}
