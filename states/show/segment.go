package show

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// SegmentParam is `show segment`.
type SegmentParam struct {
	framework.ParamBase `use:"show segment" desc:"datacoord segments with their positions, and counts by state (output is as large as its result)"`
	Collection          int64  `name:"collection" default:"0" desc:"only the segments of this collection ID"`
	State               string `name:"state" default:"" desc:"only segments in this state (Growing, Sealed, Flushing, Flushed, Dropped, Importing)"`
	framework.Output
}

// Validate rejects an unknown --state as a usage error.
func (p *SegmentParam) Validate() error {
	if p.State == "" {
		return nil
	}
	if _, err := models.ParseSegmentState(p.State); err != nil {
		return framework.Usagef("--state: %v", err)
	}
	return nil
}

// SegmentPositionRow is a segment's start or dml position.
type SegmentPositionRow struct {
	WAL            string `json:"wal"`
	WALGuessed     bool   `json:"wal_guessed"`
	MessageIDHex   string `json:"message_id_hex"`
	MessageIDHuman string `json:"message_id_human"`
	Timestamp      uint64 `json:"timestamp"`
	Time           string `json:"time"`
	Error          string `json:"error,omitempty"`
}

// SegmentRow is one segment.
type SegmentRow struct {
	ID            int64               `json:"id"`
	Collection    int64               `json:"collection"`
	Partition     int64               `json:"partition"`
	VChannel      string              `json:"vchannel"`
	State         string              `json:"state"`
	Rows          int64               `json:"rows"`
	Level         string              `json:"level"`
	Importing     bool                `json:"importing"`
	Key           string              `json:"key"`
	StartPosition *SegmentPositionRow `json:"start_position"`
	DMLPosition   *SegmentPositionRow `json:"dml_position"`
}

// SegmentResult is the output of `show segment`. It holds the rows it prints
// (its size is that of the result) and one counter per state.
type SegmentResult struct {
	Segments []SegmentRow `json:"segments"`
	// Counts are by state over the segments of the --collection filter,
	// whatever --state says.
	Counts map[string]int `json:"counts"`
	Total  int            `json:"total"`
}

var segmentLevels = map[int32]string{0: "Legacy", 1: "L0", 2: "L1", 3: "L2"}

func levelName(l int32) string {
	if n, ok := segmentLevels[l]; ok {
		return n
	}
	return fmt.Sprintf("Level(%d)", l)
}

func runSegment(ctx context.Context, inst *instance.Instance, p *SegmentParam) (framework.Result, error) {
	var state *commonpb.SegmentState
	if p.State != "" {
		st, err := models.ParseSegmentState(p.State)
		if err != nil {
			return nil, framework.Usagef("--state: %v", err)
		}
		state = &st
	}
	return result(Segments(ctx, inst, p.Collection, state, framework.Stderr(ctx)))
}

// Segments lists the segments of the instance (only true three-part keys under
// datacoord-meta/s/), filtered by collection (0: all) and state (nil: all).
func Segments(ctx context.Context, inst *instance.Instance, collection int64, state *commonpb.SegmentState, warn io.Writer) (*SegmentResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	wals, rev, err := consumeWALs(ctx, inst, 0, warn)
	if err != nil {
		return nil, err
	}
	res := &SegmentResult{Segments: []SegmentRow{}, Counts: map[string]int{}}
	_, err = inst.Walk(ctx, rev, []string{models.SegmentPrefix}, func(e instance.Entry) error {
		if e.Kind != models.KindSegment {
			return nil
		}
		if collection != 0 && e.Collection != collection {
			return nil
		}
		s, err := models.DecodeSegmentInfo(e.Value)
		if err != nil {
			return fmt.Errorf("key %s: %w", e.Rel, err)
		}
		res.Counts[models.SegmentStateName(s.State)]++
		if state != nil && s.State != *state {
			return nil
		}
		fallback := wals[models.PChannelOf(s.InsertChannel)]
		row := SegmentRow{ID: s.ID, Collection: s.CollectionID, Partition: s.PartitionID, VChannel: s.InsertChannel,
			State: models.SegmentStateName(s.State), Rows: s.NumRows, Level: levelName(s.Level), Importing: s.IsImporting, Key: e.Rel,
			StartPosition: segmentPosition(s.StartPosition, fallback), DMLPosition: segmentPosition(s.DMLPosition, fallback)}
		for _, p := range []*SegmentPositionRow{row.StartPosition, row.DMLPosition} {
			if p != nil && p.Error != "" {
				fmt.Fprintf(warn, "warning: segment %s: %s\n", e.Rel, p.Error)
			}
		}
		res.Segments = append(res.Segments, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Total = len(res.Segments)
	return res, nil
}

func segmentPosition(p *msgpb.MsgPosition, fallback commonpb.WALName) *SegmentPositionRow {
	if p == nil {
		return nil
	}
	wal, guessed := models.PositionWAL(p, fallback)
	row := &SegmentPositionRow{WAL: walName(wal), WALGuessed: guessed, MessageIDHex: fmt.Sprintf("%x", p.GetMsgID()),
		Timestamp: p.GetTimestamp(), Time: tsoTime(p.GetTimestamp())}
	if wal == commonpb.WALName_Unknown {
		row.Error = "position names no WAL and no consume checkpoint of its pchannel names one"
		return row
	}
	h, errText := describe(wal, p.GetMsgID())
	row.MessageIDHuman = h
	if errText != "" {
		row.Error = fmt.Sprintf("message id does not decode as %s: %s", walName(wal), errText)
	}
	return row
}

func positionText(p *SegmentPositionRow) string {
	if p == nil {
		return ""
	}
	id := p.MessageIDHuman
	if p.Error != "" {
		id = "error: " + p.Error
	}
	wal := p.WAL
	if p.WALGuessed {
		wal += "?"
	}
	return fmt.Sprintf("%s (%s) @ %s", id, wal, p.Time)
}

func (r *SegmentResult) countsText() string {
	states := make([]string, 0, len(r.Counts))
	for s := range r.Counts {
		states = append(states, s)
	}
	sort.Strings(states)
	parts := make([]string, len(states))
	for i, s := range states {
		parts[i] = fmt.Sprintf("%s=%d", s, r.Counts[s])
	}
	return strings.Join(parts, " ")
}

// JSON implements framework.Result.
func (r *SegmentResult) JSON() any { return r }

// Table implements framework.Result.
func (r *SegmentResult) Table(w io.Writer) error {
	t := newTable(w, "ID", "COLLECTION", "PARTITION", "VCHANNEL", "STATE", "ROWS", "LEVEL", "START POSITION", "DML POSITION")
	for _, s := range r.Segments {
		state := s.State
		if s.Importing {
			state += " (importing)"
		}
		t.row(i64(s.ID), i64(s.Collection), i64(s.Partition), s.VChannel, state, i64(s.Rows), s.Level,
			positionText(s.StartPosition), positionText(s.DMLPosition))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d segment(s) shown; by state: %s\n(WAL? = position without WAL_name, decoded with its pchannel's consume-checkpoint WAL)\n", r.Total, orDash(r.countsText()))
	return err
}

// Lines implements framework.Result.
func (r *SegmentResult) Lines(w io.Writer) error {
	for _, s := range r.Segments {
		if err := line(w, "segment", "id", i64(s.ID), "collection", i64(s.Collection), "partition", i64(s.Partition),
			"vchannel", s.VChannel, "state", s.State, "rows", i64(s.Rows), "level", s.Level, "importing", boolS(s.Importing),
			"start", positionText(s.StartPosition), "dml", positionText(s.DMLPosition)); err != nil {
			return err
		}
	}
	return line(w, "counts", "total", itoa(r.Total), "by_state", r.countsText())
}
