package apply

import (
	"io"
	"time"
)

// Progress reports keys done of a total on a writer: redrawn in place on a
// terminal, one line every interval otherwise (the progress of Apply).
type Progress struct{ p *progress }

// StartProgress starts reporting on w (nil: silent) under label; total 0
// means unknown.
func StartProgress(w io.Writer, label string, total int64, interval time.Duration) *Progress {
	return &Progress{p: startProgress(w, label, total, interval)}
}

// Add counts n more keys done.
func (p *Progress) Add(n int) { p.p.add(n) }

// Finish stops the reports; with ok it prints the closing line.
func (p *Progress) Finish(ok bool) { p.p.finish(ok) }
