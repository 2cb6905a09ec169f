package show

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// defaultTableLimit is how many segments a table shows when --limit is not given.
const defaultTableLimit = 1000

// SegmentParam is `show segment`.
type SegmentParam struct {
	framework.ParamBase `use:"show segment" desc:"datacoord segments (every key under datacoord-meta/s/) with counts by state; the table shows 1000 unless --limit" example:"show segment --collection 449012345678 --state Growing --detail" alias:"segments"`
	Segment             int64  `name:"segment" default:"0" placeholder:"ID" desc:"only the segment with this ID (all when omitted)"`
	Collection          int64  `name:"collection" default:"0" placeholder:"ID" complete:"collection" desc:"only the segments of this collection ID (all when omitted)"`
	State               string `name:"state" default:"" placeholder:"STATE" desc:"only segments in this state: Growing, Sealed, Flushing, Flushed, Dropped or Importing (all when omitted)"`
	Partition           int64  `name:"partition" default:"0" placeholder:"ID" complete:"-" desc:"only the segments of this partition ID (all when omitted)"`
	VChannel            string `name:"vchannel" default:"" placeholder:"VCHANNEL" desc:"only the segments of this vchannel (all when omitted)"`
	Level               string `name:"level" default:"" enum:"Legacy,L0,L1,L2" desc:"only the segments of this level: Legacy, L0, L1 or L2 (all when omitted)"`
	Limit               string `name:"limit" default:"" placeholder:"N" desc:"print at most N segments, 0 for all (when omitted: 1000 in a table, all in json and line)"`
	Detail              bool   `name:"detail" desc:"table: add the start and dml positions"`
	Wide
	framework.Output
}

// Validate rejects an unknown --state and a bad --limit as usage errors.
func (p *SegmentParam) Validate() error {
	if p.State != "" {
		if _, err := models.ParseSegmentState(p.State); err != nil {
			return framework.Usagef("--state: %v", err)
		}
	}
	if _, _, err := parseLimit(p.Limit); err != nil {
		return err
	}
	return nil
}

// parseLimit reads --limit: given is false when it was omitted.
func parseLimit(s string) (n int, given bool, err error) {
	if s == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false, framework.Usagef("--limit: %q is not a count (0 or more; 0 prints all)", s)
	}
	return n, true, nil
}

// PositionRow is a position of a listing (a segment's start or dml
// position, a channel watch's seek position), decoded with its WAL_name, else
// with the WAL of its pchannel's consume checkpoint (wal_guessed). Message ids
// are given as hex and base64 of their bytes, and decoded (message_id_human).
type PositionRow struct {
	WAL             string `json:"wal"`
	WALGuessed      bool   `json:"wal_guessed"`
	MessageIDHex    string `json:"message_id_hex"`
	MessageIDBase64 string `json:"message_id_base64"`
	MessageIDHuman  string `json:"message_id_human"`
	Timestamp       uint64 `json:"timestamp"`
	Time            string `json:"time"`
	Error           string `json:"error,omitempty"`
}

// SegmentRow is one key under datacoord-meta/s/. Odd: the key is not
// {collection}/{partition}/{segment} (Milvus reads it as a segment all the
// same). Error: the value does not decode; the ids are then the key's.
type SegmentRow struct {
	ID            int64        `json:"id"`
	Collection    int64        `json:"collection"`
	Partition     int64        `json:"partition"`
	VChannel      string       `json:"vchannel"`
	State         string       `json:"state"`
	Rows          int64        `json:"rows"`
	Level         string       `json:"level"`
	Importing     bool         `json:"importing"`
	Key           string       `json:"key"`
	Odd           bool         `json:"odd"`
	StartPosition *PositionRow `json:"start_position"`
	DMLPosition   *PositionRow `json:"dml_position"`
	Error         string       `json:"error,omitempty"`
	decodeErr     string
}

// SegmentSummary is what `show segment` counts over every key it reads.
type SegmentSummary struct {
	// Counts are by state over the segments of the --collection and
	// --segment filters, whatever --state says.
	Counts map[string]int `json:"counts"`
	// Total is the number of rows shown, More the rows that passed the
	// filters but not the limit.
	Total int `json:"total"`
	More  int `json:"more"`
	// OddKeys and Errors count the odd keys and the undecodable values
	// that passed the filters, shown or not.
	OddKeys int `json:"odd_keys"`
	Errors  int `json:"errors"`
}

// SegmentResult is the JSON document of `show segment`.
type SegmentResult struct {
	Segments []SegmentRow `json:"segments"`
	SegmentSummary
}

// SegmentFilter selects segments; zero values select all.
type SegmentFilter struct {
	Segment    int64
	Collection int64
	State      *commonpb.SegmentState
	Partition  int64
	VChannel   string
	Level      string
}

// decoded reports whether a decoded segment passes the filters that need
// its value (an odd key's ids are in its value only).
func (f SegmentFilter) decoded(seg *models.SegmentInfo) bool {
	return (f.Collection == 0 || seg.CollectionID == f.Collection) && (f.Segment == 0 || seg.ID == f.Segment) &&
		(f.Partition == 0 || seg.PartitionID == f.Partition) && (f.VChannel == "" || seg.InsertChannel == f.VChannel) &&
		(f.Level == "" || levelName(seg.Level) == f.Level)
}

var segmentLevels = map[int32]string{0: "Legacy", 1: "L0", 2: "L1", 3: "L2"}

func levelName(l int32) string {
	if n, ok := segmentLevels[l]; ok {
		return n
	}
	return fmt.Sprintf("Level(%d)", l)
}

func runSegment(ctx context.Context, inst *instance.Instance, p *SegmentParam, out framework.IO) (framework.Result, error) {
	f := SegmentFilter{Segment: p.Segment, Collection: p.Collection, Partition: p.Partition, VChannel: p.VChannel, Level: p.Level}
	if p.State != "" {
		st, err := models.ParseSegmentState(p.State)
		if err != nil {
			return nil, framework.Usagef("--state: %v", err)
		}
		f.State = &st
	}
	limit, given, err := parseLimit(p.Limit)
	if err != nil {
		return nil, err
	}
	if !given && p.OutputFormat() == framework.FormatTable {
		limit = defaultTableLimit
	}
	warn := out.Stderr
	scan, err := NewSegmentScan(ctx, inst, f, warn)
	if err != nil {
		return nil, err
	}
	if p.Segment != 0 {
		// Like an absent --collection elsewhere, an absent segment is an
		// error, not an empty table.
		quiet := *scan
		quiet.warn = io.Discard
		sum, err := quiet.Each(ctx, 1, func(SegmentRow) error { return nil }, nil)
		if err != nil {
			return nil, err
		}
		if sum.Total == 0 && len(sum.Counts) == 0 {
			return nil, fmt.Errorf("show segment: no segment %d in this instance%s", p.Segment, filtersText(f))
		}
	}
	return &segmentListing{ctx: ctx, scan: scan, limit: limit, detail: p.Detail, wide: p.Wide.Wide}, nil
}

// SegmentScan reads the segments of an instance at one revision, a page at a
// time: nothing per segment is kept.
type SegmentScan struct {
	inst   *instance.Instance
	rev    int64
	wals   map[string]commonpb.WALName
	filter SegmentFilter
	warn   io.Writer
}

// NewSegmentScan pins a revision and reads the consume checkpoints' WALs
// (which decode positions without WAL_name).
func NewSegmentScan(ctx context.Context, inst *instance.Instance, f SegmentFilter, warn io.Writer) (*SegmentScan, error) {
	if warn == nil {
		warn = io.Discard
	}
	wals, rev, err := consumeWALs(ctx, inst, 0, warn)
	if err != nil {
		return nil, err
	}
	return &SegmentScan{inst: inst, rev: rev, wals: wals, filter: f, warn: warn}, nil
}

// Each calls fn for the first limit rows (0: all) that pass the filter, in
// key order, and counts every key; atLimit (if not nil) runs once, at the
// first row past the limit, before the rest is counted. A value that does
// not decode is a row with Error set (and a warning), never a failed listing.
func (s *SegmentScan) Each(ctx context.Context, limit int, fn func(SegmentRow) error, atLimit func() error) (SegmentSummary, error) {
	sum := SegmentSummary{Counts: map[string]int{}}
	f := s.filter
	_, err := s.inst.Walk(ctx, s.rev, []string{models.SegmentPrefix}, func(e instance.Entry) error {
		if e.Kind != models.KindSegment {
			return nil
		}
		// A true segment key names its collection and id: filter before decoding.
		if !e.Odd && ((f.Collection != 0 && e.Collection != f.Collection) || (f.Segment != 0 && e.Segment != f.Segment) ||
			(f.Partition != 0 && e.Partition != f.Partition)) {
			return nil
		}
		row, ok := s.row(e)
		if !ok {
			return nil
		}
		if row.Error == "" {
			sum.Counts[row.State]++
			if f.State != nil && row.State != models.SegmentStateName(*f.State) {
				return nil
			}
		}
		if row.Odd {
			sum.OddKeys++
		}
		if row.Error != "" {
			sum.Errors++
		}
		if limit > 0 && sum.Total >= limit {
			sum.More++
			if sum.More == 1 && atLimit != nil {
				return atLimit()
			}
			return nil
		}
		sum.Total++
		return fn(row)
	})
	if err != nil {
		return sum, err
	}
	if sum.Errors > 0 {
		fmt.Fprintf(s.warn, "warning: %d segment key(s) do not decode: listed with their error\n", sum.Errors)
	}
	if sum.OddKeys > 0 {
		fmt.Fprintf(s.warn, "warning: %d key(s) under %s are not {collection}/{partition}/{segment}: Milvus reads them as segments (listed as odd)\n",
			sum.OddKeys, models.SegmentPrefix)
	}
	return sum, nil
}

// row decodes one key; ok is false when the filters leave it out. An
// undecodable value passes the filters it cannot be checked against.
func (s *SegmentScan) row(e instance.Entry) (SegmentRow, bool) {
	f := s.filter
	seg, err := models.DecodeSegmentInfo(e.Value)
	if err != nil {
		row := SegmentRow{ID: e.Segment, Collection: e.Collection, Partition: e.Partition, Key: e.Rel, Odd: e.Odd,
			Error: fmt.Sprintf("key %s does not decode: %v", e.Rel, err)}
		row.decodeErr = err.Error()
		fmt.Fprintf(s.warn, "warning: segment %s\n", framework.EscapeText(row.Error))
		return row, true
	}
	if !f.decoded(seg) {
		return SegmentRow{}, false
	}
	fallback := s.wals[models.PChannelOf(seg.InsertChannel)]
	row := SegmentRow{ID: seg.ID, Collection: seg.CollectionID, Partition: seg.PartitionID, VChannel: seg.InsertChannel,
		State: models.SegmentStateName(seg.State), Rows: seg.NumRows, Level: levelName(seg.Level), Importing: seg.IsImporting,
		Key: e.Rel, Odd: e.Odd, StartPosition: positionRow(seg.StartPosition, fallback), DMLPosition: positionRow(seg.DMLPosition, fallback)}
	for _, p := range []*PositionRow{row.StartPosition, row.DMLPosition} {
		if p != nil && p.Error != "" {
			fmt.Fprintf(s.warn, "warning: segment %s: %s\n", framework.EscapeText(e.Rel), p.Error)
		}
	}
	return row, true
}

func positionRow(p *msgpb.MsgPosition, fallback commonpb.WALName) *PositionRow {
	if p == nil {
		return nil
	}
	wal, guessed := models.PositionWAL(p, fallback)
	row := &PositionRow{WAL: walName(wal), WALGuessed: guessed, MessageIDHex: fmt.Sprintf("%x", p.GetMsgID()),
		MessageIDBase64: base64.StdEncoding.EncodeToString(p.GetMsgID()), Timestamp: p.GetTimestamp(), Time: tsoTime(p.GetTimestamp())}
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

func positionText(p *PositionRow) string {
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

// positionID is a position's decoded id for a table cell.
func positionID(p *PositionRow) string {
	switch {
	case p == nil:
		return ""
	case p.Error != "":
		return "error"
	case p.MessageIDHuman == "":
		return "(empty)"
	}
	return p.MessageIDHuman
}

// positionsWAL is the WAL cell of a segment's positions: "?" marks a WAL
// taken from the consume checkpoint (the position names none).
func positionsWAL(ps ...*PositionRow) string {
	var wals []string
	for _, p := range ps {
		if p == nil {
			continue
		}
		w := p.WAL
		if p.WALGuessed {
			w += "?"
		}
		if !slices.Contains(wals, w) {
			wals = append(wals, w)
		}
	}
	return strings.Join(wals, "/")
}

func (s SegmentSummary) countsText() string {
	states := make([]string, 0, len(s.Counts))
	for st := range s.Counts {
		states = append(states, st)
	}
	sort.Strings(states)
	parts := make([]string, len(states))
	for i, st := range states {
		parts[i] = fmt.Sprintf("%s=%d", st, s.Counts[st])
	}
	return strings.Join(parts, " ")
}

// filtersText names the filters of f for a footer or message: " (collection
// 100, level L1)", "" for none.
func filtersText(f SegmentFilter) string {
	var parts []string
	if f.Collection != 0 {
		parts = append(parts, "collection "+i64(f.Collection))
	}
	if f.Partition != 0 {
		parts = append(parts, "partition "+i64(f.Partition))
	}
	if f.VChannel != "" {
		parts = append(parts, "vchannel "+f.VChannel)
	}
	if f.Level != "" {
		parts = append(parts, "level "+f.Level)
	}
	if f.State != nil {
		parts = append(parts, "state "+models.SegmentStateName(*f.State))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// segmentNote is the NOTE cell of a row: its odd key, its decode error.
func segmentNote(r SegmentRow) string {
	var notes []string
	if r.Odd {
		notes = append(notes, "odd key "+r.Key)
	}
	for _, p := range []struct {
		name string
		pos  *PositionRow
	}{{"start", r.StartPosition}, {"dml", r.DMLPosition}} {
		if p.pos != nil && p.pos.Error != "" {
			notes = append(notes, p.name+" position: "+p.pos.Error)
		}
	}
	if r.decodeErr != "" {
		notes = append(notes, "does not decode: "+r.decodeErr)
	}
	return strings.Join(notes, "; ")
}

// idCell is an id taken from a key: empty when the key has none.
func idCell(v int64) string {
	if v == 0 {
		return ""
	}
	return i64(v)
}

// segmentListing is the result of `show segment`: it reads etcd while it
// renders, so every format streams.
type segmentListing struct {
	ctx    context.Context
	scan   *SegmentScan
	limit  int
	detail bool
	wide   bool
}

// JSON implements framework.Result; Render uses WriteJSON, which streams.
func (l *segmentListing) JSON() any {
	res := &SegmentResult{Segments: []SegmentRow{}}
	sum, err := l.scan.Each(l.ctx, l.limit, func(r SegmentRow) error {
		res.Segments = append(res.Segments, r)
		return nil
	}, nil)
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	res.SegmentSummary = sum
	return res
}

// WriteJSON implements framework.JSONWriter: the SegmentResult document,
// written a row at a time.
func (l *segmentListing) WriteJSON(w io.Writer) error {
	d := newJSONDoc(w)
	d.array("segments")
	sum, err := l.scan.Each(l.ctx, l.limit, func(r SegmentRow) error {
		d.elem(r)
		return d.err
	}, d.w.Flush)
	if err != nil {
		return err
	}
	d.end()
	d.field("counts", sum.Counts)
	d.field("total", sum.Total)
	d.field("more", sum.More)
	d.field("odd_keys", sum.OddKeys)
	d.field("errors", sum.Errors)
	return d.close()
}

// segmentColumn is a column of the segment table.
type segmentColumn struct {
	header string
	elide  bool
	cell   func(SegmentRow) string
}

// columns are the table's columns. --detail trades the partition, rows and
// level for the positions, so that the table still fits 120 columns with
// Milvus's 18-digit ids; --wide shows them all.
func (l *segmentListing) columns() []segmentColumn {
	decoded := func(f func(SegmentRow) string) func(SegmentRow) string {
		return func(s SegmentRow) string {
			if s.Error != "" {
				return ""
			}
			return f(s)
		}
	}
	id := segmentColumn{"ID", false, func(s SegmentRow) string { return idCell(s.ID) }}
	coll := segmentColumn{"COLLECTION", l.detail, func(s SegmentRow) string { return idCell(s.Collection) }}
	part := segmentColumn{"PARTITION", false, func(s SegmentRow) string { return idCell(s.Partition) }}
	vch := segmentColumn{"VCHANNEL", true, func(s SegmentRow) string { return s.VChannel }}
	state := segmentColumn{"STATE", false, decoded(func(s SegmentRow) string {
		if s.Importing {
			return s.State + " (importing)"
		}
		return s.State
	})}
	rows := segmentColumn{"ROWS", false, decoded(func(s SegmentRow) string { return i64(s.Rows) })}
	level := segmentColumn{"LEVEL", false, decoded(func(s SegmentRow) string { return s.Level })}
	note := segmentColumn{"NOTE", true, segmentNote}
	if !l.detail {
		return []segmentColumn{id, coll, part, vch, state, rows, level, note}
	}
	positions := []segmentColumn{
		{"START ID", true, func(s SegmentRow) string { return positionID(s.StartPosition) }},
		{"DML ID", true, func(s SegmentRow) string { return positionID(s.DMLPosition) }},
		{"DML TIME", false, func(s SegmentRow) string {
			if s.DMLPosition == nil {
				return ""
			}
			return s.DMLPosition.Time
		}},
		{"WAL", false, func(s SegmentRow) string { return positionsWAL(s.StartPosition, s.DMLPosition) }},
	}
	if l.wide {
		return append(append([]segmentColumn{id, coll, part, vch, state, rows, level}, positions...), note)
	}
	return append(append([]segmentColumn{id, coll, vch, state}, positions...), note)
}

// Table implements framework.Result.
func (l *segmentListing) Table(w io.Writer) error {
	cols := l.columns()
	header := make([]string, len(cols))
	var elided []int
	for i, c := range cols {
		header[i] = c.header
		if c.elide {
			elided = append(elided, i)
		}
	}
	t := newTable(w, header...).fit(l.wide, elided...)
	sum, err := l.scan.Each(l.ctx, l.limit, func(s SegmentRow) error {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = c.cell(s)
		}
		t.row(cells...)
		return t.err
	}, func() error {
		// The rows are all read: show them now, the counts come at the end.
		if err := t.flush(); err != nil {
			return err
		}
		fmt.Fprintf(l.scan.warn, "(%d segment(s) shown; counting the others by state...)\n", l.limit)
		return nil
	})
	if err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return err
	}
	var sb strings.Builder
	if sum.More > 0 {
		fmt.Fprintf(&sb, "%d more, --limit 0 for all\n", sum.More)
	}
	byState := "by state"
	if l.scan.filter.State != nil {
		byState = "every state of the other filters" // --state picks the rows, the counts show what it left out
	}
	fmt.Fprintf(&sb, "%d segment(s) shown%s; %s: %s\n", sum.Total, filtersText(l.scan.filter), byState, orDash(sum.countsText()))
	if sum.OddKeys > 0 {
		fmt.Fprintf(&sb, "%d odd key(s): not {collection}/{partition}/{segment}, read by Milvus as segments\n", sum.OddKeys)
	}
	if sum.Errors > 0 {
		fmt.Fprintf(&sb, "%d key(s) do not decode (see NOTE)\n", sum.Errors)
	}
	if l.detail {
		sb.WriteString("(WAL? = position without WAL_name, decoded with its pchannel's consume-checkpoint WAL)\n")
	}
	_, err = io.WriteString(w, sb.String())
	return err
}

// Lines implements framework.Result.
func (l *segmentListing) Lines(out io.Writer) error {
	w := bufio.NewWriterSize(out, 64<<10)
	sum, err := l.scan.Each(l.ctx, l.limit, func(s SegmentRow) error {
		return line(w, "segment", "id", i64(s.ID), "collection", i64(s.Collection), "partition", i64(s.Partition),
			"vchannel", s.VChannel, "state", s.State, "rows", i64(s.Rows), "level", s.Level, "importing", boolS(s.Importing),
			"key", s.Key, "odd", boolS(s.Odd), "start", positionText(s.StartPosition), "dml", positionText(s.DMLPosition), "error", s.Error)
	}, w.Flush)
	if err != nil {
		_ = w.Flush() // the rows read before the error
		return err
	}
	if err := line(w, "counts", "total", itoa(sum.Total), "by_state", sum.countsText(), "more", itoa(sum.More),
		"odd_keys", itoa(sum.OddKeys), "errors", itoa(sum.Errors)); err != nil {
		return err
	}
	return w.Flush()
}
