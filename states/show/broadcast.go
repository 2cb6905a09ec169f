package show

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// BroadcastParam is `show broadcast-task`.
type BroadcastParam struct {
	framework.ParamBase `use:"show broadcast-task" desc:"streamingcoord broadcast tasks; Pending, WaitAck and Replicated ones are in flight" example:"show broadcast-task --format json" alias:"wal-broadcast,broadcast-tasks,broadcast"`
	Wide
	framework.Output
}

// BroadcastRow is one broadcast task. Error: its value does not decode, so
// whether it is in flight is not known.
type BroadcastRow struct {
	ID               string `json:"id"`
	Key              string `json:"key"`
	State            string `json:"state"`
	InFlight         bool   `json:"in_flight"`
	AckedCheckpoints int    `json:"acked_checkpoints"`
	// Type is the message's type ("AlterWAL", "" when the message does
	// not say); VChannels its broadcast header's vchannels, Acked how many
	// of them acked.
	Type      string `json:"type"`
	VChannels int    `json:"vchannels"`
	Acked     int    `json:"acked"`
	Error     string `json:"error,omitempty"`
	cause     string // the decode error, for the table (the row names the key)
}

// BroadcastResult is the output of `show broadcast-task`.
type BroadcastResult struct {
	Tasks    []BroadcastRow `json:"tasks"`
	InFlight int            `json:"in_flight"`
	Errors   int            `json:"errors"`
	wide     bool
}

func runBroadcast(ctx context.Context, inst *instance.Instance, p *BroadcastParam, out framework.IO) (framework.Result, error) {
	warn := out.Stderr
	res, err := BroadcastTasks(ctx, inst, warn)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	if res.InFlight > 0 {
		fmt.Fprintf(warn, "warning: %d broadcast task(s) in flight (Pending, WaitAck or Replicated)\n", res.InFlight)
	}
	return res, nil
}

// BroadcastTasks lists the broadcast tasks of the instance in natural id
// order; a value that does not decode is a row with its error.
func BroadcastTasks(ctx context.Context, inst *instance.Instance, warn io.Writer) (*BroadcastResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	res := &BroadcastResult{Tasks: []BroadcastRow{}}
	_, err := inst.Walk(ctx, 0, []string{models.BroadcastTaskPrefix}, func(e instance.Entry) error {
		if e.Kind != models.KindBroadcastTask {
			return nil
		}
		row := BroadcastRow{ID: e.ID, Key: e.Rel}
		if bt, err := models.DecodeBroadcastTask(e.Value); err != nil {
			row.Error = fmt.Sprintf("key %s does not decode (cannot tell whether it is in flight): %v", e.Rel, err)
			row.cause = err.Error()
			res.Errors++
			fmt.Fprintf(warn, "warning: broadcast task %s\n", framework.EscapeText(row.Error))
		} else {
			row.State, row.InFlight, row.AckedCheckpoints = bt.State.String(), bt.State.InFlight(), bt.AckedCheckpoint
			row.VChannels, row.Acked = len(bt.VChannels), bt.Acked
			if bt.HasMessageType {
				row.Type = models.MessageTypeName(bt.MessageType)
			}
		}
		if row.InFlight {
			res.InFlight++
		}
		res.Tasks = append(res.Tasks, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(res.Tasks, func(a, b BroadcastRow) int { return naturalCompare(a.Key, b.Key) })
	if res.Errors > 0 {
		fmt.Fprintf(warn, "warning: %d broadcast task key(s) do not decode: listed with their error\n", res.Errors)
	}
	return res, nil
}

// JSON implements framework.Result.
func (r *BroadcastResult) JSON() any { return r }

// Table implements framework.Result.
func (r *BroadcastResult) Table(w io.Writer) error {
	header := []string{"ID", "STATE", "TYPE", "IN FLIGHT", "ACKED CHECKPOINTS"}
	if r.Errors > 0 {
		header = append(header, "ERROR")
	}
	t := newTable(w, header...).fit(r.wide, 0, 5)
	for _, b := range r.Tasks {
		flight := "no"
		if b.InFlight {
			flight = "YES"
		}
		acked := itoa(b.AckedCheckpoints)
		if b.VChannels > 0 {
			acked = fmt.Sprintf("%d (%d of %d vchannels acked)", b.AckedCheckpoints, b.Acked, b.VChannels)
		}
		cells := []string{b.ID, b.State, b.Type, flight, acked}
		if b.Error != "" {
			cells = []string{b.ID, "", "", "unknown", "", "does not decode: " + b.cause}
		} else if r.Errors > 0 {
			cells = append(cells, "")
		}
		t.row(cells...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d task(s), %d in flight\n", len(r.Tasks), r.InFlight); err != nil {
		return err
	}
	if r.Errors > 0 {
		if _, err := fmt.Fprintf(w, "%d task(s) do not decode (see ERROR): whether they are in flight is not known\n", r.Errors); err != nil {
			return err
		}
	}
	if r.InFlight > 0 {
		_, err := fmt.Fprintln(w, "note: in-flight tasks are re-appended or re-acked when Milvus starts; their callbacks write WAL ids back into meta")
		return err
	}
	return nil
}

// Lines implements framework.Result: one line per task, then a summary line
// (there even when there is no task).
func (r *BroadcastResult) Lines(w io.Writer) error {
	for _, b := range r.Tasks {
		if err := line(w, "broadcast-task", "id", b.ID, "state", b.State, "type", b.Type, "in_flight", boolS(b.InFlight),
			"acked_checkpoints", itoa(b.AckedCheckpoints), "vchannels", itoa(b.VChannels), "acked", itoa(b.Acked), "error", b.Error); err != nil {
			return err
		}
	}
	return line(w, "summary", "tasks", itoa(len(r.Tasks)), "in_flight", itoa(r.InFlight), "errors", itoa(r.Errors))
}
