package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	prompt "github.com/c-bata/go-prompt"
)

// RunREPL runs the interactive shell on the terminal until exit, quit or
// Ctrl-D. Errors are printed as "error: ..." on stderr and the REPL goes on;
// panics in commands are errors. History lives in the history file with
// secret flag values redacted. The terminal is restored on the way out.
func (sh *Shell) RunREPL(ctx context.Context) (code int) {
	restore := saveTerminal(int(os.Stdin.Fd()))
	defer restore()

	parser, err := newTTYParser()
	if err != nil {
		fmt.Fprintf(sh.stderr, "warning: no terminal for the REPL (%v); reading commands from standard input\n", err)
		return sh.RunScript(ctx, os.Stdin)
	}

	histPath := sh.historyPath()
	hist := loadHistory(histPath)
	histWarned := false

	var running atomic.Pointer[context.CancelFunc]
	sigCh := make(chan os.Signal, 1)
	signal.Notify(sigCh, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigCh)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-sigCh:
				if cancel := running.Swap(nil); cancel != nil && s == syscall.SIGINT {
					// The first Ctrl-C interrupts the running command.
					(*cancel)()
					continue
				}
				// Killed while waiting for input, or a second Ctrl-C: leave.
				restore()
				fmt.Fprintln(sh.stderr)
				_ = sh.Close()
				os.Exit(128 + int(s.(syscall.Signal)))
			}
		}
	}()

	for ctx.Err() == nil {
		parser.eof.Store(false)
		p := prompt.New(func(string) {}, func(d prompt.Document) []prompt.Suggest {
			return sh.replSuggest(d.TextBeforeCursor())
		},
			prompt.OptionParser(parser),
			prompt.OptionPrefix(sh.State().Prompt()),
			prompt.OptionHistory(hist),
			prompt.OptionTitle("heron"),
			prompt.OptionMaxSuggestion(12),
		)
		input, perr := readInput(p)
		if perr != nil {
			restore()
			fmt.Fprintf(sh.stderr, "\nerror: terminal input failed: %v\n", perr)
			return ExitFailed
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
			fmt.Fprintf(sh.stderr, "warning: history not saved: %v\n", herr)
		}
		cctx, cancel := context.WithCancel(ctx)
		running.Store(&cancel)
		exit := sh.replLine(cctx, line)
		running.Store(nil)
		cancel()
		if exit {
			break
		}
	}
	return ExitOK
}

// replLine runs one REPL line and reports whether the REPL must end.
func (sh *Shell) replLine(ctx context.Context, line string) (exit bool) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(sh.stderr, "error: %v\n", panicError(line, r))
			exit = false
		}
	}()
	err := sh.Run(ctx, line)
	switch {
	case errors.Is(err, ErrExit):
		return true
	case err != nil:
		fmt.Fprintf(sh.stderr, "error: %v\n", err)
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

// ttyParser is go-prompt's terminal reader that also notes a Ctrl-D, so the
// REPL can tell it from an empty line (both make Input return "").
type ttyParser struct {
	prompt.ConsoleParser
	eof atomic.Bool
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

func (t *ttyParser) Read() ([]byte, error) {
	b, err := t.ConsoleParser.Read()
	if err == nil && len(b) > 0 {
		t.eof.Store(len(b) == 1 && b[0] == 0x04)
	}
	return b, err
}
