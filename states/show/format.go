package show

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// maxTSOMillis bounds the physical part of a TSO that renders as a time
// (year 9999); anything above is not a timestamp Milvus wrote.
var maxTSOMillis = uint64(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).UnixMilli())

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
	ms := ts >> 18
	if ms > maxTSOMillis {
		return fmt.Sprintf("invalid(%d)", ts)
	}
	return time.UnixMilli(int64(ms)).UTC().Format(time.RFC3339Nano)
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

// table writes aligned columns.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = orDash(strings.ReplaceAll(c, "\t", " "))
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

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
