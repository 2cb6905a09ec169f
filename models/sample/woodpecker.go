package sample

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// Woodpecker's metadata values, with the field numbers of woodpecker's
// proto/meta.proto (github.com/zilliztech/woodpecker v0.1.37): LogMeta,
// SegmentMetadata and QuorumInfo. Defaults as meta/metadata_etcd.go's
// CreateLog writes them (roll time 60 s, roll size 256 MiB, compaction buffer
// 128 MiB, 600 compaction files, timestamps in Unix seconds).

// WoodpeckerLog is a proto.LogMeta to encode.
type WoodpeckerLog struct {
	ID int64
	// Created and Modified are Unix seconds (fixed64 on the wire).
	Created, Modified uint64
	// TruncatedSegment and TruncatedEntry are the truncation point
	// (inclusive); -1, -1 for a log never truncated.
	TruncatedSegment, TruncatedEntry int64
}

// Encode returns the log's protobuf bytes.
func (l WoodpeckerLog) Encode() []byte {
	var b wire.Builder
	b.Varint(1, uint64(l.ID)).Varint(2, 60).Varint(3, 256<<20).Varint(4, 128<<20).Varint(5, 600)
	fixed := protowire.AppendTag(nil, 6, protowire.Fixed64Type)
	fixed = protowire.AppendFixed64(fixed, l.Created)
	fixed = protowire.AppendTag(fixed, 7, protowire.Fixed64Type)
	fixed = protowire.AppendFixed64(fixed, l.Modified)
	return b.Raw(fixed).Varint(8, uint64(l.TruncatedSegment)).Varint(9, uint64(l.TruncatedEntry)).Build()
}

// Woodpecker segment states (proto/meta.proto SegmentState; 1 is reserved).
const (
	WoodpeckerActive    = 0
	WoodpeckerCompleted = 2
	WoodpeckerSealed    = 3
	WoodpeckerTruncated = 4
)

// WoodpeckerSegment is a proto.SegmentMetadata to encode.
type WoodpeckerSegment struct {
	No    int64
	State int
	// Created, Completed and Sealed are Unix milliseconds (0: not yet).
	Created, Completed, Sealed int64
	LastEntry, Size            int64
	// Quorum is the quorum id, with one node: a single-replica quorum.
	Quorum int64
	Node   string
}

// Encode returns the segment's protobuf bytes.
func (s WoodpeckerSegment) Encode() []byte {
	var q wire.Builder
	q.Varint(1, uint64(s.Quorum)).Varint(2, 1).Varint(3, 1).Varint(4, 1).String(5, s.Node)
	// Builder leaves zero values out as proto3 does: an Active segment has
	// no state field, segment 0 no segNo.
	var b wire.Builder
	b.Varint(1, uint64(s.No)).Varint(2, uint64(s.Created)).Varint(4, uint64(s.State)).Varint(5, uint64(s.Completed)).
		Varint(6, uint64(s.LastEntry)).Varint(7, uint64(s.Size)).Varint(8, uint64(s.Sealed))
	return b.Message(9, q.Build()).Build()
}
