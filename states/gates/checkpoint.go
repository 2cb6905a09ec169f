package gates

import (
	"fmt"
	"strings"

	"github.com/heron-shell/heron/framework"
)

// CheckpointLayoutName is the gate on consume checkpoints in a layout heron
// cannot rewrite: it appears only when it refuses.
const CheckpointLayoutName = "checkpoint layout is known"

// CheckpointLayout refuses (refused true) when a consume checkpoint in
// scope has a field heron does not know that holds what looks like a
// message id (idFields: "key field N (a kafka id "rx")"), or a pchannel in
// scope has a Milvus master recovery-control record (controls). heron keeps
// unknown bytes as they are, so such an id would stay in the old WAL while
// Milvus may read it (master's data_checkpoint is such a field: a
// WALConsumeCheckpoint{message_id, time_tick}, internal/streamingnode/
// server/wal/utility in a master snapshot, at a field number heron could
// not verify), and a recovery-control record may hold an interrupted
// online switch that master resumes toward its own target.
func CheckpointLayout(idFields, controls []string) (framework.Gate, bool) {
	g := framework.Gate{Name: CheckpointLayoutName, OK: true}
	if len(idFields) == 0 && len(controls) == 0 {
		return g, false
	}
	var why []string
	if len(idFields) > 0 {
		why = append(why, fmt.Sprintf("consume checkpoints of pchannels in scope hold what looks like a message id in fields heron does not know: %s; heron would keep it byte for byte, in the old WAL, and Milvus may read it (Milvus master's data_checkpoint is such a field; heron could not verify its number in master's proto, so it does not guess)", capped(idFields)))
	}
	if len(controls) > 0 {
		why = append(why, fmt.Sprintf("pchannels in scope have Milvus master's recovery-control records: %s; they may hold an interrupted online switch, which Milvus resumes on start toward its own target, and replication progress, in a layout heron could not verify", capped(controls)))
	}
	g.OK, g.Count = false, int64(len(idFields)+len(controls))
	g.Keys = append(append([]string{}, idFields...), controls...)[:min(len(idFields)+len(controls), MaxKeys)]
	g.Detail = strings.Join(why, "; ")
	g.Fix = []framework.Step{{Order: framework.StepOther, Text: "switch this Milvus build with its own online switch (POST /management/wal/alter on mixcoord), which knows its layout"}}
	return g, true
}

// KafkaEarliestNote says which form of Kafka's earliest a reset writes,
// and why: OffsetBeginning (-2) on Milvus 3.x, offset 0 otherwise (Milvus
// before 2.6.19 cannot read a negative id), naming the release it read.
func KafkaEarliestNote(v Versions, written string) string {
	if v.Line3() {
		return fmt.Sprintf("Kafka's earliest is written as %s (OffsetBeginning), the form Milvus's own online switch writes (2.6.23 MustGetEarliestMessageIDFromMQType), because the instance runs Milvus %s, which reads it back from checkpoints (milvus-io/milvus#50241)", written, v.Describe())
	}
	if !v.Known {
		return fmt.Sprintf("Kafka's earliest is written as offset %s, which every 2.6 release reads; the instance's Milvus release is %s: on Milvus 3.x pass --milvus-version, and heron writes -2 (OffsetBeginning) as Milvus does there", written, v.Describe())
	}
	return fmt.Sprintf("Kafka's earliest is written as offset %s (Milvus before 2.6.19 cannot read the negative OffsetBeginning); the instance runs Milvus %s", written, v.Describe())
}
