package framework

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 16 §5: on a terminal, a plan's line wider than it breaks at a
// space, its continuation under its text column; a long word (a key) stays
// whole, and so does a command to copy, on a line of its own (§1, issue 27
// item 1); wider than the terminal even at the margin, it stays at the
// indent (issue 38); a line that fits
// is kept byte for byte.
func TestWrapWriterBreaksLongLinesAtSpaces(t *testing.T) {
	var buf bytes.Buffer
	ww := newWrapWriter(&buf, 40)
	gate := "  ok  no etcd alarm  no member has an alarm raised (NOSPACE, CORRUPT)"
	key := "by-dev/meta/streamingnode-meta/wal/by-dev-rootcoord-dml_3/consume-checkpoint"
	table := "ID  NAME   STATE"
	command := "  to roll it back: restore --file /backups/heron-backup-by-dev-reset-kafka.jsonl --run"
	template := "  keep it: restore --file <that file> --run puts it back"
	for _, s := range []string{gate + "\n", "warning: see ", key + " (replicate_config) and more\n", table + "\n", command + "\n", template + "\n", "no newline"} {
		if _, err := ww.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ww.flush(); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	want := "  ok  no etcd alarm  no member has an\n" +
		"                     alarm raised\n" +
		"                     (NOSPACE, CORRUPT)\n" +
		"warning: see\n" +
		"  " + key + "\n" +
		"  (replicate_config) and more\n" +
		table + "\n" +
		"  to roll it back:\n" +
		"    restore --file /backups/heron-backup-by-dev-reset-kafka.jsonl --run\n" +
		"  keep it:\n" +
		"    restore --file <that file> --run\n" +
		"    puts it back\n" +
		"no newline"
	if got != want {
		t.Errorf("wrapped:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if utf8.RuneCountInString(l) > 40 && !strings.Contains(l, key) && !strings.HasPrefix(strings.TrimSpace(l), "restore --file") {
			t.Errorf("line wider than 40: %q", l)
		}
	}
	if cols, ok := TerminalWidth(ww); !ok || cols != 40 {
		t.Errorf("TerminalWidth through the wrapper: %d %v", cols, ok)
	}
}

// Issue 27 item 1: prose wraps at spaces and each command to copy (in
// backticks, or a heron command with its flags) is on a line of its own,
// whole; a verb without flags is prose.
func TestWrapLinePutsCommandsOnTheirOwnLine(t *testing.T) {
	line := "  REFUSED  woodpecker target is empty  3 logs exist, so the target WAL is not fresh; empty them with `reset wal --target woodpecker --run` (or pass a flag); the reset does not rewrite them; then restore --file /b/heron-backup-by-dev-reset-kafka-rev12.jsonl --run, then restore --file /b/a.jsonl --run"
	got := wrapLine(line, 80)
	want := "  REFUSED  woodpecker target is empty  3 logs exist, so the target WAL is not\n" +
		"                                       fresh; empty them with\n" +
		"                                       `reset wal --target woodpecker --run`\n" +
		"                                       (or pass a flag); the reset does not\n" +
		"                                       rewrite them; then\n" +
		"  restore --file /b/heron-backup-by-dev-reset-kafka-rev12.jsonl --run,\n" +
		"                                       then\n" +
		"                                       restore --file /b/a.jsonl --run"
	if got != want {
		t.Errorf("wrapped:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if utf8.RuneCountInString(l) > 80 && !strings.HasPrefix(strings.TrimSpace(l), "restore --file") {
			t.Errorf("line wider than 80: %q", l)
		}
	}
}

// A repair's command that `check` prints at the margin, wider than the
// terminal (a real collection id in its vchannel), stays one line.
func TestWrapLineKeepsARepairWhole(t *testing.T) {
	for _, line := range []string{
		"repair checkpoint --vchannel by-dev-rootcoord-dml_3_437744071571606912v1 --set-to pchannel-cp",
		"remove replicate-pchannel --target-cluster old --source-channel by-dev-rootcoord-dml_1",
	} {
		if got := wrapLine(line, 80); got != line {
			t.Errorf("wrapped:\n%s", got)
		}
	}
}

// A wrapped line keeps its own spacing between words up to each break: a
// table row wider than the terminal stays aligned (issue 27 item 5).
func TestWrapLineKeepsItsSpacing(t *testing.T) {
	row := "  by-dev/woodpecker/  by-dev-rootcoord-dml_0  1   2         1:41       3     -        -"
	got := wrapLine(row, 80)
	if !strings.HasPrefix(got, "  by-dev/woodpecker/  by-dev-rootcoord-dml_0  1   2         1:41       3     -\n") {
		t.Fatalf("wrapped:\n%s", got)
	}
}

// Issue 38: at 80 columns the woodpecker refusal's text column is 48
// columns in, so a key or a command after it (45 and 37 columns) made lines
// of 93 and more that the terminal broke mid-key. A token that does not fit
// after the indent starts at the margin, on a line of its own, whole; the
// prose after it goes back under the text column.
func TestWrapLineStartsATokenAtTheMarginWhenItDoesNotFit(t *testing.T) {
	key := "by-dev/woodpecker/logs/by-dev-rootcoord-dml_0"
	pad := strings.Repeat(" ", 48)
	row := "  REFUSED  woodpecker target is empty           3 woodpecker logs of pchannels in scope exist: " + key +
		" (id 1, 2 segments 2-3, truncated at 1:41, 3 keys); empty them with `reset wal --target woodpecker --run`"
	got := wrapLine(row, 80)
	want := "  REFUSED  woodpecker target is empty           3 woodpecker logs of pchannels\n" +
		pad + "in scope exist:\n" +
		"  " + key + "\n" +
		pad + "(id 1, 2 segments 2-3, truncated\n" +
		pad + "at 1:41, 3 keys); empty them\n" +
		pad + "with\n" +
		"  `reset wal --target woodpecker --run`"
	if got != want {
		t.Errorf("wrapped:\n%s\nwant:\n%s", got, want)
	}
	// A key line under the gate (tabwriter puts it under the text column).
	got = wrapLine(pad+key+" (id 1, 2 segments 2-3, truncated at 1:41, 3 keys)", 80)
	want = "  " + key + "\n" + pad + "  (id 1, 2 segments 2-3,\n" + pad + "  truncated at 1:41, 3 keys)"
	if got != want {
		t.Errorf("key line wrapped:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("line wider than 80: %q", l)
		}
	}
}
