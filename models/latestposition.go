package models

import (
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/models/msgid"
)

// LatestPosition is the position `repair checkpoint --set-to latest-cp`
// moves a vchannel's channel checkpoint to, fed segment by segment: the
// largest-timestamp position among the segments of the pchannel that are
// Flushed, Growing or Flushing, each segment's dml_position else its
// start_position (birdwatcher's setCheckPointWithLatestCheckPoint). It never
// takes a dropped-channel marker nor a position of another WAL as its
// reference (birdwatcher #527): those are counted, and said.
type LatestPosition struct {
	PChannel string
	WAL      commonpb.WALName
	codec    msgid.Codec
	// Best is the position chosen so far (nil: none).
	Best *SegmentPosition
	// Foreign and Markers count the positions left out: of another WAL (or
	// not this WAL's id), and dropped-channel markers or without an id.
	Foreign, Markers int
}

// SegmentPosition is a position a segment holds, decoded in its WAL.
type SegmentPosition struct {
	ID        msgid.ID
	Timestamp uint64
	// Source says where it is ("the dml_position of segment 7 (Flushed, v)").
	Source string
}

// NewLatestPosition is a LatestPosition over the segments of pchannel, in wal.
func NewLatestPosition(pchannel string, wal commonpb.WALName) (*LatestPosition, error) {
	codec, err := msgid.For(wal)
	if err != nil {
		return nil, err
	}
	return &LatestPosition{PChannel: pchannel, WAL: wal, codec: codec}, nil
}

// Add considers one segment.
func (l *LatestPosition) Add(seg *SegmentInfo) {
	if PChannelOf(seg.InsertChannel) != l.PChannel || (seg.State != commonpb.SegmentState_Flushed &&
		seg.State != commonpb.SegmentState_Growing && seg.State != commonpb.SegmentState_Flushing) {
		return
	}
	pos, field := seg.DMLPosition, "dml_position"
	if pos == nil {
		pos, field = seg.StartPosition, "start_position"
	}
	switch {
	case pos == nil:
		return
	case IsDroppedChannelCP(pos) || len(pos.GetMsgID()) == 0:
		l.Markers++
		return
	}
	if w, _ := PositionWAL(pos, l.WAL); w != l.WAL {
		l.Foreign++
		return
	}
	id, err := l.codec.DecodeBytes(pos.GetMsgID())
	if err != nil {
		l.Foreign++
		return
	}
	if l.Best == nil || pos.GetTimestamp() > l.Best.Timestamp {
		l.Best = &SegmentPosition{ID: id, Timestamp: pos.GetTimestamp(), Source: fmt.Sprintf("the %s of segment %d (%s, %s)", field, seg.ID, seg.State, seg.InsertChannel)}
	}
}

// LeftOut says which positions were left out ("": none).
func (l *LatestPosition) LeftOut() string {
	if l.Foreign+l.Markers == 0 {
		return ""
	}
	return fmt.Sprintf("latest-cp left out %d position(s) of segments of %s not in %s and %d without a message id or at timestamp MaxUint64 (dropped-channel markers)",
		l.Foreign, l.PChannel, msgid.Name(l.WAL), l.Markers)
}

// DescribePosition is a position in words, "kafka 1050 at
// 2026-11-30T09:00:00.000Z (timestamp 464...)"; guessed marks a WAL taken
// from the consume checkpoint because the position names none.
func DescribePosition(wal commonpb.WALName, msgID []byte, ts uint64, guessed bool) string {
	id, err := DescribeBytes(wal, msgID)
	if err != nil {
		id = fmt.Sprintf("%x (not a %s id)", msgID, msgid.Name(wal))
	}
	name := msgid.Name(wal)
	if guessed {
		name += " (untagged)"
	}
	return fmt.Sprintf("%s %s at %s", name, id, TimestampText(ts))
}

// TimestampText is a TSO as its time and its number.
func TimestampText(ts uint64) string {
	t, _, ok := SplitTSO(ts)
	if !ok {
		return fmt.Sprintf("timestamp %d", ts)
	}
	return fmt.Sprintf("%s (timestamp %d)", t.Format("2006-01-02T15:04:05.000Z"), ts)
}

// DescribeMsgPosition is DescribePosition of a decoded position, its WAL
// taken from fallback when it names none.
func DescribeMsgPosition(p *msgpb.MsgPosition, fallback commonpb.WALName) string {
	wal, guessed := PositionWAL(p, fallback)
	return DescribePosition(wal, p.GetMsgID(), p.GetTimestamp(), guessed)
}
