package framework

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// recipeGates fail in an order other than the recipe's, with one step two
// gates share and a step that another extends.
func recipeGates() []Gate {
	stop := Step{Order: StepStop, Text: "stop every component"}
	return []Gate{
		{Name: "passed", OK: true, Fix: []Step{{Order: StepOther, Text: "never shown"}}},
		{Name: "sessions", Detail: "1 session key holds a lease", Fix: []Step{stop, {Order: StepLeases, Text: "wait (longest lease left: 9 s)"}}},
		{Name: "broadcasts", Detail: "busy", Fix: []Step{{Order: StepOnOldWAL, Text: "start on the old WAL"}, stop, {Order: StepLeases, Text: "wait"}}},
		{Name: "segments", Detail: "growing", Fix: []Step{{Order: StepOnOldWAL, Text: "flush"}, stop}},
	}
}

func TestRecipeOrdersMergesAndCloses(t *testing.T) {
	want := []string{"start on the old WAL, and flush", "stop every component", "wait (longest lease left: 9 s)", "re-run the same command line"}
	if got := Recipe(recipeGates()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("recipe %q, want %q", got, want)
	}
	rerun := append(recipeGates(), Gate{Name: "scope", Fix: []Step{{Order: StepRerun, Text: "re-run without --pchannel"}}})
	if got := Recipe(rerun); got[len(got)-1] != "re-run without --pchannel" || len(got) != 4 {
		t.Fatalf("a gate's own re-run replaces the default: %q", got)
	}
	if got := Recipe([]Gate{{Name: "no fix"}}); got != nil {
		t.Fatalf("failed gates without a fix have no recipe: %q", got)
	}
	if got := Recipe([]Gate{{Name: "ok", OK: true, Fix: []Step{{Order: StepStop, Text: "x"}}}}); got != nil {
		t.Fatalf("passed gates have no recipe: %q", got)
	}
}

func TestRecipeInEveryRendering(t *testing.T) {
	gates := recipeGates()
	var table bytes.Buffer
	if err := WriteGates(&table, gates); err != nil {
		t.Fatal(err)
	}
	wantTable := "what to do, in order:\n  1. start on the old WAL, and flush\n  2. stop every component\n  3. wait (longest lease left: 9 s)\n  4. re-run the same command line\n"
	if !strings.HasSuffix(table.String(), wantTable) {
		t.Fatalf("table:\n%s", table.String())
	}
	var lines bytes.Buffer
	if err := GateLines(&lines, gates); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lines.String(), "step=1 text=") || !strings.HasSuffix(lines.String(), "step=4 text=\"re-run the same command line\"\n") {
		t.Fatalf("lines:\n%s", lines.String())
	}
	b, err := json.Marshal(gates[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"fix":[{"order":2,"text":"stop every component"},{"order":3,`) {
		t.Fatalf("json: %s", b)
	}
	msg := Refusal("reset checkpoint", gates).Error()
	if !strings.HasSuffix(msg, "; what to do, in order: 1. start on the old WAL, and flush 2. stop every component 3. wait (longest lease left: 9 s) 4. re-run the same command line") {
		t.Fatalf("refusal: %s", msg)
	}
	var none bytes.Buffer
	if err := WriteGates(&none, gates[:1]); err != nil || strings.Contains(none.String(), "what to do") {
		t.Fatalf("a passed plan has no recipe: %q %v", none.String(), err)
	}
}

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 session keys"}, {1, "1 session key"}, {2, "2 session keys"}} {
		if got := Plural(tt.n, "session key", ""); got != tt.want {
			t.Errorf("Plural(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Plural(1, "session key holds", "session keys hold"); got != "1 session key holds" {
		t.Errorf("got %q", got)
	}
	if got := Plural(3, "session key holds", "session keys hold"); got != "3 session keys hold" {
		t.Errorf("got %q", got)
	}
}

// Issue 27 item 1: on a terminal the refusal's error line names the refused
// gates and points above (where the plan printed the detail and the
// numbered recipe), wrapped to the terminal; piped, it keeps the detail.
func TestRefusalErrorLineOnATerminal(t *testing.T) {
	err := Refusal("reset checkpoint", recipeGates())
	var buf bytes.Buffer
	term := newWrapWriter(&buf, 40)
	got := ErrorLine(term, err)
	want := "error: reset checkpoint refused, nothing\n  was written: " + recipeGates()[1].Name
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "see what to do above") || strings.Contains(got, "1.") {
		t.Fatalf("terminal error line:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if len(l) > 40 {
			t.Errorf("wider than 40: %q", l)
		}
	}
	if piped := ErrorLine(&buf, err); piped != "error: "+err.Error() {
		t.Fatalf("piped error line: %s", piped)
	}
}

// Issue 38: piped (a script's log, less, a file), a refusal's gate detail
// and recipe wrap at PipeWidth as the terminal form wraps at its width,
// instead of one line of hundreds of columns; a key and a command stay
// whole, and the gate row still starts with its verdict and name.
func TestWriteGatesPipedWrapsAtPipeWidth(t *testing.T) {
	key := "by-dev/woodpecker/logs/by-dev-rootcoord-dml_0"
	detail := strings.Repeat("a log of pchannels in scope exists, so the target WAL is not fresh; ", 6) + key + " (id 1); empty them with `reset wal --target woodpecker --run`"
	gates := []Gate{{Name: "woodpecker target is empty", Detail: detail, Keys: []string{key},
		Fix: []Step{{Order: StepTarget, Text: strings.Repeat("empty the woodpecker logs of every pchannel in scope, ", 4) + "with `reset wal --target woodpecker --run`"}}}}
	var piped bytes.Buffer
	if err := WriteGates(&piped, gates); err != nil {
		t.Fatal(err)
	}
	got := piped.String()
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if len(l) > PipeWidth {
			t.Errorf("piped line wider than %d: %q", PipeWidth, l)
		}
	}
	if !strings.HasPrefix(got, "gates:\n  REFUSED  woodpecker target is empty  a log of pchannels") {
		t.Errorf("the gate row starts with its verdict and name:\n%s", got)
	}
	if strings.Count(got, "`reset wal --target woodpecker --run`") != 2 || !strings.Contains(got, "\n  1. empty the woodpecker logs") {
		t.Errorf("commands whole, recipe numbered:\n%s", got)
	}
	// Through the terminal's wrapper the block is not wrapped twice: the
	// wrapper alone lays it out at the terminal's width.
	var term bytes.Buffer
	ww := newWrapWriter(&term, 80)
	if err := WriteGates(ww, gates); err != nil {
		t.Fatal(err)
	}
	if err := ww.flush(); err != nil {
		t.Fatal(err)
	}
	var once bytes.Buffer
	tw := newWrapWriter(&once, 80)
	var flat bytes.Buffer
	if err := writeGates(&flat, gates); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(flat.Bytes()); err != nil {
		t.Fatal(err)
	}
	if term.String() != once.String() {
		t.Errorf("on a terminal:\n%s\nwant:\n%s", term.String(), once.String())
	}
}
