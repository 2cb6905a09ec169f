package framework

import (
	"bytes"
	"io"
	"strings"
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
// wrapWriter).
func wrapLine(line string, width int) string {
	// A line that carries a command to copy (the STOPPED block's complete
	// and roll-back commands, a restore reminder with the real path; not a
	// template with a <placeholder>) stays whole: the terminal's own wrap
	// copies as one line, a broken one would paste as two commands.
	if width <= 0 || utf8.RuneCountInString(line) <= width || strings.Contains(line, " --run") && !strings.Contains(line, "<") {
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
	pad := strings.Repeat(" ", indent)
	var out []string
	rest, room := line, width
	for utf8.RuneCountInString(rest) > room {
		r := []rune(rest)
		cut := -1
		for j := room; j > 0; j-- {
			if r[j] == ' ' && r[j-1] != ' ' {
				cut = j
				break
			}
		}
		if cut < 0 || strings.TrimSpace(string(r[:cut])) == "" {
			// A word wider than the room: whole, up to the next space.
			k := room
			for k < len(r) && r[k] != ' ' {
				k++
			}
			if k >= len(r) {
				break
			}
			cut = k
		}
		out = append(out, strings.TrimRight(string(r[:cut]), " "))
		rest = strings.TrimLeft(string(r[cut:]), " ")
		if rest == "" {
			break
		}
		rest, room = pad+rest, width
	}
	if rest != "" {
		out = append(out, rest)
	}
	return strings.Join(out, "\n")
}
