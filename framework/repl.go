package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	prompt "github.com/c-bata/go-prompt"
)

// RunREPL runs the interactive shell on the terminal until exit, quit or
// Ctrl-D. Errors are printed as "error: ..." on stderr and the REPL goes on;
// panics in commands are errors. History lives in the history file with
// secret flag values redacted. The terminal is restored on the way out.
//
// Signals: a command runs with the terminal in its normal mode, so Ctrl-C
// sends SIGINT, which cancels the command's context (a write stops between
// transactions and says what it wrote); more Ctrl-Cs while it stops only say
// so, they never end the shell mid-transaction. SIGTERM and SIGHUP stop a
// running command the same way, then the REPL ends (exit 1); while waiting
// for input they end it at once. The REPL handles these signals itself: ctx
// should not be tied to them.
func (sh *Shell) RunREPL(ctx context.Context) (code int) {
	fd := int(os.Stdin.Fd())
	restore, cooked := saveTerminal(fd)
	defer restore()

	parser, err := newTTYParser()
	if err != nil {
		fmt.Fprintf(sh.stderr, "warning: no terminal for the REPL (%v); reading commands from standard input\n", err)
		return sh.RunScript(ctx, os.Stdin)
	}
	sh.SetConfirm(terminalConfirm(os.Stdin, sh.stderr))
	defer sh.SetConfirm(nil)

	histPath := sh.historyPath()
	hist := loadHistory(histPath)
	histWarned := false

	sig := newREPLSignals(sh, parser)
	defer sig.stop()

	for ctx.Err() == nil && sig.leaving() == nil {
		parser.eof.Store(false)
		p := prompt.New(func(string) {}, func(d prompt.Document) []prompt.Suggest {
			return sh.replSuggest(d.TextBeforeCursor())
		},
			prompt.OptionParser(parser),
			prompt.OptionPrefix(sh.State().Prompt()),
			prompt.OptionHistory(hist),
			prompt.OptionTitle("heron"),
			prompt.OptionMaxSuggestion(12),
			prompt.OptionSetExitCheckerOnInput(func(string, bool) bool { return parser.leaving.Load() }),
		)
		input, perr := readInput(p)
		// go-prompt leaves the terminal raw (no ISIG): a command must run
		// in the normal mode, where Ctrl-C is a SIGINT.
		cooked()
		if perr != nil {
			fmt.Fprintf(sh.stderr, "\nerror: terminal input failed: %v\n", perr)
			return ExitFailed
		}
		if sig.leaving() != nil {
			break
		}
		line := strings.TrimSpace(input)
		if line == "" {
			if parser.eof.Load() {
				break
			}
			continue
		}
		var herr error
		if hist, herr = sh.recordHistory(histPath, hist, line); herr != nil && !histWarned {
			histWarned = true
			fmt.Fprintf(sh.stderr, "warning: history not saved: %s\n", TerminalText(herr.Error()))
		}
		cctx, cancel := context.WithCancel(ctx)
		sig.running(cancel)
		exit := sh.replLine(cctx, line)
		if sig.done() {
			// Interrupted: what was typed meanwhile (a Ctrl-C byte, a
			// half line) must not be glued to the next line.
			flushInput(fd)
			parser.discard()
		}
		cancel()
		if exit {
			break
		}
	}
	if s := sig.leaving(); s != nil {
		fmt.Fprintf(sh.stderr, "\nerror: interrupted (%v): leaving the shell\n", s)
		return ExitFailed
	}
	return ExitOK
}

// replSignals routes SIGINT, SIGTERM and SIGHUP while the REPL runs.
type replSignals struct {
	sh     *Shell
	parser *ttyParser
	ch     chan os.Signal
	quit   chan struct{}
	wg     sync.WaitGroup

	mu          sync.Mutex
	cancel      context.CancelFunc // of the running command; nil while reading input
	interrupts  int                // signals received during the running command
	leaveSignal os.Signal          // SIGTERM or SIGHUP: leave once the command stopped
}

func newREPLSignals(sh *Shell, parser *ttyParser) *replSignals {
	s := &replSignals{sh: sh, parser: parser, ch: make(chan os.Signal, 8), quit: make(chan struct{})}
	signal.Notify(s.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-s.quit:
				return
			case v := <-s.ch:
				s.handle(v)
			}
		}
	}()
	return s
}

func (s *replSignals) handle(v os.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v != syscall.SIGINT && s.leaveSignal == nil {
		s.leaveSignal = v
	}
	switch {
	case s.cancel != nil:
		s.interrupts++
		if s.interrupts == 1 {
			// Said before the cancel, so that it comes before what the
			// stopping command prints.
			fmt.Fprintf(s.sh.stderr, "\ninterrupted: the command stops at its next safe point (a write stops between transactions)\n")
			s.cancel()
		} else {
			fmt.Fprintf(s.sh.stderr, "\nstill stopping: waiting for the command to finish its current step (the shell does not quit mid-transaction)\n")
		}
	case v != syscall.SIGINT:
		// Waiting for input: make go-prompt return.
		s.parser.leaving.Store(true)
	}
	// A SIGINT while waiting for input comes from kill(1), not the keyboard
	// (the terminal is raw: Ctrl-C clears the line): like a shell, ignore it.
}

// running marks a command as running with the cancel func of its context.
func (s *replSignals) running(cancel context.CancelFunc) {
	s.mu.Lock()
	s.cancel, s.interrupts = cancel, 0
	s.mu.Unlock()
}

// done marks the command as finished and reports whether it was interrupted.
func (s *replSignals) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	interrupted := s.interrupts > 0
	s.cancel, s.interrupts = nil, 0
	return interrupted
}

func (s *replSignals) leaving() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leaveSignal
}

func (s *replSignals) stop() {
	signal.Stop(s.ch)
	close(s.quit)
	s.wg.Wait()
}

// replLine runs one REPL line and reports whether the REPL must end.
func (sh *Shell) replLine(ctx context.Context, line string) (exit bool) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(sh.stderr, "error: %s\n", TerminalText(panicError(line, r).Error()))
			exit = false
		}
	}()
	err := sh.Run(ctx, line)
	switch {
	case errors.Is(err, ErrExit):
		return true
	case err != nil:
		fmt.Fprintln(sh.stderr, ErrorLine(sh.stderr, err))
	}
	return false
}

// readInput reads one line with go-prompt, which panics on some terminals.
func readInput(p *prompt.Prompt) (line string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return p.Input(), nil
}

// wakeKey is a key go-prompt knows (F24) and binds to nothing: the parser
// returns it to make a waiting Input call its exit checker.
var wakeKey = []byte{0x1b, 0x5b, 0x24, 0x3b, 0x32, 0x7e}

// errNoKey tells go-prompt's reader that there is nothing to read yet.
var errNoKey = errors.New("no key")

// ttyParser is go-prompt's terminal reader with what the REPL needs on top:
//   - it notes a Ctrl-D, so the REPL can tell it from an empty line (both
//     make Input return "");
//   - it hands go-prompt one key at a time: a pasted "show checkpoint\n"
//     arrives in one read, and go-prompt would insert the newline as text;
//     split, the newline is Enter and the line runs. After an Enter the rest
//     waits for the next Input (go-prompt drops keys read after the line);
//   - leaving makes it return wakeKey, so that Input ends on a signal.
type ttyParser struct {
	prompt.ConsoleParser
	eof     atomic.Bool
	leaving atomic.Bool

	mu      sync.Mutex
	pending [][]byte // keys of the last read not yet returned
	held    bool     // an Enter was returned: hold the rest until Setup
}

func newTTYParser() (p *ttyParser, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	in := prompt.NewStandardInputParser()
	if ws := in.GetWinSize(); ws.Col == 0 || ws.Row == 0 {
		return nil, fmt.Errorf("the terminal has no size (%dx%d)", ws.Col, ws.Row)
	}
	return &ttyParser{ConsoleParser: in}, nil
}

// Setup starts an Input: keys held since the last Enter flow again.
func (t *ttyParser) Setup() error {
	t.mu.Lock()
	t.held = false
	t.mu.Unlock()
	return t.ConsoleParser.Setup()
}

func (t *ttyParser) Read() ([]byte, error) {
	if t.leaving.Load() {
		return wakeKey, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held {
		return nil, errNoKey
	}
	if len(t.pending) == 0 {
		b, err := t.ConsoleParser.Read()
		if err != nil || len(b) == 0 {
			return b, err
		}
		t.pending = splitKeys(b)
	}
	b := t.pending[0]
	t.pending = t.pending[1:]
	if len(b) == 1 && (b[0] == '\r' || b[0] == '\n') {
		t.held = true
	}
	t.eof.Store(len(b) == 1 && b[0] == 0x04)
	return b, nil
}

// discard drops the keys read but not yet returned.
func (t *ttyParser) discard() {
	t.mu.Lock()
	t.pending = nil
	t.mu.Unlock()
}

// splitKeys splits one read from the terminal into the keys go-prompt
// matches one by one: runs of text, each control byte on its own, and each
// escape sequence (arrows, function keys) on its own: two arrows in one
// read (a key repeat over a slow kubectl exec) are two keys, not text.
func splitKeys(b []byte) [][]byte {
	if len(b) <= 1 {
		return [][]byte{b}
	}
	var out [][]byte
	start := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 0x20 && c != 0x7f {
			continue
		}
		if start < i {
			out = append(out, b[start:i])
		}
		n := 1
		if c == 0x1b {
			n = escapeLen(b[i:])
		}
		out = append(out, b[i:i+n])
		i += n - 1
		start = i + 1
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}

// escapeLen is the length of the escape sequence b starts with (b[0] is
// ESC): a CSI sequence (ESC [, parameter and intermediate bytes, a final
// byte in 0x40-0x7e), an SS3 one (ESC O and one byte), else ESC and the
// key it modifies (Alt-b).
func escapeLen(b []byte) int {
	if len(b) < 2 || b[1] < 0x20 {
		return 1
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			switch c := b[i]; {
			case c >= 0x40 && c <= 0x7e:
				return i + 1
			case c < 0x20 || c > 0x7e:
				return i
			}
		}
		return len(b)
	case 'O':
		return min(3, len(b))
	default:
		return 2
	}
}
