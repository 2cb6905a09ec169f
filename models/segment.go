package models

import (
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// datapb.SegmentInfo field numbers.
const (
	segID            protowire.Number = 1
	segCollection    protowire.Number = 2
	segPartition     protowire.Number = 3
	segChannel       protowire.Number = 4
	segRows          protowire.Number = 5
	segState         protowire.Number = 6
	segStartPosition protowire.Number = 9
	segDMLPosition   protowire.Number = 10
	segIsImporting   protowire.Number = 17
	segLevel         protowire.Number = 20
)

// SegmentInfo is the decoded view of datapb.SegmentInfo.
type SegmentInfo struct {
	ID            int64
	CollectionID  int64
	PartitionID   int64
	InsertChannel string
	NumRows       int64
	State         commonpb.SegmentState
	StartPosition *msgpb.MsgPosition
	DMLPosition   *msgpb.MsgPosition
	IsImporting   bool
	Level         int32
}

// DecodeSegmentInfo decodes a segment value.
func DecodeSegmentInfo(b []byte) (*SegmentInfo, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a SegmentInfo: %w", err)
	}
	if err := segmentShape.check(b); err != nil {
		return nil, err
	}
	s := &SegmentInfo{
		ID:            int64(m.Varint(segID)),
		CollectionID:  int64(m.Varint(segCollection)),
		PartitionID:   int64(m.Varint(segPartition)),
		InsertChannel: m.String(segChannel),
		NumRows:       int64(m.Varint(segRows)),
		State:         commonpb.SegmentState(m.Varint(segState)),
		IsImporting:   m.Varint(segIsImporting) != 0,
		Level:         int32(m.Varint(segLevel)),
	}
	for _, p := range []struct {
		num protowire.Number
		dst **msgpb.MsgPosition
		nm  string
	}{{segStartPosition, &s.StartPosition, "start_position"}, {segDMLPosition, &s.DMLPosition, "dml_position"}} {
		if f, ok := m.Get(p.num); ok {
			pos, err := DecodePosition(f.Payload)
			if err != nil {
				return nil, fmt.Errorf("SegmentInfo.%s: %w", p.nm, err)
			}
			*p.dst = pos
		}
	}
	return s, nil
}

// Unflushed reports whether the segment's rows exist only in the MQ.
func (s *SegmentInfo) Unflushed() bool { return UnflushedState(s.State) }

// UnflushedState reports a state whose rows are not all in binlogs yet:
// Growing, Sealed, and Flushing (a flush that a stopped Milvus never finished).
func UnflushedState(s commonpb.SegmentState) bool {
	return s == commonpb.SegmentState_Growing || s == commonpb.SegmentState_Sealed || s == commonpb.SegmentState_Flushing
}

// SeekCandidate is the position datacoord would consider for this segment's
// vchannel: dml_position, else start_position; none for Dropped or importing
// segments, which datacoord skips.
func (s *SegmentInfo) SeekCandidate() (*msgpb.MsgPosition, string) {
	if s.State == commonpb.SegmentState_Dropped || s.IsImporting {
		return nil, ""
	}
	if s.DMLPosition != nil {
		return s.DMLPosition, "dml_position"
	}
	if s.StartPosition != nil {
		return s.StartPosition, "start_position"
	}
	return nil, ""
}

// rewriteSegmentPositionsGeneral is RewriteViewedSegment on the general
// wire decoder: the reference the fast splice is tested against.
func rewriteSegmentPositionsGeneral(b []byte, id msgid.ID) ([]byte, int, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, 0, fmt.Errorf("not a SegmentInfo: %w", err)
	}
	changed := 0
	for _, num := range []protowire.Number{segStartPosition, segDMLPosition} {
		err := m.EditMessages(num, func(pos *wire.Message) error {
			if pos.Varint(posWALName) == uint64(id.WAL()) && string(pos.BytesOf(posMsgID)) == string(id.Bytes()) {
				return nil
			}
			setPosition(pos, id)
			changed++
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("SegmentInfo: %w", err)
		}
	}
	return m.Bytes(), changed, nil
}

// SegmentStateName is the name of a segment state as Milvus prints it.
func SegmentStateName(s commonpb.SegmentState) string { return s.String() }

// ParseSegmentState maps a state name (Flushed, growing, ...) to its value.
func ParseSegmentState(name string) (commonpb.SegmentState, error) {
	for v, n := range commonpb.SegmentState_name {
		if equalFold(n, name) {
			return commonpb.SegmentState(v), nil
		}
	}
	return 0, fmt.Errorf("unknown segment state %q: valid ones are Growing, Sealed, Flushing, Flushed, Dropped, Importing", name)
}
