package sample

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// Woodpecker's metadata values, encoded as protobuf does with the field
// numbers of woodpecker's proto/meta.proto (v0.1.35 and v0.1.37): LogMeta
// {logId = 1, ..., creation_timestamp = 6 (fixed64), modification_timestamp
// = 7 (fixed64), truncated_segment_id = 8, truncated_entry_id = 9} and
// SegmentMetadata {segNo = 1, createTime = 2, state = 4, lastEntryId = 6,
// size = 7}. Zero fields are left out, as proto3 does.

// WPLogMeta encodes a LogMeta as CreateLog writes it (meta/metadata_etcd.go
// @v0.1.35: roll and compaction settings, then -1, -1 for a fresh log),
// truncated at (segment, entry).
func WPLogMeta(logID, truncSegment, truncEntry int64) []byte {
	var b []byte
	varint := func(n protowire.Number, v int64) {
		if v != 0 {
			b = protowire.AppendTag(b, n, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(v))
		}
	}
	fixed := func(n protowire.Number, v uint64) {
		b = protowire.AppendTag(b, n, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, v)
	}
	varint(1, logID)
	varint(2, 60)
	varint(3, 256<<20)
	varint(4, 128<<20)
	varint(5, 600)
	fixed(6, uint64(Base.Unix()))
	fixed(7, uint64(Base.Unix()))
	varint(8, truncSegment)
	varint(9, truncEntry)
	return b
}

// WPSegment encodes a SegmentMetadata; state 3 is Sealed, 0 Active.
func WPSegment(segNo int64, state int32, lastEntry, size int64) []byte {
	var b []byte
	varint := func(n protowire.Number, v int64) {
		if v != 0 {
			b = protowire.AppendTag(b, n, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(v))
		}
	}
	varint(1, segNo)
	varint(2, Base.UnixMilli())
	varint(4, int64(state))
	varint(6, lastEntry)
	varint(7, size)
	return b
}
