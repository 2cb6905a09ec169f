package gates

import (
	"fmt"
	"testing"
)

// Issue 16 §3: the reminder to check the target's topics does not spell 64
// topic names; a run of consecutive pchannels is said by its ends, any
// other set in full.
func TestListAllSaysARunByItsEnds(t *testing.T) {
	var run []string
	for i := 63; i >= 0; i-- {
		run = append(run, fmt.Sprintf("by-dev-rootcoord-dml_%d", i))
	}
	if got, want := listAll(run), "(all 64: by-dev-rootcoord-dml_0 ... by-dev-rootcoord-dml_63)"; got != want {
		t.Errorf("listAll(64 pchannels) = %q, want %q", got, want)
	}
	gap := append([]string{}, run[:10]...)
	gap = append(gap, run[11:20]...) // dml_53 missing
	if got := listAll(gap); got == "" || got[0] == '(' {
		t.Errorf("a set with a gap is said as a run: %q", got)
	}
	few := run[:3]
	if got, want := listAll(few), "by-dev-rootcoord-dml_63, by-dev-rootcoord-dml_62, by-dev-rootcoord-dml_61"; got != want {
		t.Errorf("listAll(3) = %q, want %q", got, want)
	}
	padded := []string{}
	for i := range 10 {
		padded = append(padded, fmt.Sprintf("t_%02d", i))
	}
	if got := listAll(padded); got[0] == '(' {
		t.Errorf("zero-padded names said as a run (their ends would not be their names): %q", got)
	}
}
