package show

import (
	"context"
	"fmt"
	"io"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// BroadcastParam is `show broadcast-task`.
type BroadcastParam struct {
	framework.ParamBase `use:"show broadcast-task" desc:"streamingcoord broadcast tasks; Pending, WaitAck and Replicated ones are in flight"`
	framework.Output
}

// BroadcastRow is one broadcast task.
type BroadcastRow struct {
	ID               string `json:"id"`
	Key              string `json:"key"`
	State            string `json:"state"`
	InFlight         bool   `json:"in_flight"`
	AckedCheckpoints int    `json:"acked_checkpoints"`
}

// BroadcastResult is the output of `show broadcast-task`.
type BroadcastResult struct {
	Tasks    []BroadcastRow `json:"tasks"`
	InFlight int            `json:"in_flight"`
}

func runBroadcast(ctx context.Context, inst *instance.Instance, _ *BroadcastParam) (framework.Result, error) {
	res, err := BroadcastTasks(ctx, inst)
	if err != nil {
		return nil, err
	}
	if res.InFlight > 0 {
		fmt.Fprintf(framework.Stderr(ctx), "warning: %d broadcast task(s) in flight (Pending, WaitAck or Replicated)\n", res.InFlight)
	}
	return res, nil
}

// BroadcastTasks lists the broadcast tasks of the instance.
func BroadcastTasks(ctx context.Context, inst *instance.Instance) (*BroadcastResult, error) {
	res := &BroadcastResult{Tasks: []BroadcastRow{}}
	_, err := inst.Walk(ctx, 0, []string{models.BroadcastTaskPrefix}, func(e instance.Entry) error {
		if e.Kind != models.KindBroadcastTask {
			return nil
		}
		bt, err := models.DecodeBroadcastTask(e.Value)
		if err != nil {
			return fmt.Errorf("key %s: %w", e.Rel, err)
		}
		row := BroadcastRow{ID: e.ID, Key: e.Rel, State: bt.State.String(), InFlight: bt.State.InFlight(), AckedCheckpoints: bt.AckedCheckpoint}
		if row.InFlight {
			res.InFlight++
		}
		res.Tasks = append(res.Tasks, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// JSON implements framework.Result.
func (r *BroadcastResult) JSON() any { return r }

// Table implements framework.Result.
func (r *BroadcastResult) Table(w io.Writer) error {
	t := newTable(w, "ID", "STATE", "IN FLIGHT", "ACKED CHECKPOINTS")
	for _, b := range r.Tasks {
		flight := "no"
		if b.InFlight {
			flight = "YES"
		}
		t.row(b.ID, b.State, flight, itoa(b.AckedCheckpoints))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d task(s), %d in flight\n", len(r.Tasks), r.InFlight); err != nil {
		return err
	}
	if r.InFlight > 0 {
		_, err := fmt.Fprintln(w, "note: in-flight tasks are re-appended or re-acked when Milvus starts; their callbacks write WAL ids back into meta")
		return err
	}
	return nil
}

// Lines implements framework.Result.
func (r *BroadcastResult) Lines(w io.Writer) error {
	for _, b := range r.Tasks {
		if err := line(w, "broadcast-task", "id", b.ID, "state", b.State, "in_flight", boolS(b.InFlight), "acked_checkpoints", itoa(b.AckedCheckpoints)); err != nil {
			return err
		}
	}
	return nil
}
