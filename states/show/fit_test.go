package show

import (
	"bytes"
	"strings"
	"testing"
)

// narrowTable is a table fitted to limit columns, as on a terminal that
// wide, eliding the given columns.
func narrowTable(buf *bytes.Buffer, limit int, elided []int, header ...string) *table {
	t := newTable(buf, header...)
	t.limit = limit
	for _, c := range elided {
		t.elidable[c] = true
	}
	return t
}

// Issue 16 §4/§5: a cell shortened by dropping its column's shared prefix
// is padded to the column's width like any other, so the next column stays
// under its header.
func TestElidedCellsStayAligned(t *testing.T) {
	var buf bytes.Buffer
	tb := narrowTable(&buf, 60, []int{1}, "ID", "VCHANNEL", "STATE", "NOTE")
	tb.row("1", "by-dev-rootcoord-dml_0_451234567890000000v0", "Flushed", "-")
	tb.row("2", "by-dev-rootcoord-dml_10_451234567890000000v1", "Dropped", "-")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	col := strings.Index(lines[0], "STATE")
	for _, l := range lines[1:] {
		if !strings.Contains(l, "...") {
			t.Errorf("nothing elided in %q", l)
		}
		if i := strings.Index(l, "Flushed") + strings.Index(l, "Dropped") + 1; i != col {
			t.Errorf("STATE starts at %d in %q, under the header at %d:\n%s", i, l, col, buf.String())
		}
	}
}

// Issue 16 §4/§5: on a narrow terminal, a squeezed column that is not one
// of the elided ones keeps the start of its cells (a state, a time, a
// position's message id), an id column the end of its ids (where they
// differ).
func TestSqueezedCellsKeepWhatTheyAre(t *testing.T) {
	var buf bytes.Buffer
	tb := narrowTable(&buf, 50, []int{0}, "NODE", "STATE", "COLLECTION", "SEEK POSITION", "ERROR")
	tb.row("4", "WatchSuccess", "451234567890000007", "140:45:0:-1 (pulsar?) @ 2026-11-30T08:55:00Z", "-")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Wat", "...0000007", "140:45"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, lost := range []string{"...ess", "45123", "55:00Z"} {
		if strings.Contains(out, lost) {
			t.Errorf("%q in\n%s", lost, out)
		}
	}
}

// A column whose cells all got shorter than its width by dropping their
// shared prefix is only as wide as its widest cut cell.
func TestCutColumnNarrowsToItsCells(t *testing.T) {
	var buf bytes.Buffer
	tb := narrowTable(&buf, 60, []int{1}, "ID", "VCHANNEL", "STATE", "NOTE")
	tb.row("1", "by-dev-rootcoord-dml_0_451234567890000000v0", "Flushed", "-")
	tb.row("2", "by-dev-rootcoord-dml_10_451234567890000000v1", "Dropped", "-")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if !strings.HasSuffix(lines[2], "...dml_10_451234567890000000v1  Dropped  -") {
		t.Errorf("the cut column is wider than its cells:\n%s", buf.String())
	}
}

// On a narrow terminal a column of short cells (a state) keeps them whole
// rather than cut to three letters.
func TestSqueezeKeepsShortCellsWhole(t *testing.T) {
	var buf bytes.Buffer
	tb := narrowTable(&buf, 60, []int{3}, "ID", "COLLECTION", "STATE", "VCHANNEL", "NOTE")
	tb.row("451234567900000000", "451234567890000000", "Flushed", "by-dev-rootcoord-dml_0_451234567890000000v0", "-")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "  Flushed  ") {
		t.Errorf("state cut:\n%s", buf.String())
	}
}
