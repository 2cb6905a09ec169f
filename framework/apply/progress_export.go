package apply

import (
	"context"
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

// readCounterKey carries the counter of the keys a dry scan reads.
type readCounterKey struct{}

// withReadCounter makes ReadCounter under ctx return count.
func withReadCounter(ctx context.Context, count func(int)) context.Context {
	return context.WithValue(ctx, readCounterKey{}, count)
}

// ReadCounter is the counter of the keys a scan reads, for the progress of
// a scan that stages nothing (a dry run, the verify's second plan): such a
// scan yields no op to count. Outside one it counts nothing.
func ReadCounter(ctx context.Context) func(n int) {
	if count, ok := ctx.Value(readCounterKey{}).(func(int)); ok {
		return count
	}
	return func(int) {}
}
