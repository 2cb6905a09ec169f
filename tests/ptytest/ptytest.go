// Package ptytest runs a program on a pseudo-terminal for tests: type keys,
// send signals, wait for output, read the exit code. It drives heron's REPL
// the way an operator's terminal does (raw mode, Ctrl-C as a key or as
// SIGINT from the line discipline).
package ptytest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Term is a program running on a pseudo-terminal.
type Term struct {
	t      testing.TB
	cmd    *exec.Cmd
	pty    *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	cursor int // Expect searches the output after this offset
	grown  chan struct{}
	exited chan struct{}
	err    error
}

// Start runs cmd on a new 40x120 pseudo-terminal that is its controlling
// terminal and its stdin, stdout and stderr. The program is killed when the
// test ends if it still runs.
func Start(t testing.TB, cmd *exec.Cmd) *Term {
	t.Helper()
	return StartSize(t, cmd, 40, 120)
}

// StartSize is Start on a pseudo-terminal of rows x cols (80 columns is
// what `kubectl exec -it` gives).
func StartSize(t testing.TB, cmd *exec.Cmd, rows, cols uint16) *Term {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Fatalf("ptytest: start %s: %v", cmd.Path, err)
	}
	tm := &Term{t: t, cmd: cmd, pty: f, grown: make(chan struct{}, 1), exited: make(chan struct{})}
	go tm.copy()
	go func() {
		tm.err = cmd.Wait()
		close(tm.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-tm.exited:
		default:
			_ = cmd.Process.Kill()
			<-tm.exited
		}
		_ = f.Close()
	})
	return tm
}

func (tm *Term) copy() {
	buf := make([]byte, 4096)
	for {
		n, err := tm.pty.Read(buf)
		if n > 0 {
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			select {
			case tm.grown <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// Send types s (use "\r" for Enter, "\x03" for Ctrl-C, "\x04" for Ctrl-D).
func (tm *Term) Send(s string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.pty, s); err != nil {
		tm.t.Fatalf("ptytest: type %q: %v", s, err)
	}
}

// Signal sends sig to the program.
func (tm *Term) Signal(sig os.Signal) {
	tm.t.Helper()
	if err := tm.cmd.Process.Signal(sig); err != nil {
		tm.t.Fatalf("ptytest: signal %v: %v", sig, err)
	}
}

// Output is everything the program wrote so far.
func (tm *Term) Output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

// Expect waits until the output after the last match holds want, and moves
// past it. It fails the test with the output when timeout passes first.
func (tm *Term) Expect(want string, timeout time.Duration) {
	tm.t.Helper()
	if _, ok := tm.wait(want, timeout); !ok {
		tm.t.Fatalf("ptytest: %q not seen within %v; output after the last match:\n%s", want, timeout, tm.rest())
	}
}

func (tm *Term) wait(want string, timeout time.Duration) (string, bool) {
	deadline := time.After(timeout)
	for {
		tm.mu.Lock()
		rest := tm.out.String()[tm.cursor:]
		if i := strings.Index(rest, want); i >= 0 {
			tm.cursor += i + len(want)
			tm.mu.Unlock()
			return rest[:i], true
		}
		tm.mu.Unlock()
		select {
		case <-tm.grown:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			return "", false
		}
	}
}

// Rest is the output after the last match.
func (tm *Term) rest() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()[tm.cursor:]
}

// Wait waits for the program to end and returns its exit code (-1 when a
// signal killed it). It fails the test when timeout passes first.
func (tm *Term) Wait(timeout time.Duration) int {
	tm.t.Helper()
	select {
	case <-tm.exited:
	case <-time.After(timeout):
		tm.t.Fatalf("ptytest: still running after %v; output:\n%s", timeout, tm.Output())
	}
	var ee *exec.ExitError
	switch {
	case tm.err == nil:
		return 0
	case errors.As(tm.err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	tm.t.Fatalf("ptytest: wait: %v", tm.err)
	return -1
}

// Buffer is a bytes.Buffer that a child process or a goroutine writes while
// the test reads it: the output of a program a test runs without a terminal.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
