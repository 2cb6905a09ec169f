package show

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// tsoTime renders a Milvus hybrid timestamp (physical unix milliseconds << 18)
// as an RFC 3339 UTC time. 0 renders as "", MaxUint64 (the dropped-channel
// marker) as "max".
func tsoTime(ts uint64) string {
	switch {
	case ts == 0:
		return ""
	case ts == math.MaxUint64:
		return "max"
	}
	t, _, ok := models.SplitTSO(ts)
	if !ok {
		return fmt.Sprintf("invalid(%d)", ts)
	}
	return t.Format(time.RFC3339Nano)
}

// walName is the operator name of a WAL ("unknown" for Unknown).
func walName(w commonpb.WALName) string { return msgid.Name(w) }

// describe decodes id bytes with the codec of wal; a failure becomes the
// error text, so one bad position never hides the others.
func describe(wal commonpb.WALName, b []byte) (human string, errText string) {
	h, err := models.DescribeBytes(wal, b)
	if err != nil {
		return "", err.Error()
	}
	return h, ""
}

// orDash renders an empty cell as "-".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// tableBlock is how many rows a table holds before it writes them: the first
// block sets the column widths (later blocks only widen them), so a table of
// any length is written as it is read, in bounded memory.
const tableBlock = 1000

// minElided is the narrowest an elided column gets (or its header's width).
const minElided = 12

// minNoteElided is the narrowest an elided NOTE or ERROR column gets when it
// is the last one (read from its start).
const minNoteElided = 40

// ellipsis marks where an elided cell was cut.
const ellipsis = "..."

// table writes aligned columns, two spaces apart. Every cell is escaped
// (framework.EscapeText): a key holding ESC[2J, a newline or a TAB cannot
// reach the terminal, add a row or break the columns.
type table struct {
	w           io.Writer
	header      []string
	wroteHeader bool
	rows        [][]string
	natural     []int // widest cell seen per column, header included
	limit       int   // total width to fit; 0: none
	elidable    []bool
	endCut      []bool // elided columns cut at their end (lists read from their start)
	err         error
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{w: w, header: escapeCells(header), natural: make([]int, len(header)), elidable: make([]bool, len(header))}
	t.measure(t.header)
	return t
}

// Wide is the --wide flag of the listings whose tables fit the terminal
// (framework.Width: 120 columns when piped):
// embed it in a param struct and call fit with it.
type Wide struct {
	Wide bool `name:"wide" desc:"show every column, each in full (tables fit the terminal otherwise, 120 columns when piped, eliding wide cells with ...)"`
}

// cutEnd makes the elided columns cols keep the start of their cells: lists
// (key=value properties, channel=nodes), read from their start.
func (t *table) cutEnd(cols ...int) *table {
	t.endCut = make([]bool, len(t.header))
	for _, c := range cols {
		if c >= 0 && c < len(t.endCut) {
			t.endCut[c] = true
		}
	}
	return t
}

// fit makes the table fit the width of its writer (framework.Width), unless wide, by eliding the
// cells of the given columns (the widest first; see elide).
func (t *table) fit(wide bool, cols ...int) *table {
	if wide {
		return t
	}
	t.limit = framework.Width(t.w)
	for _, c := range cols {
		if c >= 0 && c < len(t.elidable) {
			t.elidable[c] = true
		}
	}
	return t
}

func escapeCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = orDash(framework.EscapeText(c))
	}
	return out
}

func (t *table) measure(cells []string) {
	for i, c := range cells {
		if i >= len(t.natural) {
			t.natural = append(t.natural, 0)
			t.elidable = append(t.elidable, false)
		}
		t.natural[i] = max(t.natural[i], utf8.RuneCountInString(c))
	}
}

func (t *table) row(cells ...string) {
	r := escapeCells(cells)
	t.measure(r)
	t.rows = append(t.rows, r)
	if len(t.rows) >= tableBlock {
		t.writeBlock()
	}
}

// widths are the column widths to write with: the natural ones, elided
// columns narrowed (widest first) until the table fits its limit.
func (t *table) widths() []int {
	w := slices.Clone(t.natural)
	if t.limit <= 0 || len(w) == 0 {
		return w
	}
	total := 2 * (len(w) - 1)
	for _, v := range w {
		total += v
	}
	// An elided column stays as wide as its header; a NOTE or ERROR column
	// at the end keeps minNoteElided.
	floor := make([]int, len(w))
	for i := range floor {
		floor[i] = minElided
		if i < len(t.header) {
			floor[i] = max(minElided, utf8.RuneCountInString(t.header[i]))
		}
	}
	if last := len(floor) - 1; last < len(t.header) && (t.header[last] == "NOTE" || t.header[last] == "ERROR") {
		floor[last] = max(floor[last], minNoteElided)
	}
	for total > t.limit {
		widest := -1
		for i, v := range w {
			if t.elidable[i] && v > floor[i] && (widest < 0 || v > w[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		w[widest]--
		total--
	}
	// A terminal narrower than piped output (80 columns under kubectl
	// exec) squeezes the other columns too, down to their headers, the
	// first column (what names the row) aside: columns of short cells last.
	for _, short := range []int{shortCells, 0} {
		for total > t.limit && t.limit < framework.PipeWidth {
			widest := -1
			for i, v := range w {
				floor := max(squeezeFloor, min(t.natural[i], short), utf8.RuneCountInString(t.header[min(i, len(t.header)-1)]))
				if i > 0 && v > floor && (widest < 0 || v > w[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			w[widest]--
			total--
		}
	}
	return w
}

// squeezeFloor is the narrowest a column gets on a narrow terminal; a
// column whose cells are at most shortCells wide (a state, a level: cut to
// three letters they say nothing) is squeezed only when the others cannot
// give more.
const (
	squeezeFloor = 6
	shortCells   = 8
)

func (t *table) writeBlock() {
	if t.wroteHeader && len(t.rows) == 0 {
		return
	}
	widths := t.widths()
	eliders := t.eliders(widths)
	t.narrowToCells(widths, eliders)
	var sb strings.Builder
	write := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				sb.WriteString("  ")
			}
			n := utf8.RuneCountInString(c)
			if i < len(widths) && n > widths[i] {
				c = elide(c, widths[i], t.keepsStart(i, c), eliders[i])
				n = utf8.RuneCountInString(c)
			}
			sb.WriteString(c)
			if i < len(cells)-1 && i < len(widths) {
				sb.WriteString(strings.Repeat(" ", widths[i]-n))
			}
		}
		sb.WriteByte('\n')
	}
	if !t.wroteHeader {
		write(t.header)
		t.wroteHeader = true
	}
	for _, r := range t.rows {
		write(r)
	}
	t.rows = t.rows[:0]
	if _, err := io.WriteString(t.w, sb.String()); err != nil && t.err == nil {
		t.err = err
	}
}

// narrowToCells narrows each cut column to its widest cell once cut (and
// its header): dropping a shared prefix may leave every cell shorter than
// the width the column was given.
func (t *table) narrowToCells(widths []int, eliders []framework.ColumnElider) {
	for i, w := range widths {
		if i >= len(t.natural) || w >= t.natural[i] {
			continue
		}
		widest := 0
		if i < len(t.header) {
			widest = utf8.RuneCountInString(t.header[i])
		}
		for _, r := range t.rows {
			if i >= len(r) {
				continue
			}
			c := r[i]
			if utf8.RuneCountInString(c) > w {
				c = elide(c, w, t.keepsStart(i, c), eliders[i])
			}
			widest = max(widest, utf8.RuneCountInString(c))
		}
		widths[i] = min(w, widest)
	}
}

// keepsStart tells whether cell c of column i, too wide, is cut at its
// end (keeping its start) rather than at its start: the last column (a
// note, read from its start), and a column squeezed on a narrow terminal
// that is not one of the elided ones (a state, a time, a position: their
// start says what they are), unless the cell is an id (digits: ids of a
// column share their start and differ at their end).
func (t *table) keepsStart(i int, c string) bool {
	if i == len(t.natural)-1 || i < len(t.endCut) && t.endCut[i] {
		return true
	}
	if i < len(t.elidable) && t.elidable[i] {
		return false
	}
	return strings.TrimLeft(c, "0123456789") != ""
}

// eliders are the column eliders of the rows held: each drops the prefix
// its column's values share in this block (framework.ColumnElider).
func (t *table) eliders(widths []int) []framework.ColumnElider {
	out := make([]framework.ColumnElider, len(widths))
	for i, w := range widths {
		if i >= len(t.natural) || w >= t.natural[i] {
			continue
		}
		values := make([]string, 0, len(t.rows))
		for _, r := range t.rows {
			if i < len(r) {
				values = append(values, r[i])
			}
		}
		out[i] = framework.NewColumnElider(values, w)
	}
	return out
}

// elide cuts s to width runes, marking the cut with "...": dropping the
// prefix the column's values share and keeping the end, where names, keys
// and ids differ (see framework.ColumnElider), or, when tail, at its end
// (table.keepsStart: a note, a state, a time).
func elide(s string, width int, tail bool, col framework.ColumnElider) string {
	if !tail {
		return col.Elide(s)
	}
	r := []rune(s)
	if len(r) <= width || width <= len(ellipsis) {
		return s
	}
	return string(r[:width-len(ellipsis)]) + ellipsis
}

// flush writes the rows held and reports the first write error.
func (t *table) flush() error {
	t.writeBlock()
	return t.err
}

// naturalCompare is models.NaturalCompare: the listings and the completion
// of their values (states) order names with models.NaturalLess.
func naturalCompare(a, b string) int { return models.NaturalCompare(a, b) }

// optionalKeys are left out of a line when empty.
var optionalKeys = map[string]bool{"error": true, "note": true}

// line writes one record in the line format: kind=<kind> then key=value
// words (framework.WriteLine quoting); empty optional keys are left out.
func line(w io.Writer, kind string, kv ...string) error {
	words := []any{"kind", kind}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" && optionalKeys[kv[i]] {
			continue
		}
		words = append(words, kv[i], kv[i+1])
	}
	return framework.WriteLine(w, words...)
}

func i64(v int64) string  { return strconv.FormatInt(v, 10) }
func u64(v uint64) string { return strconv.FormatUint(v, 10) }
func boolS(b bool) string { return strconv.FormatBool(b) }
func itoa(v int) string   { return strconv.Itoa(v) }
func i32(v int32) string  { return strconv.FormatInt(int64(v), 10) }

// result turns a typed result and its error into a framework.Result that is
// nil on error: a nil *T in the interface would be rendered.
func result[T framework.Result](r T, err error) (framework.Result, error) {
	if err != nil {
		return nil, err
	}
	return r, nil
}

// jsonDoc writes one JSON object a field at a time, with the indentation
// framework.Render uses, and one array field element by element: a listing
// of any size goes out as it is read (issue 10 §4).
type jsonDoc struct {
	w      *bufio.Writer
	fields int
	elems  int
	err    error
}

func newJSONDoc(w io.Writer) *jsonDoc {
	d := &jsonDoc{w: bufio.NewWriterSize(w, 64<<10)}
	d.raw("{")
	return d
}

func (d *jsonDoc) raw(s string) {
	if d.err == nil {
		_, d.err = d.w.WriteString(s)
	}
}

func (d *jsonDoc) value(v any, prefix string) {
	if d.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		d.err = fmt.Errorf("render json: %w", err)
		return
	}
	_, d.err = d.w.Write(b)
}

func (d *jsonDoc) name(n string) {
	if d.fields > 0 {
		d.raw(",")
	}
	d.fields++
	d.raw("\n  ")
	d.value(n, "")
	d.raw(": ")
}

// field writes "name": v.
func (d *jsonDoc) field(n string, v any) {
	d.name(n)
	d.value(v, "  ")
}

// array opens the array field n; elem adds to it, end closes it.
func (d *jsonDoc) array(n string) {
	d.name(n)
	d.raw("[")
	d.elems = 0
}

func (d *jsonDoc) elem(v any) {
	if d.elems > 0 {
		d.raw(",")
	}
	d.elems++
	d.raw("\n    ")
	d.value(v, "    ")
}

func (d *jsonDoc) end() {
	if d.elems > 0 {
		d.raw("\n  ")
	}
	d.raw("]")
}

// close ends the document and reports the first error.
func (d *jsonDoc) close() error {
	if d.fields > 0 {
		d.raw("\n")
	}
	d.raw("}\n")
	if d.err == nil {
		d.err = d.w.Flush()
	}
	return d.err
}
