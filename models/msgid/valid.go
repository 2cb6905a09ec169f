package msgid

import (
	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"
)

// Decodes reports whether b decodes as an id of wal, exactly when the
// codec's DecodeBytes returns no error, without allocating: the census asks
// it of every untagged position of a scan (a million per reset at scale),
// and DecodeBytes builds a message and an ID value to answer.
func Decodes(wal commonpb.WALName, b []byte) bool {
	switch wal {
	case commonpb.WALName_Kafka, commonpb.WALName_RocksMQ:
		return len(b) == 8
	case commonpb.WALName_Pulsar:
		seen, ok := varintFields(b, 1<<1|1<<2|1<<3|1<<4|1<<6)
		return ok && seen&(1<<1) != 0 && seen&(1<<2) != 0
	case commonpb.WALName_WoodPecker:
		_, ok := varintFields(b, 1<<1|1<<2)
		return ok
	}
	return false
}

// varintFields walks a protobuf message as wire.Parse does; ok is false when
// it does not parse or when a field of the mask (bit n: field n, n < 64) is
// not a varint. seen has the bits of the mask's fields present.
func varintFields(b []byte, mask uint64) (seen uint64, ok bool) {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 || num < 1 {
			return 0, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return 0, false
		}
		if num < 64 && mask&(1<<uint(num)) != 0 {
			if typ != protowire.VarintType {
				return 0, false
			}
			seen |= 1 << uint(num)
		}
		off += n + m
	}
	return seen, true
}
