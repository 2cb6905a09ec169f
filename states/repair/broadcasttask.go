package repair

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// BroadcastTaskParams are the flags of `repair wal-broadcast-task`
// (birdwatcher's, with --broadcast_id as an alias of --id).
type BroadcastTaskParams struct {
	framework.ParamBase `use:"repair wal-broadcast-task" desc:"a broadcast task stuck in flight: reset it to PENDING with no vchannel acked (the coordinator appends its message again), or remove it (a plan unless --run)" example:"repair wal-broadcast-task --id 7 --mode reset --run"`
	ID                  int64  `name:"id" alias:"broadcast_id,broadcast-id" required:"true" placeholder:"ID" desc:"the broadcast task's id (streamingcoord-meta/broadcast-task/ID; show broadcast-task lists them)"`
	Mode                string `name:"mode" default:"reset" enum:"reset,remove" desc:"reset: PENDING again, every ack cleared; remove: delete the task"`
	Force               bool   `name:"force" desc:"with --mode remove: remove a task that some vchannels have not acked (they never see its message)"`
	framework.WriteFlags
	framework.Output
}

// Validate checks the flags that the tags cannot.
func (p *BroadcastTaskParams) Validate() error {
	if p.ID <= 0 {
		return framework.Usagef("repair wal-broadcast-task: --id %d: want a task id above 0", p.ID)
	}
	if p.Force && p.Mode != "remove" {
		return framework.Usagef("repair wal-broadcast-task: --force goes with --mode remove")
	}
	return nil
}

// BroadcastTaskBuild is `repair wal-broadcast-task`.
var BroadcastTaskBuild = Build(Repair[BroadcastTaskParams]{
	Command: "repair wal-broadcast-task", Cache: models.BroadcastTaskCache, Decide: decideBroadcastTask, Pending: pendingBroadcastTask,
	Line: func(p *BroadcastTaskParams) string {
		line := fmt.Sprintf("repair wal-broadcast-task --id %d --mode %s", p.ID, p.Mode)
		if p.Force {
			line += " --force"
		}
		return line
	},
})

// The gates of a remove (every vchannel acked the task, or --force) and of
// a reset (the task is in flight: a Done or Tombstone task was applied, and
// a reset would append its message to every vchannel again).
const (
	unackedGate  = "every vchannel acked the task"
	inFlightGate = "the task is in flight"
)

// pendingBroadcastTask counts what planning again at rev writes, for the
// verify: nothing once the task is removed, or PENDING with no ack (a
// missing task is a usage error to the operator, the goal to a remove).
func pendingBroadcastTask(ctx context.Context, inst *instance.Instance, p *BroadcastTaskParams, rev int64) (int64, error) {
	kv, ok, err := inst.Get(ctx, inst.Layout.Meta(models.BroadcastTaskKey(p.ID)), rev)
	if err != nil || !ok {
		return 0, err
	}
	if p.Mode == "remove" {
		return 1, nil
	}
	reset, err := models.ResetBroadcastTask(kv.Value)
	if err != nil || bytes.Equal(reset, kv.Value) {
		return 0, err
	}
	return 1, nil
}

func decideBroadcastTask(ctx context.Context, inst *instance.Instance, p *BroadcastTaskParams, rev int64) (*Decision, error) {
	key := inst.Layout.Meta(models.BroadcastTaskKey(p.ID))
	kv, ok, err := inst.Get(ctx, key, rev)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, framework.Usagef("repair wal-broadcast-task: --id %d: no broadcast task %s (show broadcast-task lists them)", p.ID, key)
	}
	t, err := models.DecodeBroadcastTask(kv.Value)
	if err != nil {
		return nil, fmt.Errorf("repair wal-broadcast-task: %s: %w", key, err)
	}
	what := fmt.Sprintf("broadcast task %d (%s, %s, %d of %d vchannels acked)", p.ID, models.MessageTypeName(t.MessageType), t.State, t.Acked, len(t.VChannels))
	d := &Decision{Subject: what, Reminders: []string{"start Milvus: the streaming coordinator loads the task as written here"}}
	if p.Mode == "remove" {
		unacked := t.UnackedVChannels()
		g := framework.Gate{Name: unackedGate, OK: len(unacked) == 0, Count: int64(len(unacked)), Detail: "every vchannel of its broadcast header acked it"}
		switch {
		case t.MessageError != "":
			g.OK, g.Detail = false, "its message cannot be read ("+t.MessageError+"): heron cannot tell which vchannels acked it"
		case len(t.VChannels) == 0:
			g.OK, g.Detail = false, "its message has no broadcast header: heron cannot tell which vchannels acked it"
		case len(unacked) > 0:
			g.Detail = fmt.Sprintf("%s will never see its %s message once it is removed: reset it instead (--mode reset), or --force",
				framework.Plural(int64(len(unacked)), "vchannel", ""), models.MessageTypeName(t.MessageType))
			g.Keys = unacked[:min(len(unacked), 5)]
		}
		d.Gate(g, p.Force)
		d.Changes = []Change{Delete(kv, describeTask(t))}
		return d, nil
	}
	// A task no longer in flight is refused before its message is read: a
	// Tombstone keeps no broadcast header to reset.
	g := framework.Gate{Name: inFlightGate, OK: t.State.InFlight(), Detail: fmt.Sprintf("it is %s: the coordinator appends its message to every vchannel", t.State)}
	if !g.OK {
		g.Keys = []string{key}
		g.Detail = fmt.Sprintf("it is %s, not Pending, WaitAck or Replicated (a Done task was applied): a reset appends its %s message to every vchannel again; remove it instead (--mode remove)",
			t.State, models.MessageTypeName(t.MessageType))
		d.Gates = []framework.Gate{g}
		return d, nil
	}
	reset, err := models.ResetBroadcastTask(kv.Value)
	if err != nil {
		return nil, fmt.Errorf("repair wal-broadcast-task: cannot reset %s: %w (remove it with --mode remove --force)", key, err)
	}
	d.Gates = []framework.Gate{g}
	if string(reset) == string(kv.Value) {
		return d, nil
	}
	after, _ := models.DecodeBroadcastTask(reset)
	d.Changes = []Change{Put(kv, reset, describeTask(t), describeTask(after))}
	return d, nil
}

func describeTask(t *models.BroadcastTask) string {
	acked := make([]string, 0, len(t.VChannels))
	for i, v := range t.VChannels {
		if t.AckedVChannels[i] {
			acked = append(acked, v)
		}
	}
	s := fmt.Sprintf("%s %s, acked by %d of %d vchannels", t.State, models.MessageTypeName(t.MessageType), len(acked), len(t.VChannels))
	if len(acked) > 0 {
		s += " (" + strings.Join(acked, ", ") + ")"
	}
	return s
}
