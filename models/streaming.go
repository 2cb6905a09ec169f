package models

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

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

// BroadcastTask is the decoded view of streamingpb.BroadcastTask
// {message 1, state 2, acked_vchannel_bitmap 3, acked_checkpoints 4}
// (pkg/v2@v2.6.23 proto/streaming.proto).
type BroadcastTask struct {
	State BroadcastState
	// AckedCheckpoint counts acked_checkpoints entries, Acked those that hold
	// an ack, a time tick (Milvus keeps one entry per vchannel of the
	// broadcast header, empty until that vchannel acked).
	AckedCheckpoint int
	Acked           int
	// MessageType is the message's _t property (messagespb.MessageType as a
	// decimal: 700 is AlterWAL); VChannels its broadcast header's vchannels,
	// AckedVChannels[i] whether VChannels[i] acked (acked_checkpoints[i]
	// holds an ack).
	MessageType    int64
	HasMessageType bool
	VChannels      []string
	AckedVChannels []bool
	// Properties are the message's properties (messagespb.Message.properties):
	// the specialized header _h can hold the caller's config (AlterWAL).
	Properties map[string]string
	// AlterWAL is the AlterWAL message's header, nil for other types.
	AlterWAL *AlterWALHeader
	// MessageError says why the message (its properties or headers) could
	// not be read; the state and the acks still decode, so a gate can tell
	// whether the task is in flight.
	MessageError string
	ackedAt      []bool // acked_checkpoints[i] holds an ack
}

// AlterWALHeader is messagespb.AlterWALMessageHeader {target_wal_name 1,
// config 2}: Milvus's online WAL switch, with the caller's config map (Kafka
// SASL passwords, TLS keys: see IsSecretKey).
type AlterWALHeader struct {
	Target commonpb.WALName
	Config map[string]string
}

// MessageTypeAlterWAL is messagespb.MessageType_AlterWAL (pkg/v2@v2.6.23 proto/messages.proto).
const MessageTypeAlterWAL = 700

// messageTypeNames are messagespb.MessageType's names (pkg/v2@v2.6.23
// proto/messages.proto), for the broadcast tasks a coordinator keeps.
var messageTypeNames = map[int64]string{
	0: "Unknown", 1: "TimeTick", 2: "Insert", 3: "Delete", 4: "Flush", 5: "CreateCollection", 6: "DropCollection",
	7: "CreatePartition", 8: "DropPartition", 9: "ManualFlush", 10: "CreateSegment", 11: "Import", 12: "SchemaChange",
	13: "AlterCollection", 14: "AlterLoadConfig", 15: "DropLoadConfig", 16: "CreateDatabase", 17: "AlterDatabase",
	18: "DropDatabase", 19: "AlterAlias", 20: "DropAlias", 21: "RestoreRBAC", 22: "AlterUser", 23: "DropUser",
	24: "AlterRole", 25: "DropRole", 26: "AlterUserRole", 27: "DropUserRole", 28: "AlterPrivilege", 29: "DropPrivilege",
	30: "AlterPrivilegeGroup", 31: "DropPrivilegeGroup", 32: "AlterResourceGroup", 33: "DropResourceGroup",
	34: "CreateIndex", 35: "AlterIndex", 36: "DropIndex", 37: "FlushAll", 38: "TruncateCollection",
	MessageTypeAlterWAL: "AlterWAL", 800: "AlterReplicateConfig", 900: "BeginTxn", 901: "CommitTxn", 902: "RollbackTxn", 999: "Txn",
}

// MessageTypeName is a message type's name ("AlterWAL"), or its number.
func MessageTypeName(t int64) string {
	if n, ok := messageTypeNames[t]; ok {
		return n
	}
	return strconv.FormatInt(t, 10)
}

// Message property keys (pkg/v2@v2.6.23 streaming/util/message/properties.go);
// _bh and _h hold base64 protobuf (message.EncodeProto).
const (
	propMessageType     = "_t"
	propBroadcastHeader = "_bh"
	propHeader          = "_h"
)

const (
	btMessage        protowire.Number = 1
	btState          protowire.Number = 2
	btAckedCheckpoin protowire.Number = 4
	ackTimeTick      protowire.Number = 3
)

// DecodeBroadcastTask decodes a broadcast-task value.
func DecodeBroadcastTask(b []byte) (*BroadcastTask, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a BroadcastTask: %w", err)
	}
	bt := &BroadcastTask{State: BroadcastState(m.Varint(btState))}
	for _, f := range m.All(btAckedCheckpoin) {
		bt.AckedCheckpoint++
		// An ack holds its message's time tick (AckedCheckpoint.time_tick
		// 3); the broadcaster reads one at time tick 0 as none when it loads
		// the task (milvus #45787/#45788, fixAckInfoFromProto).
		ack, err := wire.Parse(f.Payload)
		ok := f.Type == protowire.BytesType && err == nil && ack.Varint(ackTimeTick) != 0
		if ok {
			bt.Acked++
		}
		bt.ackedAt = append(bt.ackedAt, ok)
	}
	if err := bt.readMessage(m); err != nil {
		bt.MessageError = err.Error()
	}
	return bt, nil
}

// readMessage reads the message's type, broadcast vchannels and, for an
// AlterWAL message, its header.
func (bt *BroadcastTask) readMessage(m *wire.Message) error {
	msg, err := m.Sub(btMessage)
	if err != nil {
		return fmt.Errorf("BroadcastTask.message: %w", err)
	}
	if msg == nil {
		return nil
	}
	props, err := decodeStringMap(msg, 2)
	if err != nil {
		return fmt.Errorf("BroadcastTask.message.properties: %w", err)
	}
	bt.Properties = props
	if t, ok := props[propMessageType]; ok {
		bt.MessageType, _ = strconv.ParseInt(t, 10, 64)
		bt.HasMessageType = true
	}
	if h, ok := props[propBroadcastHeader]; ok {
		bh, err := parseBase64Proto(h)
		if err != nil {
			return fmt.Errorf("BroadcastTask broadcast header: %w", err)
		}
		for i, f := range bh.All(2) {
			bt.VChannels = append(bt.VChannels, string(f.Payload))
			bt.AckedVChannels = append(bt.AckedVChannels, i < len(bt.ackedAt) && bt.ackedAt[i])
		}
	}
	if h, ok := props[propHeader]; ok && bt.MessageType == MessageTypeAlterWAL {
		hm, err := parseBase64Proto(h)
		if err != nil {
			return fmt.Errorf("BroadcastTask AlterWAL header: %w", err)
		}
		cfg, err := decodeStringMap(hm, 2)
		if err != nil {
			return fmt.Errorf("BroadcastTask AlterWAL header config: %w", err)
		}
		bt.AlterWAL = &AlterWALHeader{Target: commonpb.WALName(int32(hm.Varint(1))), Config: cfg}
	}
	return nil
}

func parseBase64Proto(s string) (*wire.Message, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	return wire.Parse(raw)
}

// decodeStringMap reads a map<string, string> field (entries {key 1, value 2}).
func decodeStringMap(m *wire.Message, num protowire.Number) (map[string]string, error) {
	var out map[string]string
	for _, f := range m.All(num) {
		if f.Type != protowire.BytesType {
			return nil, fmt.Errorf("map entry has wire type %d", f.Type)
		}
		e, err := wire.Parse(f.Payload)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]string{}
		}
		out[e.String(1)] = e.String(2)
	}
	return out, nil
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
