package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// onlineSwitch follows Milvus's online WAL switch (3.0; 2.6.14+) from the
// metastore: the AlterWAL broadcast task's acks, each pchannel's
// alter_wal_state stage (FLUSHING -> ADVANCE_CHECKPOINT -> cleared) and how
// long it stayed, config/mqtype, and the known failure signatures:
// mq.type flipped before the nodes switched (milvus#52948), a replication
// checkpoint lost (milvus#52946). Read-only: heron does not call the endpoint.
func onlineSwitch(reads []*Snapshot, o Options) Item {
	first, last := reads[0], reads[len(reads)-1]
	span := last.At.Sub(first.At)
	st := last.State
	target := msgid.Name(o.Target)
	var fs []finding
	var progress []string
	for _, t := range last.Tasks {
		if t.Task == nil || t.Task.MessageType != models.MessageTypeAlterWAL {
			continue
		}
		text := fmt.Sprintf("broadcast %s %s: %d of %d vchannel(s) acked", strings.TrimPrefix(t.Key, models.BroadcastTaskPrefix),
			t.Task.State, t.Task.Acked, len(t.Task.VChannels))
		var waiting []string
		for i, v := range t.Task.VChannels {
			if p := models.PChannelOf(v); (i >= len(t.Task.AckedVChannels) || !t.Task.AckedVChannels[i]) && !slices.Contains(waiting, p) {
				waiting = append(waiting, p)
			}
		}
		if len(waiting) > 0 {
			text += " (waiting on " + strings.Join(waiting, ", ") + ")"
		}
		progress = append(progress, text)
		if t.Task.AlterWAL != nil && t.Task.AlterWAL.Target != o.Target {
			fs = append(fs, finding{Warn, o.meta(t.Key), fmt.Sprintf("the AlterWAL task targets %s, not %s", msgid.Name(t.Task.AlterWAL.Target), target)})
		}
	}
	firstStage := map[string]models.AlterWALStage{}
	for p, cc := range first.State.ConsumeCPs {
		if cc.CP.AlterWAL != nil {
			firstStage[p] = cc.CP.AlterWAL.Stage
		}
	}
	stages := map[string]int{}
	var notSwitched []string
	var oldest time.Duration
	for _, p := range slices.Sorted(maps.Keys(st.ConsumeCPs)) {
		cc := st.ConsumeCPs[p]
		key := o.meta(cc.Key)
		stage := "cleared"
		if a := cc.CP.AlterWAL; a != nil && a.Interrupted() {
			stage = a.Stage.String()
			// time_tick is the AlterWAL message's (AlterWALTs in the
			// streaming node's recovery): how long the switch has run.
			age := time.Duration(0)
			if a.TimeTick != 0 {
				age = last.At.Sub(models.TSOTime(a.TimeTick)).Truncate(time.Second)
				oldest = max(oldest, age)
			}
			switch s0, ok := firstStage[p]; {
			case age > o.StuckAfter:
				fs = append(fs, finding{Fail, key, fmt.Sprintf("%s is still in stage %s %s after the switch message", p, a.Stage, age)})
			case ok && s0 == a.Stage && len(reads) > 1 && span >= o.StuckAfter:
				fs = append(fs, finding{Fail, key, fmt.Sprintf("%s has stayed in stage %s for %s", p, a.Stage, span.Truncate(time.Second))})
			}
		}
		stages[stage]++
		onTarget := cc.CP.HasMessageID && cc.CP.WAL == o.Target
		if !onTarget && (cc.CP.AlterWAL == nil || cc.CP.AlterWAL.Stage != models.AlterWALStageAdvanceCheckpoint) {
			notSwitched = append(notSwitched, p)
		}
		if o.Before != nil && o.Before.Replicate[p] && !cc.CP.HasReplicateCheckpoint {
			fs = append(fs, finding{Fail, key, fmt.Sprintf("%s lost its replicate_checkpoint during the switch (milvus#52946): replication cannot resume from it", p)})
		}
	}
	mqKey := models.EffectiveMQTypeKey(st.ConfigKeys())
	mq := ""
	if mqKey != "" {
		mq = strings.ToLower(strings.TrimSpace(st.Config[mqKey]))
	}
	if mq == target && len(notSwitched) > 0 {
		fs = append(fs, finding{Fail, o.root(mqKey), fmt.Sprintf("%s already says %s while %d pchannel(s) (%s first) have not switched: mq.type flipped early (milvus#52948)",
			mqKey, target, len(notSwitched), notSwitched[0])})
	}
	parts := []string{}
	for _, s := range []string{"FLUSHING", "ADVANCE_CHECKPOINT", "cleared"} {
		if stages[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", stages[s], s))
		}
	}
	progress = append(progress, "pchannels: "+strings.Join(parts, ", "))
	if oldest > 0 {
		progress = append(progress, fmt.Sprintf("switch message %s ago", oldest))
	}
	progress = append(progress, fmt.Sprintf("mq.type override: %q", mq))
	done := stages["FLUSHING"] == 0 && stages["ADVANCE_CHECKPOINT"] == 0 && len(notSwitched) == 0 && mq == target
	if !done && len(fs) == 0 {
		fs = append(fs, finding{Warn, "", "in progress: " + strings.Join(progress, "; ")})
	}
	return judge("online-switch", "switch to "+target+" complete: "+strings.Join(progress, "; "),
		"a stage stuck past the threshold or a failure signature needs the coordinator's log; Milvus resumes an interrupted switch on restart", fs)
}
