package models

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// PChannelState is streamingpb.PChannelMetaState (pkg/v2@v2.6.23
// proto/streaming.proto): the streaming coordinator's view of a pchannel.
type PChannelState int32

const (
	PChannelUnknown       PChannelState = 0
	PChannelUninitialized PChannelState = 1
	PChannelAssigning     PChannelState = 2
	PChannelAssigned      PChannelState = 3
	PChannelUnavailable   PChannelState = 4
)

func (s PChannelState) String() string {
	switch s {
	case PChannelUnknown:
		return "UNKNOWN"
	case PChannelUninitialized:
		return "UNINITIALIZED"
	case PChannelAssigning:
		return "ASSIGNING"
	case PChannelAssigned:
		return "ASSIGNED"
	case PChannelUnavailable:
		return "UNAVAILABLE"
	}
	return "STATE_" + strconv.Itoa(int(s))
}

// AccessMode is streamingpb.PChannelAccessMode: READWRITE 0, READONLY 1.
type AccessMode int32

func (a AccessMode) String() string {
	switch a {
	case 0:
		return "RW"
	case 1:
		return "RO"
	}
	return "MODE_" + strconv.Itoa(int(a))
}

// StreamingNode is streamingpb.StreamingNodeInfo {server_id 1, address 2}.
type StreamingNode struct {
	ServerID int64  `json:"server_id"`
	Address  string `json:"address"`
}

// PChannelAssignment is one streamingpb.PChannelAssignmentLog of a
// pchannel's histories: {term 1, node 2, access_mode 3}.
type PChannelAssignment struct {
	Term       int64          `json:"term"`
	Node       *StreamingNode `json:"node,omitempty"`
	AccessMode AccessMode     `json:"-"`
}

// streamingpb.PChannelMeta field numbers (pkg/v2@v2.6.23 proto/streaming.proto):
// channel 1 (PChannelInfo{name 1, term 2, access_mode 3}), node 2, state 3,
// histories 4, last_assign_timestamp_seconds 5.
const (
	pcmChannel    protowire.Number = 1
	pcmNode       protowire.Number = 2
	pcmState      protowire.Number = 3
	pcmHistories  protowire.Number = 4
	pcmLastAssign protowire.Number = 5
)

// PChannelMeta is the decoded view of streamingpb.PChannelMeta: the
// authoritative list of pchannels and where each is assigned. It holds no
// MQ id. The term rises on every (re)assignment of the pchannel.
type PChannelMeta struct {
	Name       string
	Term       int64
	AccessMode AccessMode
	// Node is nil while the pchannel was never assigned.
	Node              *StreamingNode
	State             PChannelState
	Histories         []PChannelAssignment
	LastAssignSeconds uint64
}

// DecodePChannelMeta decodes a streamingcoord pchannel value.
func DecodePChannelMeta(b []byte) (*PChannelMeta, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a PChannelMeta: %w", err)
	}
	ch, err := m.Sub(pcmChannel)
	if err != nil {
		return nil, fmt.Errorf("PChannelMeta.channel: %w", err)
	}
	pm := &PChannelMeta{State: PChannelState(int32(m.Varint(pcmState))), LastAssignSeconds: m.Varint(pcmLastAssign)}
	if ch != nil {
		pm.Name, pm.Term, pm.AccessMode = ch.String(1), int64(ch.Varint(2)), AccessMode(int32(ch.Varint(3)))
	}
	if pm.Node, err = decodeStreamingNode(m, pcmNode); err != nil {
		return nil, fmt.Errorf("PChannelMeta.node: %w", err)
	}
	for i, f := range m.All(pcmHistories) {
		if f.Type != protowire.BytesType {
			return nil, fmt.Errorf("PChannelMeta.histories[%d]: wire type %d", i, f.Type)
		}
		h, err := wire.Parse(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("PChannelMeta.histories[%d]: %w", i, err)
		}
		node, err := decodeStreamingNode(h, 2)
		if err != nil {
			return nil, fmt.Errorf("PChannelMeta.histories[%d].node: %w", i, err)
		}
		pm.Histories = append(pm.Histories, PChannelAssignment{Term: int64(h.Varint(1)), Node: node, AccessMode: AccessMode(int32(h.Varint(3)))})
	}
	return pm, nil
}

func decodeStreamingNode(m *wire.Message, num protowire.Number) (*StreamingNode, error) {
	sub, err := m.Sub(num)
	if err != nil || sub == nil {
		return nil, err
	}
	return &StreamingNode{ServerID: int64(sub.Varint(1)), Address: sub.String(2)}, nil
}

// StreamingNodeRole is the session role of a streaming node (pkg/v2@v2.6.23
// util/typeutil/type.go StreamingNodeRole): as every non-exclusive
// component, it registers session/{role}-{serverID} with a lease.
const StreamingNodeRole = "streamingnode"

// StreamingNodeSessionKey is the session key of the streaming node with
// server id id, relative to the meta root: a live node holds it with a lease.
func StreamingNodeSessionKey(id int64) string {
	return SessionPrefix + StreamingNodeRole + "-" + strconv.FormatInt(id, 10)
}

// VChannelMetaKey is the streaming node's registration of vchannel v on
// pchannel p (streamingpb.VChannelMeta): a live collection's vchannel must
// have one (birdwatcher's `repair vchannel-registration` recreates it).
func VChannelMetaKey(pchannel, vchannel string) string {
	return VChannelPrefix(pchannel) + vchannel
}
