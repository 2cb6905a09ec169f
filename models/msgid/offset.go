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

// Milvus's own earliest ids, written by its online WAL switch
// (pkg/v2@v2.6.23 streaming/util/message/adaptor/message_id.go
// MustGetEarliestMessageIDFromMQType): kafka OffsetBeginning and rocksmq's
// EarliestMessageID(). Heron reads them as earliest; it writes kafka's only
// for an instance on Milvus 3.x (reset's Context.KafkaBeginning), never
// rocksmq's.
const (
	KafkaOffsetBeginning int64 = -2
	RocksMQEarliestID    int64 = -1
)

func (id OffsetID) WAL() commonpb.WALName { return id.Of }

func (id OffsetID) Bytes() []byte {
	return binary.LittleEndian.AppendUint64(nil, uint64(id.Offset))
}

func (id OffsetID) Text() string  { return strconv.FormatInt(id.Offset, 36) }
func (id OffsetID) Human() string { return strconv.FormatInt(id.Offset, 10) }

// IsEarliest is true for 0 (what heron writes) and for the negative id
// Milvus's online switch writes for the same WAL.
func (id OffsetID) IsEarliest() bool {
	switch {
	case id.Offset == 0:
		return true
	case id.Of == commonpb.WALName_Kafka:
		return id.Offset == KafkaOffsetBeginning
	case id.Of == commonpb.WALName_RocksMQ:
		return id.Offset == RocksMQEarliestID
	}
	return false
}

type offsetCodec struct{ wal commonpb.WALName }

func (c offsetCodec) WAL() commonpb.WALName { return c.wal }

func (c offsetCodec) Earliest() ID { return OffsetID{Of: c.wal, Offset: 0} }

// DecodeBytes reads 8 little-endian bytes as a signed id, negative ones
// included (pkg/v2@v2.6.23 mq/msgstream/mqwrapper/kafka DeserializeKafkaID).
func (c offsetCodec) DecodeBytes(b []byte) (ID, error) {
	if len(b) != 8 {
		return nil, fmt.Errorf("%s id must be 8 bytes, got %d", Name(c.wal), len(b))
	}
	return OffsetID{Of: c.wal, Offset: int64(binary.LittleEndian.Uint64(b))}, nil
}

// DecodeText reads base-36 text as Milvus 2.6.19+ does (message.DecodeInt64,
// strconv.ParseInt: pkg/v2@v2.6.23 streaming/walimpls/impls/kafka/message_id.go
// and impls/rmq/message_id.go), so negative ids decode.
func (c offsetCodec) DecodeText(s string) (ID, error) {
	v, err := strconv.ParseInt(s, 36, 64)
	if err != nil {
		return nil, fmt.Errorf("%s id %q is not a base-36 int64", Name(c.wal), s)
	}
	return OffsetID{Of: c.wal, Offset: v}, nil
}
