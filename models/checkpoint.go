package models

import (
	"fmt"
	"sort"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// streamingpb.WALCheckpoint field numbers (pkg/v2@v2.6.23 proto/streaming.proto).
const (
	cpMessageID           protowire.Number = 1
	cpTimeTick            protowire.Number = 2
	cpRecoveryMagic       protowire.Number = 3
	cpReplicateConfig     protowire.Number = 4
	cpReplicateCheckpoint protowire.Number = 5
	cpAlterWALState       protowire.Number = 6
)

// streamingpb.AlterWALState field numbers.
const (
	awTargetWALName protowire.Number = 1
	awTimeTick      protowire.Number = 2
	awConfigs       protowire.Number = 3 // map<string, string>: entries {key = 1, value = 2}
	awStage         protowire.Number = 4
)

// AlterWALStage is streamingpb.AlterWALStage, the step Milvus's online WAL
// switch had reached for a pchannel.
type AlterWALStage int32

const (
	AlterWALStageNone              AlterWALStage = 0
	AlterWALStageFlushing          AlterWALStage = 1
	AlterWALStageAdvanceCheckpoint AlterWALStage = 2
)

func (s AlterWALStage) String() string {
	switch s {
	case AlterWALStageNone:
		return "NONE"
	case AlterWALStageFlushing:
		return "FLUSHING"
	case AlterWALStageAdvanceCheckpoint:
		return "ADVANCE_CHECKPOINT"
	}
	return fmt.Sprintf("STAGE_%d", int32(s))
}

// AlterWALState is the decoded view of streamingpb.AlterWALState
// (WALCheckpoint.alter_wal_state, Milvus 2.6.14+): the persisted state of
// Milvus's own online WAL switch. A stage other than NONE is a switch that
// was interrupted; Milvus resumes it toward Target on start.
type AlterWALState struct {
	Target   commonpb.WALName
	TimeTick uint64
	Configs  map[string]string
	Stage    AlterWALStage
}

// Interrupted reports an online switch Milvus would resume on start.
func (a *AlterWALState) Interrupted() bool { return a.Stage != AlterWALStageNone }

// Describe is the state as plans and show print it:
// "online switch to kafka, stage ADVANCE_CHECKPOINT".
func (a *AlterWALState) Describe() string {
	return fmt.Sprintf("online switch to %s, stage %s", msgid.Name(a.Target), a.Stage)
}

func decodeAlterWALState(b []byte) (*AlterWALState, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, err
	}
	a := &AlterWALState{
		Target:   commonpb.WALName(int32(m.Varint(awTargetWALName))),
		TimeTick: m.Varint(awTimeTick),
		Stage:    AlterWALStage(int32(m.Varint(awStage))),
	}
	if a.Configs, err = decodeStringMap(m, awConfigs); err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	return a, nil
}

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
	// AlterWAL is alter_wal_state (field 6), nil when absent.
	AlterWAL *AlterWALState
	// UnknownFields counts fields heron does not know (numbers above 6, and a
	// field 6 that is not a message, which proto also reads as unknown): kept
	// byte for byte. UnknownFieldNumbers lists their numbers, sorted, once each.
	UnknownFields       int
	UnknownFieldNumbers []int32
}

// DecodeWALCheckpoint decodes a consume-checkpoint value.
func DecodeWALCheckpoint(b []byte) (*WALCheckpoint, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a WALCheckpoint: %w", err)
	}
	if err := checkpointShape.check(b); err != nil {
		return nil, err
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
	seen := map[int32]bool{}
	for _, f := range m.Fields {
		switch {
		case f.Num == cpAlterWALState && f.Type == protowire.BytesType:
			// proto merges repeated occurrences of a message field; Milvus
			// writes it once, and the last one decides every scalar here.
			a, err := decodeAlterWALState(f.Payload)
			if err != nil {
				return nil, fmt.Errorf("WALCheckpoint.alter_wal_state: %w", err)
			}
			cp.AlterWAL = a
		case f.Num >= cpAlterWALState:
			cp.UnknownFields++
			if !seen[int32(f.Num)] {
				seen[int32(f.Num)] = true
				cp.UnknownFieldNumbers = append(cp.UnknownFieldNumbers, int32(f.Num))
			}
		}
	}
	sort.Slice(cp.UnknownFieldNumbers, func(i, j int) bool { return cp.UnknownFieldNumbers[i] < cp.UnknownFieldNumbers[j] })
	return cp, nil
}

// RewriteWALCheckpoint sets message_id to id (text form and WAL_name); the
// time tick, recovery magic, replication fields, alter_wal_state and every
// unknown field keep their bytes, and so do unknown fields inside message_id.
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

// ClearAlterWALState removes alter_wal_state (every field 6 that is a
// message) from a consume checkpoint, so that Milvus does not resume an
// interrupted online switch toward a stale target; every other byte stays
// in place. A value without the field is returned as it is.
func ClearAlterWALState(b []byte) ([]byte, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a WALCheckpoint: %w", err)
	}
	kept := m.Fields[:0:0]
	for _, f := range m.Fields {
		if f.Num == cpAlterWALState && f.Type == protowire.BytesType {
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) == len(m.Fields) {
		return b, nil
	}
	m.Fields = kept
	return m.Bytes(), nil
}

// InWAL reports whether the checkpoint already names id with its WAL.
func (cp *WALCheckpoint) InWAL(id msgid.ID) bool {
	return cp.HasMessageID && cp.WAL == id.WAL() && cp.MessageID == id.Text()
}

// AtEarliest reports whether the checkpoint's message id is wal's earliest,
// in a form a reset keeps: heron's (0) or Milvus's own (kafka -2, rocksmq -1),
// not woodpecker's empty form (msgid.IsEmptyEarliest): a reset to wal has
// nothing to move there.
func (cp *WALCheckpoint) AtEarliest(wal commonpb.WALName) bool {
	if !cp.HasMessageID || cp.WAL != wal || msgid.IsEmptyEarliest(wal, []byte(cp.MessageID)) {
		return false
	}
	c, err := msgid.For(wal)
	if err != nil {
		return false
	}
	id, err := c.DecodeText(cp.MessageID)
	return err == nil && id.IsEarliest()
}
