// Package framework is heron's shell machinery: states, declarative commands
// (flags from struct tags), result rendering by --format, write commands that
// plan before they apply, and the three ways to drive the shell (REPL, script,
// one-line commands) with their exit codes.
package framework

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Exit codes of heron.
const (
	ExitOK      = 0 // every command succeeded
	ExitFailed  = 1 // a command failed
	ExitUsage   = 2 // unknown command or flag, bad flag value
	ExitRefused = 3 // a safety gate refused a write
)

// ErrExit is returned by Shell.Run for the built-ins exit and quit.
var ErrExit = errors.New("exit")

// UsageError is an error in the command line itself: it maps to exit code 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string {
	if e.Err == nil {
		return "usage error"
	}
	return e.Err.Error()
}

func (e UsageError) Unwrap() error { return e.Err }

// RefusedError is a write refused by a safety gate: it maps to exit code 3.
type RefusedError struct {
	Err error
	// Brief is the error line on a terminal, where the plan with its gates
	// and numbered recipe was just printed above it: the refused gates'
	// names and "see what to do above" (empty: Err). Piped, stderr may be
	// read alone (a Job's log), so the line carries the whole of Err.
	Brief string
}

func (e RefusedError) Error() string {
	if e.Err == nil {
		return "refused"
	}
	return e.Err.Error()
}

func (e RefusedError) Unwrap() error { return e.Err }

// Usagef returns a usage error (exit 2).
func Usagef(format string, a ...any) error {
	a = slices.Clone(a)
	for i, v := range a {
		if s, ok := v.(string); ok && len(s) > maxEchoed {
			a[i] = echoed(s)
		}
	}
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// Refusedf returns a refusal (exit 3).
func Refusedf(format string, a ...any) error {
	return &RefusedError{Err: fmt.Errorf(format, a...)}
}

// ExitCode maps an error to heron's exit code.
func ExitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, ErrExit):
		return ExitOK
	case isUsage(err):
		return ExitUsage
	case isRefused(err):
		return ExitRefused
	default:
		return ExitFailed
	}
}

func isUsage(err error) bool {
	var p *UsageError
	var v UsageError
	return errors.As(err, &p) || errors.As(err, &v)
}

func isRefused(err error) bool {
	var p *RefusedError
	var v RefusedError
	return errors.As(err, &p) || errors.As(err, &v)
}

// asUsage marks err as a usage error unless it already is one.
func asUsage(err error) error {
	if err == nil || isUsage(err) {
		return err
	}
	return &UsageError{Err: err}
}

// ErrorLine is the "error: ..." line the shell prints for err on w: on a
// terminal, a refusal's Brief, wrapped at spaces to the terminal's width
// with every command whole on a line of its own (wrapLine); piped, the
// whole error on one line, unwrapped: it is the one record a script's log
// or `grep '^error:'` keeps of the failure, with the detail and recipe,
// even when the table on stdout went elsewhere (a file, /dev/null, jq).
func ErrorLine(w io.Writer, err error) string {
	cols, terminal := TerminalWidth(w)
	msg := err.Error()
	var r *RefusedError
	if terminal && errors.As(err, &r) && r.Brief != "" {
		msg = r.Brief
	}
	line := "error: " + TerminalText(msg)
	if terminal {
		line = wrapLine(line, cols)
	}
	return line
}

// maxEchoed is how many bytes of a value an error quotes: an error names
// the value it refuses, but a flag value of a megabyte is not echoed whole
// into the terminal or a log.
const maxEchoed = 200

// QuoteValue is v quoted (%q) for a message, cut after maxEchoed bytes (at
// a rune's start) with an ellipsis and v's length: "abc"... (1048576 bytes).
func QuoteValue(v string) string {
	head, more := cutEchoed(v)
	return strconv.Quote(head) + more
}

// EchoValue is v for a message that names it unquoted (%s), cut as
// QuoteValue cuts it: abc... (1048576 bytes).
func EchoValue(v string) string {
	head, more := cutEchoed(v)
	return head + more
}

// cutEchoed is v's first maxEchoed bytes, cut at a rune's start, and what
// marks the cut ("" when v is short enough to echo whole).
func cutEchoed(v string) (head, more string) {
	if len(v) <= maxEchoed {
		return v, ""
	}
	n := maxEchoed
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n], fmt.Sprintf("... (%d bytes)", len(v))
}

// echoed is a long string argument of Usagef: %q prints it as QuoteValue
// does, so a value any command's Validate quotes is cut too; other verbs
// print it whole (a message may list what the instance has at length).
type echoed string

func (e echoed) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = io.WriteString(f, QuoteValue(string(e)))
		return
	}
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), string(e))
}
