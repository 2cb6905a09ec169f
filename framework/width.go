package framework

import (
	"io"
	"os"
)

// PipeWidth is the width output keeps to when it does not go to a terminal
// (a pipe, a file, a test's buffer): the tables' historical 120 columns.
const PipeWidth = 120

// minWidth is the narrowest width output fits; narrower terminals wrap.
const minWidth = 40

// Width is the number of columns output written to w fits: the terminal's
// width when w is a terminal (80 under `kubectl exec -it`), else PipeWidth,
// so that piped output stays as it is.
func Width(w io.Writer) int {
	if cols, ok := TerminalWidth(w); ok {
		return cols
	}
	return PipeWidth
}

// TerminalWidth is the width of the terminal w writes to; false when w is
// not a terminal (then output keeps its piped layout, PipeWidth).
func TerminalWidth(w io.Writer) (int, bool) {
	if ww, ok := w.(interface{ terminalColumns() int }); ok {
		return ww.terminalColumns(), true
	}
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	cols, ok := terminalColumns(int(f.Fd()))
	if !ok {
		return 0, false
	}
	return max(cols, minWidth), true
}
