package msgid

import (
	"encoding/base64"
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// PulsarID is pulsar's MessageIdData as pulsar-client-go serializes it: fields
// ledgerId 1, entryId 2, partition 3, batch_index 4 and batch_size 6, always
// written in that order; the text form is standard base64 of those bytes.
type PulsarID struct {
	Ledger    int64
	Entry     int64
	Partition int32
	Batch     int32
	BatchSize int32
	// extra holds fields the serializer does not always write (ack_set,
	// first_chunk_message_id), kept so that a decoded id re-encodes unchanged.
	extra []byte
}

// PulsarEarliest is pulsar.EarliestMessageID(): every field -1, batch size 0.
var PulsarEarliest = PulsarID{Ledger: -1, Entry: -1, Partition: -1, Batch: -1}

func (id PulsarID) WAL() commonpb.WALName { return commonpb.WALName_Pulsar }

func (id PulsarID) Bytes() []byte {
	// Five varints of at most 11 bytes with their tags, and the extra fields.
	b := make([]byte, 0, 55+len(id.extra))
	b = protowire.AppendVarint(protowire.AppendTag(b, 1, protowire.VarintType), uint64(id.Ledger))
	b = protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), uint64(id.Entry))
	b = protowire.AppendVarint(protowire.AppendTag(b, 3, protowire.VarintType), uint64(int64(id.Partition)))
	b = protowire.AppendVarint(protowire.AppendTag(b, 4, protowire.VarintType), uint64(int64(id.Batch)))
	b = append(b, id.extra...)
	return protowire.AppendVarint(protowire.AppendTag(b, 6, protowire.VarintType), uint64(int64(id.BatchSize)))
}

func (id PulsarID) Text() string { return base64.StdEncoding.EncodeToString(id.Bytes()) }

func (id PulsarID) Human() string {
	return fmt.Sprintf("%d:%d:%d:%d", id.Ledger, id.Entry, id.Partition, id.Batch)
}

func (id PulsarID) IsEarliest() bool {
	return id.Ledger == -1 && id.Entry == -1 && id.Partition == -1 && id.Batch == -1
}

type pulsarCodec struct{}

func (pulsarCodec) WAL() commonpb.WALName { return commonpb.WALName_Pulsar }
func (pulsarCodec) Earliest() ID          { return PulsarEarliest }

func (pulsarCodec) DecodeBytes(b []byte) (ID, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("pulsar id: %w", err)
	}
	// proto2 defaults of MessageIdData.
	id := PulsarID{Partition: -1, Batch: -1}
	var seen [7]bool
	for _, f := range m.Fields {
		switch f.Num {
		case 1, 2, 3, 4, 6:
			if f.Type != protowire.VarintType {
				return nil, fmt.Errorf("pulsar id: field %d has wire type %d, want varint", f.Num, f.Type)
			}
			seen[f.Num] = true
		}
		switch f.Num {
		case 1:
			id.Ledger = int64(f.Varint)
		case 2:
			id.Entry = int64(f.Varint)
		case 3:
			id.Partition = int32(f.Varint)
		case 4:
			id.Batch = int32(f.Varint)
		case 6:
			id.BatchSize = int32(f.Varint)
		default:
			id.extra = append(id.extra, f.Raw...)
		}
	}
	if !seen[1] || !seen[2] {
		return nil, fmt.Errorf("pulsar id: required ledgerId or entryId missing (%d bytes)", len(b))
	}
	return id, nil
}

func (c pulsarCodec) DecodeText(s string) (ID, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("pulsar id %q is not standard base64", s)
	}
	return c.DecodeBytes(b)
}
