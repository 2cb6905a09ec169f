package models

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// BroadcastState is streamingpb.BroadcastTaskState.
type BroadcastState int32

const (
	BroadcastUnknown    BroadcastState = 0
	BroadcastPending    BroadcastState = 1
	BroadcastDone       BroadcastState = 2
	BroadcastWaitAck    BroadcastState = 3
	BroadcastReplicated BroadcastState = 4
	BroadcastTombstone  BroadcastState = 5
)

var broadcastStateNames = map[BroadcastState]string{
	BroadcastUnknown: "Unknown", BroadcastPending: "Pending", BroadcastDone: "Done",
	BroadcastWaitAck: "WaitAck", BroadcastReplicated: "Replicated", BroadcastTombstone: "Tombstone",
}

func (s BroadcastState) String() string {
	if n, ok := broadcastStateNames[s]; ok {
		return n
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// InFlight reports a half-applied DDL: on restart Milvus re-appends or re-acks
// it and its callbacks write old-WAL ids back into meta.
func (s BroadcastState) InFlight() bool {
	return s == BroadcastPending || s == BroadcastWaitAck || s == BroadcastReplicated
}

// BroadcastTask is the decoded view of streamingpb.BroadcastTask.
type BroadcastTask struct {
	State           BroadcastState
	AckedCheckpoint int
}

const (
	btState          protowire.Number = 2
	btAckedCheckpoin protowire.Number = 4
)

// DecodeBroadcastTask decodes a broadcast-task value.
func DecodeBroadcastTask(b []byte) (*BroadcastTask, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a BroadcastTask: %w", err)
	}
	return &BroadcastTask{State: BroadcastState(m.Varint(btState)), AckedCheckpoint: len(m.All(btAckedCheckpoin))}, nil
}

// PChannelMeta is the decoded view of streamingpb.PChannelMeta: the
// authoritative list of pchannels. It holds no MQ id.
type PChannelMeta struct {
	Name string
}

// DecodePChannelMeta decodes a streamingcoord pchannel value.
func DecodePChannelMeta(b []byte) (*PChannelMeta, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a PChannelMeta: %w", err)
	}
	ch, err := m.Sub(1)
	if err != nil {
		return nil, fmt.Errorf("PChannelMeta.channel: %w", err)
	}
	if ch == nil {
		return &PChannelMeta{}, nil
	}
	return &PChannelMeta{Name: ch.String(1)}, nil
}

// SegmentAssignmentMeta is the decoded view of streamingpb.SegmentAssignmentMeta:
// an unflushed allocation on the streamingnode, pinned to the WAL it was made in.
type SegmentAssignmentMeta struct {
	CollectionID int64
	PartitionID  int64
	SegmentID    int64
	VChannel     string
	State        int32
}

// DecodeSegmentAssignmentMeta decodes a segment-assign value.
func DecodeSegmentAssignmentMeta(b []byte) (*SegmentAssignmentMeta, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a SegmentAssignmentMeta: %w", err)
	}
	return &SegmentAssignmentMeta{
		CollectionID: int64(m.Varint(1)),
		PartitionID:  int64(m.Varint(2)),
		SegmentID:    int64(m.Varint(3)),
		VChannel:     m.String(4),
		State:        int32(m.Varint(5)),
	}, nil
}

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
