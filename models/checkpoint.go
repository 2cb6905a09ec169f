package models

import (
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// streamingpb.WALCheckpoint field numbers.
const (
	cpMessageID           protowire.Number = 1
	cpTimeTick            protowire.Number = 2
	cpRecoveryMagic       protowire.Number = 3
	cpReplicateConfig     protowire.Number = 4
	cpReplicateCheckpoint protowire.Number = 5
)

// WALCheckpoint is the decoded view of streamingpb.WALCheckpoint, the
// consume checkpoint of a pchannel: its message id's WAL_name decides which
// WAL the streamingnode opens.
type WALCheckpoint struct {
	MessageID     string
	WAL           commonpb.WALName
	HasMessageID  bool
	TimeTick      uint64
	RecoveryMagic int64
	// ReplicateCheckpoint is a position in a remote cluster's WAL; heron never rewrites it.
	HasReplicateCheckpoint bool
	ReplicateCluster       string
	HasReplicateConfig     bool
	// UnknownFields counts fields above 5 (later Milvus versions): kept as they are.
	UnknownFields int
}

// DecodeWALCheckpoint decodes a consume-checkpoint value.
func DecodeWALCheckpoint(b []byte) (*WALCheckpoint, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a WALCheckpoint: %w", err)
	}
	cp := &WALCheckpoint{
		TimeTick:           m.Varint(cpTimeTick),
		RecoveryMagic:      int64(m.Varint(cpRecoveryMagic)),
		HasReplicateConfig: m.Has(cpReplicateConfig),
	}
	if f, ok := m.Get(cpMessageID); ok {
		id, err := DecodeMessageID(f.Payload)
		if err != nil || f.Type != protowire.BytesType {
			return nil, fmt.Errorf("WALCheckpoint.message_id: %v", err)
		}
		cp.HasMessageID, cp.MessageID, cp.WAL = true, id.GetId(), id.GetWALName()
	}
	if sub, err := m.Sub(cpReplicateCheckpoint); err != nil {
		return nil, fmt.Errorf("WALCheckpoint.replicate_checkpoint: %w", err)
	} else if sub != nil {
		cp.HasReplicateCheckpoint, cp.ReplicateCluster = true, sub.String(1)
	}
	for _, f := range m.Fields {
		if f.Num > cpReplicateCheckpoint {
			cp.UnknownFields++
		}
	}
	return cp, nil
}

// RewriteWALCheckpoint sets message_id to id (text form and WAL_name); the
// time tick, recovery magic, replication fields and every unknown field keep
// their bytes, and so do unknown fields inside message_id.
func RewriteWALCheckpoint(b []byte, id msgid.ID) ([]byte, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a WALCheckpoint: %w", err)
	}
	if !m.Has(cpMessageID) {
		// A checkpoint without a message id gets one, as field 1 is written first.
		empty, _ := wire.Parse((&wire.Builder{}).Message(cpMessageID, nil).Build())
		m.Fields = append(empty.Fields, m.Fields...)
	}
	err = m.EditMessages(cpMessageID, func(sub *wire.Message) error {
		sub.SetBytes(midID, []byte(id.Text()))
		sub.SetVarint(midWALName, uint64(id.WAL()))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("WALCheckpoint: %w", err)
	}
	return m.Bytes(), nil
}

// InWAL reports whether the checkpoint already names id with its WAL.
func (cp *WALCheckpoint) InWAL(id msgid.ID) bool {
	return cp.HasMessageID && cp.WAL == id.WAL() && cp.MessageID == id.Text()
}
