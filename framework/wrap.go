package framework

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// wrapWriter writes a result's table format to a terminal: a line wider
// than the terminal (a plan's gate detail, a warning, a reminder) breaks
// at a space rather than where the terminal would cut it, mid-word; its
// continuation lines start under the column its text starts in (after the
// line's last run of two spaces, as a gate's detail), else two spaces in.
// A word wider than the terminal stays whole (a key is never cut), and so
// does a line with a command to copy (wrapLine). Lines that fit pass as
// they are.
type wrapWriter struct {
	w       io.Writer
	columns int
	partial []byte
}

func newWrapWriter(w io.Writer, columns int) *wrapWriter {
	return &wrapWriter{w: w, columns: columns}
}

// terminalColumns makes TerminalWidth see the terminal through the wrapper.
func (ww *wrapWriter) terminalColumns() int { return ww.columns }

func (ww *wrapWriter) Write(p []byte) (int, error) {
	ww.partial = append(ww.partial, p...)
	i := bytes.LastIndexByte(ww.partial, '\n')
	if i < 0 {
		return len(p), nil
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(ww.partial[:i+1]), "\n") {
		if line != "" {
			out.WriteString(wrapLine(strings.TrimSuffix(line, "\n"), ww.columns))
			out.WriteByte('\n')
		}
	}
	ww.partial = append(ww.partial[:0], ww.partial[i+1:]...)
	if _, err := io.WriteString(ww.w, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes a last line without its newline.
func (ww *wrapWriter) flush() error {
	if len(ww.partial) == 0 {
		return nil
	}
	_, err := io.WriteString(ww.w, wrapLine(string(ww.partial), ww.columns))
	ww.partial = nil
	return err
}

// wrapLine breaks line at spaces into lines of at most width runes (see
// wrapWriter). A command in it (quoted in backticks, or a heron command
// with its flags: restore --file PATH --run) goes on a line of its own,
// whole, so that a copy from the terminal pastes one command; a word wider
// than a line (a key) stays whole on a line of its own. Such a token that
// does not fit after the indent, but fits at the margin, starts there.
func wrapLine(line string, width int) string {
	if width <= 0 || utf8.RuneCountInString(line) <= width {
		return line
	}
	lead := len(line) - len(strings.TrimLeft(line, " "))
	indent := lead + 2
	// The text column: after the last run of two spaces within the first
	// line, when it leaves room for the text.
	head := string([]rune(line)[:width])
	if i := strings.LastIndex(strings.TrimRight(head, " "), "  "); i > lead {
		if c := utf8.RuneCountInString(head[:i]) + 2; c <= width*2/3 {
			indent = c
		}
	}
	// The first line keeps the text's own spacing up to the text column
	// (a gate row's columns); the rest is laid out in units.
	cut := lead
	if indent > lead+2 {
		cut = len(string([]rune(line)[:indent]))
	}
	first, rest := line[:cut], line[cut:]
	pad := strings.Repeat(" ", indent)
	// The margin: where a token (a key, a command) that does not fit after
	// the indent but fits there starts instead, on a line of its own,
	// whole, so that the terminal does not break it (a text column 48
	// columns in leaves 32 at 80 columns); the block's own two spaces, none
	// for a line without. A token wider than that stays at the indent.
	margin := strings.Repeat(" ", min(lead, 2))
	var out []string
	cur, n, empty := first, utf8.RuneCountInString(first), true
	emit := func() {
		out = append(out, strings.TrimRight(cur, " "))
		cur, n, empty = pad, indent, true
	}
	words, seps := splitWords(rest)
	for _, u := range wrapUnits(words, seps) {
		un := utf8.RuneCountInString(u.text)
		if indent+un > width && len(margin)+un <= width {
			if !empty || strings.TrimSpace(cur) != "" {
				emit()
			}
			out = append(out, margin+u.text)
			cur, n, empty = pad, indent, true
			continue
		}
		if u.command {
			if !empty {
				emit()
			}
			cur += u.text
			empty = false
			emit()
			continue
		}
		if !empty && n+len(u.sep)+un > width {
			emit()
		}
		if !empty {
			// The line's own spacing between words (a table row's columns).
			cur += u.sep
			n += len(u.sep)
		}
		cur += u.text
		n += un
		empty = false
	}
	if !empty {
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// wrapUnit is a word of a wrapped line, or a command (several words kept
// on one line); sep is the space before it in the line.
type wrapUnit struct {
	text, sep string
	command   bool
}

// splitWords splits s at runs of spaces: its words, and the run before
// each ("" before the first word).
func splitWords(s string) (words, seps []string) {
	sep := ""
	for s != "" {
		i := strings.IndexByte(s, ' ')
		switch {
		case i == 0:
			j := len(s) - len(strings.TrimLeft(s, " "))
			sep, s = s[:j], s[j:]
		case i < 0:
			words, seps = append(words, s), append(seps, sep)
			s = ""
		default:
			words, seps = append(words, s[:i]), append(seps, sep)
			sep, s = "", s[i:]
		}
	}
	if len(seps) > 0 {
		seps[0] = ""
	}
	return words, seps
}

// wrapUnits groups words into units: a span in backticks and a heron
// command with its flags (commandWords) are one unit each, kept whole; a
// unit of three words or more is a command, on a line of its own.
func wrapUnits(words, seps []string) []wrapUnit {
	var units []wrapUnit
	for i := 0; i < len(words); {
		k := 0
		if strings.HasPrefix(words[i], "`") {
			for j := i; j < len(words); j++ {
				if strings.Count(strings.Join(words[i:j+1], " "), "`") >= 2 {
					k = j + 1 - i
					break
				}
			}
		} else {
			k = commandWords(words[i:])
		}
		if k == 0 {
			units = append(units, wrapUnit{text: words[i], sep: seps[i]})
			i++
			continue
		}
		// A name in backticks (`reset checkpoint`, `restore --file`) is
		// kept whole in the prose; a command (three words or more) goes on
		// a line of its own.
		text := words[i]
		for j := i + 1; j < i+k; j++ {
			text += seps[j] + words[j]
		}
		units = append(units, wrapUnit{text: text, sep: seps[i], command: k >= 3})
		i += k
	}
	return units
}

// commandVerbs start the commands wrapLine keeps whole.
var commandVerbs = map[string]bool{
	"restore": true, "reset": true, "apply": true, "show": true, "connect": true, "backup": true,
	"backups": true, "heron": true, "kafka-topics.sh": true, "repair": true, "remove": true,
}

// boolFlags are the flags that take no value, so the word after one is
// prose again (restore --file F --run puts every key back).
var boolFlags = map[string]bool{
	"--run": true, "--yes": true, "--detail": true, "--wide": true, "--force": true, "--pchannels": true,
	"--allow-non-empty-target": true, "--allow-growing": true, "--delete": true,
}

// commandWords is how many of words, from the first, are a command: a verb
// (after an opening parenthesis or quote), at most two sub-command words, then one
// or more flags with their values. 0 when words do not start a command (a
// verb without a flag is prose: "the reset does not").
func commandWords(words []string) int {
	if len(words) == 0 || !commandVerbs[strings.TrimLeft(words[0], "(\"")] {
		return 0
	}
	j := 1
	for j < len(words) && j <= 2 && !strings.HasPrefix(words[j], "--") && isSubcommand(words[j]) {
		j++
	}
	if j == len(words) || !strings.HasPrefix(words[j], "--") {
		return 0
	}
	for j < len(words) && strings.HasPrefix(words[j], "--") {
		flag := strings.TrimRight(words[j], ",;:.)\"")
		ended := flag != words[j]
		j++
		if ended {
			break
		}
		if strings.Contains(flag, "=") || boolFlags[flag] || j == len(words) || strings.HasPrefix(words[j], "--") {
			continue
		}
		// The flag's value; a <placeholder of words> is one value.
		if strings.HasPrefix(words[j], "<") {
			for j < len(words) && !strings.Contains(words[j], ">") {
				j++
			}
		}
		if j < len(words) {
			v := words[j]
			j++
			if strings.TrimRight(v, ",;:)\"") != v {
				break
			}
		}
	}
	return j
}

// isSubcommand: a word of a command's path (checkpoint, wal, vchannel-health).
func isSubcommand(w string) bool {
	for _, r := range w {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return w != ""
}

// diagWriter is a command's stderr on a terminal: each diagnostic line
// (warning, note, reminder, backup) written whole is wrapped as wrapLine
// does; anything else passes as it is, at once: a progress line redrawn
// with \r, a question without its newline, and the rest of a line begun
// that way.
type diagWriter struct {
	mu      sync.Mutex
	w       io.Writer
	columns int
	mid     bool // the last write ended within a line
}

// terminalColumns makes TerminalWidth see the terminal through the writer.
func (dw *diagWriter) terminalColumns() int { return dw.columns }

func (dw *diagWriter) Write(p []byte) (int, error) {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	var out strings.Builder
	rest := string(p)
	for rest != "" {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			out.WriteString(rest)
			dw.mid = true
			break
		}
		line := rest[:i]
		if dw.mid || strings.ContainsRune(line, '\r') {
			out.WriteString(line)
		} else {
			out.WriteString(wrapLine(line, dw.columns))
		}
		out.WriteByte('\n')
		dw.mid = false
		rest = rest[i+1:]
	}
	if _, err := io.WriteString(dw.w, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// DiagnosticWriter is w for a command's diagnostics: on a terminal, a
// diagWriter; otherwise w itself (piped diagnostics keep one line each).
func DiagnosticWriter(w io.Writer) io.Writer {
	if _, ok := w.(*diagWriter); ok {
		return w
	}
	if cols, ok := TerminalWidth(w); ok {
		return &diagWriter{w: w, columns: cols}
	}
	return w
}
