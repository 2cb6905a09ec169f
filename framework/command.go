package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/spf13/pflag"
)

// Command is one command of a state: its path ("show checkpoint"), its help,
// the flags declared by its param struct and the closure that runs it.
type Command struct {
	spec      *commandSpec
	paramType reflect.Type
	write     bool
	exec      func(ctx context.Context, p any, m Mode, w WriteIO) (Result, error)
}

// Path is the command's words joined by spaces.
func (c *Command) Path() string { return strings.Join(c.spec.Path, " ") }

// Help is the command's one-line help.
func (c *Command) Help() string { return c.spec.Desc }

// Flags are the names of the command's flags, without dashes, in declaration order.
func (c *Command) Flags() []string {
	names := make([]string, len(c.spec.Flags))
	for i, f := range c.spec.Flags {
		names[i] = f.Name
	}
	return names
}

// ErrNotConfirmed is what a plan's Apply returns when the question before the
// first write was not answered yes: nothing was written.
var ErrNotConfirmed = errors.New("not confirmed: nothing was written")

// Confirm asks a yes/no question and reports a yes.
type Confirm func(ctx context.Context, question string) (bool, error)

// WriteIO is what the shell hands a write command's plan: where its output
// goes, in which format, and who approves the write.
type WriteIO struct {
	Stdout, Stderr io.Writer
	Format         string
	// Confirm is the question on a terminal; nil in script mode, with --olc
	// and with --yes, where the write goes ahead unasked.
	Confirm Confirm
}

// Approve shows plan before the first write (on stdout; on stderr when the
// format is JSON, so that stdout stays the one run document) and, on a
// terminal, asks "apply these N key changes to ROOT? [y/N]".
func (w WriteIO) Approve(ctx context.Context, plan Result, keys int64, root string) (bool, error) {
	return w.ApproveQuestion(ctx, plan, fmt.Sprintf("apply these %d key changes to %s? [y/N] ", keys, root))
}

// ApproveQuestion is Approve asking question (a plan that also changes
// something outside etcd names it).
func (w WriteIO) ApproveQuestion(ctx context.Context, plan Result, question string) (bool, error) {
	out, format := w.Stdout, w.Format
	if format == FormatJSON {
		out, format = w.Stderr, FormatTable
	}
	if out != nil {
		if err := Render(out, plan, format); err != nil {
			return false, err
		}
	}
	if w.Confirm == nil {
		return true, nil
	}
	return w.Confirm(ctx, question)
}

// WriteFlags are the flags every write command has; embed them in the param
// struct as Output is embedded.
type WriteFlags struct {
	MaxTxnOps   int    `name:"max-txn-ops" default:"128" desc:"at most this many operations per etcd transaction, the guards' compares included (etcd's --max-txn-ops)"`
	MaxInflight int    `name:"max-inflight" default:"4" desc:"at most this many transactions of one phase in flight (1: one at a time)"`
	BackupDir   string `name:"backup-dir" default:"." placeholder:"DIR" desc:"folder of the backup file written before the first write"`
	PlanOut     string `name:"plan-out" placeholder:"FILE" desc:"also save the staged plan (checksummed, no credentials) to FILE, for apply --file FILE --run"`
	// MaxRequestBytes is the etcd server's --max-request-bytes: a plan with
	// a value that does not fit in one request of that size is refused.
	MaxRequestBytes int `name:"max-request-bytes" default:"1572864" placeholder:"BYTES" desc:"the etcd server's --max-request-bytes (1.5 MiB by default): a plan with a value larger than one request allows is refused; raise it only to what the server runs with"`
}

// MaxInflightLimit bounds --max-inflight: past a few transactions etcd
// already batches every proposal into one raft entry, and each one in
// flight holds its request (up to 1.5 MiB) in memory.
const MaxInflightLimit = 16

// WriteOptions are the write flags of a param struct that embeds them.
func (f *WriteFlags) WriteOptions() *WriteFlags { return f }

// Flag descriptions of the flags Write adds.
const (
	runFlagDesc = "apply the plan (without it, only print the plan and write nothing)"
	yesFlagDesc = "with --run: write without asking on a terminal"
)

// Mode is what the framework flags of a write command line asked for:
// --run, and --yes (with --run).
type Mode struct{ Run, Yes bool }

// IO is where a read command's output goes: the shell renders the command's
// Result to Stdout; the command writes progress, warnings and notices to
// Stderr itself. Read never passes a nil writer.
type IO struct {
	Stdout, Stderr io.Writer
}

// Read binds a read command to the state value s. The command's path, help
// and flags come from the tags of P (see ParamBase); run gets its output
// writers in out, not from the context.
func Read[S any, P any](s S, run func(ctx context.Context, s S, p *P, out IO) (Result, error)) *Command {
	c := newCommand[P](false)
	c.exec = func(ctx context.Context, p any, _ Mode, w WriteIO) (Result, error) {
		out := IO{Stdout: orDiscard(w.Stdout), Stderr: orDiscard(w.Stderr)}
		res, err := run(ctx, s, p.(*P), out)
		if res != nil {
			if rerr := Render(out.Stdout, res, w.Format); rerr != nil && err == nil {
				err = rerr
			}
		}
		return res, err
	}
	return c
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// WriteCommand binds a write command: it gets the flags --run and --yes,
// and exec does the rest (framework/apply.Command is the kit every write
// command is built with: plan, view, ask, commit, verify).
func WriteCommand[P any](exec func(ctx context.Context, p *P, m Mode, w WriteIO) (Result, error)) *Command {
	c := newCommand[P](true)
	c.exec = func(ctx context.Context, p any, m Mode, w WriteIO) (Result, error) {
		w.Stdout, w.Stderr = orDiscard(w.Stdout), orDiscard(w.Stderr)
		if m.Yes {
			w.Confirm = nil
		}
		return exec(ctx, p.(*P), m, w)
	}
	return c
}

func newCommand[P any](write bool) *Command {
	t := reflect.TypeOf((*P)(nil)).Elem()
	spec, err := parseSpec(t)
	if err != nil {
		panic("framework: " + err.Error())
	}
	if write && (spec.flag("run") != nil || spec.flag("yes") != nil) {
		panic(fmt.Sprintf("framework: command %q: --run and --yes are added by framework.WriteCommand; do not declare them", strings.Join(spec.Path, " ")))
	}
	if write {
		spec.Flags = append(spec.Flags, &flagSpec{Name: "run", Kind: kindBool, Desc: runFlagDesc},
			&flagSpec{Name: "yes", Kind: kindBool, Desc: yesFlagDesc})
	}
	return &Command{spec: spec, paramType: t, write: write}
}

// errHelp is returned by parse when the words asked for the command's help.
var errHelp = errors.New("help requested")

// parse builds the params from the words after the command path.
func (c *Command) parse(args []string) (params any, m Mode, err error) {
	name := c.Path()
	pv := reflect.New(c.paramType)
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	b := &flagBinding{cmd: name, sensitive: credentialCommands[name]}
	if aliases := c.spec.flagAliases(); len(aliases) > 0 {
		fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
			if canonical, ok := aliases[n]; ok {
				return pflag.NormalizedName(canonical)
			}
			return pflag.NormalizedName(n)
		})
	}
	for _, f := range c.spec.Flags {
		if f.index == nil {
			dst := &m.Yes
			if f.Name == "run" {
				dst = &m.Run
			}
			fs.BoolVar(dst, f.Name, false, f.Desc)
			fl := fs.Lookup(f.Name)
			fl.Value = &scalarValue{Value: fl.Value, spec: f, b: b}
			continue
		}
		f.bind(fs, pv.Elem(), b)
	}
	if err := fs.Parse(args); err != nil {
		switch {
		case errors.Is(err, pflag.ErrHelp):
			return nil, Mode{}, errHelp
		case b.err != nil:
			return nil, Mode{}, b.err
		case b.sensitive && !strings.HasPrefix(err.Error(), "unknown flag: --"):
			return nil, Mode{}, Usagef("%s: cannot read the flags (write --name VALUE or --name=VALUE)", name)
		}
		// pflag's error names the flag as typed: cut like a value.
		return nil, Mode{}, Usagef("%s: %s%s", name, EchoValue(err.Error()), c.unknownFlagHint(err.Error()))
	}
	if rest := fs.Args(); len(rest) > 0 {
		if b.sensitive {
			return nil, Mode{}, Usagef("%s: unexpected argument %d: not a flag (flags start with --)", name, positional(fs, args)+1)
		}
		return nil, Mode{}, Usagef("%s: unexpected argument %q (flags start with --)", name, rest[0])
	}
	for _, f := range c.spec.Flags {
		if f.index == nil {
			continue
		}
		if err := f.after(fs, name); err != nil {
			return nil, Mode{}, err
		}
	}
	if m.Yes && !m.Run {
		return nil, Mode{}, Usagef("%s: --yes goes with --run", name)
	}
	p := pv.Interface()
	if wf, ok := p.(interface{ WriteOptions() *WriteFlags }); ok {
		if f := wf.WriteOptions(); f.MaxTxnOps < 1 {
			return nil, Mode{}, Usagef("%s: --max-txn-ops must be at least 1, got %d", name, f.MaxTxnOps)
		} else if f.MaxInflight < 1 || f.MaxInflight > MaxInflightLimit {
			return nil, Mode{}, Usagef("%s: --max-inflight must be from 1 to %d, got %d", name, MaxInflightLimit, f.MaxInflight)
		}
	}
	if cp, ok := p.(interface{ Complete() error }); ok {
		if err := cp.Complete(); err != nil {
			return nil, Mode{}, err
		}
	}
	if vp, ok := p.(interface{ Validate() error }); ok {
		if err := vp.Validate(); err != nil {
			return nil, Mode{}, asUsage(err)
		}
	}
	if b.empty != nil {
		return nil, Mode{}, b.empty
	}
	return p, m, nil
}

func formatOf(p any) string {
	if f, ok := p.(formatter); ok && f.OutputFormat() != "" {
		return f.OutputFormat()
	}
	return FormatTable
}
