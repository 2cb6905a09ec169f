package framework

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/google/shlex"
)

// A State is one state of the shell (offline, connected to an instance).
type State interface {
	// Prompt is the REPL prompt: "Offline > ", "Milvus(by-dev) > ".
	Prompt() string
	// Commands are the state's commands; help and exit are added by the shell.
	Commands() []*Command
	// Close releases what the state holds; the shell calls it when it leaves
	// the state (a transition) and in Shell.Close.
	Close() error
}

// UnknownCommander is an optional interface of a State: for a line that
// names none of its commands, Unknown may say why (a command of another
// state: "not connected"); nil keeps the shell's "unknown command".
type UnknownCommander interface {
	Unknown(words []string) error
}

// Transition is a Result that moves the shell to another state (connect,
// disconnect). The shell renders the result, then switches to NextState and
// closes the state it left.
type Transition interface {
	NextState() State
}

// Shell runs command lines against its current state.
type Shell struct {
	state       State
	idx         *index
	stdout      io.Writer
	stderr      io.Writer
	historyFile string
	historySet  bool
	confirm     Confirm                 // the question before a write; set by the REPL
	seen        map[string]*commandSpec // every command of every state the shell was in, by path
}

// NewShell returns a shell in state initial that renders results to stdout
// and writes notices and errors to stderr.
func NewShell(initial State, stdout, stderr io.Writer) *Shell {
	return &Shell{state: initial, stdout: stdout, stderr: stderr}
}

// State is the current state.
func (sh *Shell) State() State { return sh.state }

// Close closes the current state.
func (sh *Shell) Close() error {
	if sh.state == nil {
		return nil
	}
	return sh.state.Close()
}

func (sh *Shell) setState(next State) {
	old := sh.state
	sh.state, sh.idx = next, nil
	if old != nil && old != next {
		if err := old.Close(); err != nil {
			fmt.Fprintf(sh.stderr, "warning: closing the previous state: %v\n", err)
		}
	}
}

func (sh *Shell) index() *index {
	if sh.idx == nil {
		sh.idx = newIndex(sh.state.Commands())
		if sh.seen == nil {
			sh.seen = map[string]*commandSpec{}
		}
		for _, c := range sh.idx.cmds {
			sh.seen[c.Path()] = c.spec
		}
	}
	return sh.idx
}

// Run runs one command line, split into words like a shell does. The result
// goes to stdout; the error is returned (exit and quit return ErrExit).
func (sh *Shell) Run(ctx context.Context, line string) (err error) {
	words, err := shlex.Split(line)
	if err != nil {
		return Usagef("cannot split the command line: %v", err)
	}
	if len(words) == 0 {
		return nil
	}
	name := words[0]
	defer func() {
		if r := recover(); r != nil {
			err = panicError(name, r)
		}
	}()
	switch name {
	case "exit", "quit":
		if len(words) == 2 && (words[1] == "--help" || words[1] == "-h") {
			return Render(sh.stdout, &helpResult{builtin: name}, FormatTable)
		}
		if len(words) > 1 {
			return Usagef("%s takes no arguments", name)
		}
		return ErrExit
	case "help":
		return sh.help(words[1:])
	case "clear":
		if len(words) > 1 {
			return Usagef("clear takes no arguments")
		}
		// On a terminal: the cursor home, then erase the screen; piped,
		// there is no screen to clear.
		if _, ok := TerminalWidth(sh.stdout); ok {
			_, err := io.WriteString(sh.stdout, "\x1b[H\x1b[2J")
			return err
		}
		return nil
	}
	cmd, rest, err := sh.index().resolve(words)
	if err != nil {
		if group, ok := sh.groupHelp(words); ok {
			return sh.help(group)
		}
		if u, ok := sh.state.(UnknownCommander); ok {
			if uerr := u.Unknown(words); uerr != nil {
				return uerr
			}
		}
		return err
	}
	name = cmd.Path()
	p, run, err := cmd.parse(rest)
	if errors.Is(err, errHelp) {
		return Render(sh.stdout, &helpResult{detail: cmd}, FormatTable)
	}
	if err != nil {
		return err
	}
	res, err := cmd.exec(ctx, p, run, WriteIO{Stdout: sh.stdout, Stderr: DiagnosticWriter(sh.stderr), Format: formatOf(p), Confirm: sh.confirm})
	if err != nil {
		return err
	}
	if t, ok := res.(Transition); ok {
		if next := t.NextState(); next != nil {
			sh.setState(next)
		}
	}
	return nil
}

// groupHelp recognises "show --help": words that name a group of commands
// and ask for help (and nothing else). It returns the group's words.
func (sh *Shell) groupHelp(words []string) (group []string, ok bool) {
	asked := false
	for _, w := range words {
		switch {
		case w == "--help" || w == "-h":
			asked = true
		case strings.HasPrefix(w, "-"):
			return nil, false
		default:
			group = append(group, w)
		}
	}
	return group, asked && len(sh.index().children(group)) > 0
}

// PanicError is a panic inside a command, turned into an error.
type PanicError struct {
	Command string
	Value   any
	Stack   []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: internal error (panic): %v", e.Command, e.Value)
}

func panicError(cmd string, r any) error {
	return &PanicError{Command: cmd, Value: r, Stack: debug.Stack()}
}

// RunScript runs one command a line from r, skipping blank lines and lines
// starting with #, and stops at the first failing command, printing
// "error: ..." to stderr. It returns the exit code. When ctx ends (SIGINT or
// SIGTERM in main) the script stops with exit 1, also while it waits for its
// next line, and an end of input after an interrupt is still exit 1.
func (sh *Shell) RunScript(ctx context.Context, r io.Reader) int {
	lines := make(chan string)
	readErr := make(chan error, 1)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-quit:
				return
			}
		}
		readErr <- sc.Err()
	}()
	for {
		var text string
		var ok bool
		select {
		case <-ctx.Done():
			fmt.Fprintf(sh.stderr, "error: interrupted\n")
			return ExitFailed
		case text, ok = <-lines:
		}
		if !ok {
			break
		}
		line := strings.TrimSpace(text)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if code, stop := sh.step(ctx, line); stop {
			return code
		}
	}
	if err := <-readErr; err != nil {
		fmt.Fprintf(sh.stderr, "error: read commands: %v\n", err)
		return ExitFailed
	}
	if ctx.Err() != nil {
		fmt.Fprintf(sh.stderr, "error: interrupted\n")
		return ExitFailed
	}
	return ExitOK
}

// RunOLC runs comma-separated commands (birdwatcher's --olc), with the
// semantics of RunScript. Commas inside quotes do not split:
// connect --etcd "a:2379,b:2379", show session
func (sh *Shell) RunOLC(ctx context.Context, commands string) int {
	for _, line := range SplitOLC(commands) {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if code, stop := sh.step(ctx, line); stop {
			return code
		}
	}
	return ExitOK
}

// step runs one line of a script; stop is true when the script must end.
func (sh *Shell) step(ctx context.Context, line string) (code int, stop bool) {
	if ctx.Err() != nil {
		fmt.Fprintf(sh.stderr, "error: interrupted\n")
		return ExitFailed, true
	}
	err := sh.Run(ctx, line)
	switch {
	case err == nil:
		return ExitOK, false
	case errors.Is(err, ErrExit):
		return ExitOK, true
	default:
		fmt.Fprintln(sh.stderr, ErrorLine(sh.stderr, err))
		return ExitCode(err), true
	}
}

// SplitOLC splits one-line commands on the commas that are outside quotes,
// and trims each command.
func SplitOLC(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		esc   bool
	)
	for _, r := range s {
		switch {
		case esc:
			esc = false
		case r == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == ',':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	out = append(out, strings.TrimSpace(cur.String()))
	return out
}

// index resolves words to the commands of one state.
type index struct {
	cmds   []*Command // sorted by path
	byPath map[string]*Command
	// aliases are the commands by their other paths (birdwatcher's names).
	aliases map[string]*Command
	dups    map[string]bool
	depth   int
}

func newIndex(cmds []*Command) *index {
	ix := &index{byPath: map[string]*Command{}, aliases: map[string]*Command{}, dups: map[string]bool{}}
	for _, c := range cmds {
		if c == nil {
			continue
		}
		p := c.Path()
		if _, ok := ix.byPath[p]; ok {
			ix.dups[p] = true
			continue
		}
		ix.byPath[p] = c
		ix.cmds = append(ix.cmds, c)
		ix.depth = max(ix.depth, len(c.spec.Path))
	}
	for _, c := range ix.cmds {
		for _, a := range c.spec.Aliases {
			if _, taken := ix.byPath[a]; !taken {
				ix.aliases[a] = c
				ix.depth = max(ix.depth, len(strings.Fields(a)))
			}
		}
	}
	sort.Slice(ix.cmds, func(i, j int) bool { return ix.cmds[i].Path() < ix.cmds[j].Path() })
	return ix
}

// lookup is the command at path, by its path or an alias.
func (ix *index) lookup(path string) (*Command, bool) {
	if c, ok := ix.byPath[path]; ok {
		return c, true
	}
	c, ok := ix.aliases[path]
	return c, ok
}

// resolve finds the command named by the leading words (longest match, by
// path or alias) and returns the words after its path.
func (ix *index) resolve(words []string) (*Command, []string, error) {
	n := 0
	for n < len(words) && n < ix.depth && !strings.HasPrefix(words[n], "-") {
		n++
	}
	for k := n; k >= 1; k-- {
		p := strings.Join(words[:k], " ")
		if c, ok := ix.lookup(p); ok {
			if ix.dups[p] {
				return nil, nil, fmt.Errorf("command %q is registered twice", p)
			}
			return c, words[k:], nil
		}
	}
	// No command: find the longest group the words name, for the message.
	for k := n; k >= 1; k-- {
		if subs := ix.children(words[:k]); len(subs) > 0 {
			group := strings.Join(words[:k], " ")
			if k < len(words) && !strings.HasPrefix(words[k], "-") {
				if hint := didYouMean(words[k], ix.childWords(words[:k]), group+" "); hint != "" {
					return nil, nil, Usagef("unknown command %q%s", strings.Join(words[:k+1], " "), hint)
				}
				return nil, nil, Usagef("unknown command %q (%s has: %s)", strings.Join(words[:k+1], " "), group, strings.Join(subs, ", "))
			}
			return nil, nil, Usagef("%q needs a subcommand: %s", group, strings.Join(subs, ", "))
		}
	}
	if hint := didYouMean(words[0], ix.topWords(), ""); hint != "" {
		return nil, nil, Usagef("unknown command %q%s", words[0], hint)
	}
	return nil, nil, Usagef("unknown command %q (type help for the list)", words[0])
}

// children lists the distinct next words of the commands under prefix.
func (ix *index) children(prefix []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range ix.cmds {
		p := c.spec.Path
		if len(p) <= len(prefix) || !hasPrefix(p, prefix) {
			continue
		}
		if w := p[len(prefix)]; !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// childWords are the next words under prefix, aliases included (for a
// did-you-mean).
func (ix *index) childWords(prefix []string) []string {
	out := ix.children(prefix)
	for a := range ix.aliases {
		w := strings.Fields(a)
		if len(w) > len(prefix) && hasPrefix(w, prefix) {
			out = append(out, w[len(prefix)])
		}
	}
	return out
}

func hasPrefix(path, prefix []string) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

// SetConfirm sets the question asked before a write (nil: none, as in
// script mode).
func (sh *Shell) SetConfirm(c Confirm) { sh.confirm = c }
