package apply

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heron-shell/heron/framework"
)

// progress reports keys done of total, rate and time left: redrawn in place
// on a terminal, one line every interval otherwise.
type progress struct {
	w        io.Writer
	label    string
	unit     string // what it counts: "keys", "objects"
	total    int64
	done     atomic.Int64
	start    time.Time
	terminal bool
	// quiet: nothing is shown before it has passed, nor a closing line
	// when nothing was (a dry run's scan: only a slow one reports).
	quiet time.Duration
	shown atomic.Bool
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	if _, ok := framework.TerminalWidth(w); ok {
		return true // a terminal, or a writer wrapping one (framework.DiagnosticWriter)
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func startProgress(w io.Writer, label string, total int64, interval time.Duration) *progress {
	return startProgressOf(w, label, "keys", total, interval)
}

// startQuietProgress is startProgress of an unknown total that shows
// nothing before quiet has passed (one line every quiet when w is not a
// terminal).
func startQuietProgress(w io.Writer, label string, quiet time.Duration) *progress {
	p := &progress{w: w, label: label, unit: "keys", start: time.Now(), stop: make(chan struct{}), quiet: quiet}
	return p.run(quiet)
}

// startProgressOf is startProgress counting unit.
func startProgressOf(w io.Writer, label, unit string, total int64, interval time.Duration) *progress {
	p := &progress{w: w, label: label, unit: unit, total: total, start: time.Now(), stop: make(chan struct{})}
	return p.run(interval)
}

// run starts the reports.
func (p *progress) run(interval time.Duration) *progress {
	if p.w == nil {
		return p
	}
	p.terminal = IsTerminal(p.w)
	if p.terminal {
		interval = 250 * time.Millisecond
	} else if interval <= 0 {
		interval = DefaultProgressInterval
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.print(false)
			}
		}
	}()
	return p
}

func (p *progress) add(n int) { p.done.Add(int64(n)) }

func (p *progress) line() string {
	done := p.done.Load()
	el := time.Since(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el
	}
	s := fmt.Sprintf("%s: %d", p.label, done)
	if p.total > 0 {
		s += fmt.Sprintf("/%d %s (%.1f%%)", p.total, p.unit, 100*float64(done)/float64(p.total))
	} else {
		s += " " + p.unit
	}
	s += fmt.Sprintf(", %.0f %s/s", rate, p.unit)
	if p.total > 0 && rate > 0 && done < p.total {
		left := time.Duration(float64(p.total-done) / rate * float64(time.Second)).Round(time.Second)
		s += fmt.Sprintf(", %s left", left)
	}
	return s
}

func (p *progress) print(final bool) {
	if p.w == nil || p.quiet > 0 && (final && !p.shown.Load() || !final && time.Since(p.start) < p.quiet) {
		return
	}
	p.shown.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.terminal && final:
		fmt.Fprintf(p.w, "\r\033[K%s, %.1fs\n", p.line(), time.Since(p.start).Seconds())
	case p.terminal:
		fmt.Fprintf(p.w, "\r\033[K%s", p.line())
	case final:
		fmt.Fprintf(p.w, "%s, %.1fs\n", p.line(), time.Since(p.start).Seconds())
	default:
		fmt.Fprintln(p.w, p.line())
	}
}

// finish stops the ticker; with final it prints the closing line.
func (p *progress) finish(final bool) {
	if p.w == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	if final {
		p.print(true)
	} else if p.terminal && (p.quiet == 0 || p.shown.Load()) {
		p.mu.Lock()
		fmt.Fprintln(p.w)
		p.mu.Unlock()
	}
}
