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
	// Milvus master adds term (7) and control_checkpoint_time_tick (8):
	// "int64 term = 7; uint64 control_checkpoint_time_tick = 8;" in master's
	// design doc "Checkpoint And Snapshot Persistence" §7 (milvus-io/milvus,
	// reviewed 2026-07-29), the message as master persists it. Neither holds
	// a message id: both are kept byte for byte.
	cpTerm                      protowire.Number = 7
	cpControlCheckpointTimeTick protowire.Number = 8
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
	// Term and ControlCheckpointTimeTick are master's fields 7 and 8
	// (HasTerm: field 7 is there).
	Term                      int64
	HasTerm                   bool
	ControlCheckpointTimeTick uint64
	// UnknownFields counts fields heron does not know (numbers above 8, and a
	// field 6, 7 or 8 of another wire type, which proto also reads as
	// unknown): kept byte for byte. UnknownFieldNumbers lists their numbers,
	// sorted, once each.
	UnknownFields       int
	UnknownFieldNumbers []int32
	// IDFields are the unknown fields that hold what looks like a message id
	// (a MessageID, or a message with one inside: master's data_checkpoint,
	// a WALConsumeCheckpoint{message_id, time_tick}, is one, at a field
	// number heron could not verify). Keeping one byte for byte would keep
	// an old-WAL id Milvus may read: a reset refuses such a checkpoint.
	IDFields []IDField
}

// IDField is an unknown checkpoint field that looks like it holds a
// message id: its number and the id as it reads (WAL and text).
type IDField struct {
	Num  int32
	WAL  commonpb.WALName
	Text string
}

// Describe is the field in words: "field 9 (a kafka id "rx")".
func (f IDField) Describe() string {
	return fmt.Sprintf("field %d (a %s id %q)", f.Num, msgid.Name(f.WAL), f.Text)
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
		case f.Num == cpTerm && f.Type == protowire.VarintType:
			cp.Term, cp.HasTerm = int64(m.Varint(cpTerm)), true
		case f.Num == cpControlCheckpointTimeTick && f.Type == protowire.VarintType:
			cp.ControlCheckpointTimeTick = m.Varint(cpControlCheckpointTimeTick)
		case f.Num >= cpAlterWALState:
			cp.UnknownFields++
			if !seen[int32(f.Num)] {
				seen[int32(f.Num)] = true
				cp.UnknownFieldNumbers = append(cp.UnknownFieldNumbers, int32(f.Num))
			}
			if f.Type != protowire.BytesType {
				break
			}
			if id, ok := heldMessageID(f.Payload, cp.WAL); ok {
				cp.IDFields = append(cp.IDFields, IDField{Num: int32(f.Num), WAL: id.GetWALName(), Text: id.GetId()})
			}
		}
	}
	sort.Slice(cp.UnknownFieldNumbers, func(i, j int) bool { return cp.UnknownFieldNumbers[i] < cp.UnknownFieldNumbers[j] })
	return cp, nil
}

// heldMessageID reports whether b is, or holds as one of its own fields, a
// commonpb.MessageID {id = 1, WAL_name = 2} and nothing else: a known
// WAL_name whose codec reads the id text (woodpecker's empty earliest has no
// field 1), or, without WAL_name, a non-empty id text that the checkpoint's
// own WAL (cpWAL) reads. The id comes back with the WAL it was read in.
func heldMessageID(b []byte, cpWAL commonpb.WALName) (*commonpb.MessageID, bool) {
	if id, ok := asMessageID(b, cpWAL); ok {
		return id, true
	}
	m, err := wire.Parse(b)
	if err != nil {
		return nil, false
	}
	for _, f := range m.Fields {
		if f.Type != protowire.BytesType {
			continue
		}
		if id, ok := asMessageID(f.Payload, cpWAL); ok {
			return id, true
		}
	}
	return nil, false
}

func asMessageID(b []byte, cpWAL commonpb.WALName) (*commonpb.MessageID, bool) {
	m, err := wire.Parse(b)
	if err != nil || len(m.Fields) == 0 {
		return nil, false
	}
	for _, f := range m.Fields {
		if !(f.Num == midID && f.Type == protowire.BytesType) && !(f.Num == midWALName && f.Type == protowire.VarintType) {
			return nil, false
		}
	}
	wal := commonpb.WALName(int32(m.Varint(midWALName)))
	text := m.String(midID)
	if wal == commonpb.WALName_Unknown {
		if text == "" {
			return nil, false
		}
		wal = cpWAL
	}
	c, err := msgid.For(wal)
	if err != nil {
		return nil, false
	}
	if _, err := c.DecodeText(text); err != nil {
		return nil, false
	}
	return &commonpb.MessageID{Id: text, WALName: wal}, true
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
