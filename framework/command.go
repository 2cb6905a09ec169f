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
	exec      func(ctx context.Context, p any, m mode, w WriteIO) (Result, error)
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

// Plan is what a write command builds before it writes anything: rendered as
// a Result, it says what would change and each gate's verdict. Build reads
// what the gates and the per-key function need; Preview or Apply then decide
// every key in one scan.
type Plan interface {
	Result
	// Refusal is nil when every gate decided so far passed, else why the
	// write is refused.
	Refusal() error
	// Preview decides every key without writing: the dry run.
	Preview(ctx context.Context) error
	// Apply decides every key while it backs them up, has w approve the plan
	// before the first write (WriteIO.Approve), writes, verifies, and returns
	// what it did. A refusal found while deciding is returned as a
	// *RefusedError (the framework then renders the plan, not the result); a
	// plan not approved returns ErrNotConfirmed.
	Apply(ctx context.Context, w WriteIO) (Result, error)
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
	return w.Confirm(ctx, fmt.Sprintf("apply these %d key changes to %s? [y/N] ", keys, root))
}

// WriteFlags are the flags every write command has; embed them in the param
// struct as Output is embedded.
type WriteFlags struct {
	MaxTxnOps int    `name:"max-txn-ops" default:"128" desc:"at most this many keys per etcd transaction (etcd's --max-txn-ops)"`
	BackupDir string `name:"backup-dir" default:"." placeholder:"DIR" desc:"folder of the backup file written before the first write"`
}

func (f *WriteFlags) writeFlags() *WriteFlags { return f }

// Flag descriptions of the flags Write adds.
const (
	runFlagDesc = "apply the plan (without it, only print the plan and write nothing)"
	yesFlagDesc = "with --run: write without asking on a terminal"
)

// mode is what the framework flags of a command line asked for.
type mode struct{ run, yes bool }

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
	c.exec = func(ctx context.Context, p any, _ mode, w WriteIO) (Result, error) {
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

// Write binds a write command to the state value s; it gets the flags --run
// and --yes. The framework builds the plan, then without --run previews it
// and renders it (a dry run; a refusal is rendered too and exits 3); with
// --run applies it (the plan approves itself through WriteIO before the first
// write) and renders what Apply returns. build returns its own plan type.
func Write[S any, P any, T any, L interface {
	*T
	Plan
}](s S, build func(ctx context.Context, s S, p *P) (L, error)) *Command {
	c := newCommand[P](true)
	var once func(ctx context.Context, p any, m mode, w WriteIO) (Result, error)
	c.exec = func(ctx context.Context, p any, m mode, w WriteIO) (Result, error) {
		return RereadOnce(w.Stderr, func() (Result, error) { return once(ctx, p, m, w) })
	}
	once = func(ctx context.Context, p any, m mode, w WriteIO) (Result, error) {
		plan, err := build(ctx, s, p.(*P))
		if err != nil {
			return nil, err
		}
		if plan == nil {
			return nil, fmt.Errorf("%s: built no plan", c.Path())
		}
		refuse := func(refusal error) (Result, error) {
			if rerr := Render(w.Stdout, plan, w.Format); rerr != nil {
				fmt.Fprintf(w.Stderr, "error: %v\n", rerr)
			}
			return nil, asRefused(refusal)
		}
		if !m.run {
			if err := plan.Preview(ctx); err != nil {
				return nil, err
			}
			if refusal := plan.Refusal(); refusal != nil {
				return refuse(refusal)
			}
			if err := Render(w.Stdout, plan, w.Format); err != nil {
				return nil, err
			}
			fmt.Fprintln(w.Stderr, "dry run: nothing was written; add --run to apply the plan")
			return plan, nil
		}
		if refusal := plan.Refusal(); refusal != nil {
			return refuse(refusal)
		}
		if m.yes {
			w.Confirm = nil
		}
		res, err := plan.Apply(ctx, w)
		switch {
		case errors.Is(err, ErrNotConfirmed):
			fmt.Fprintln(w.Stderr, "nothing was written")
			return nil, nil
		case isRefused(err):
			return refuse(err)
		case isStaleRead(err):
			return nil, err
		}
		if res != nil {
			if rerr := Render(w.Stdout, res, w.Format); rerr != nil && err == nil {
				err = rerr
			}
		}
		return res, err
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
		panic(fmt.Sprintf("framework: command %q: --run and --yes are added by framework.Write; do not declare them", strings.Join(spec.Path, " ")))
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
func (c *Command) parse(args []string) (params any, m mode, err error) {
	name := c.Path()
	pv := reflect.New(c.paramType)
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	b := &flagBinding{cmd: name, sensitive: credentialCommands[name]}
	for _, f := range c.spec.Flags {
		if f.index == nil {
			dst := &m.yes
			if f.Name == "run" {
				dst = &m.run
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
			return nil, mode{}, errHelp
		case b.err != nil:
			return nil, mode{}, b.err
		case b.sensitive && !strings.HasPrefix(err.Error(), "unknown flag: --"):
			return nil, mode{}, Usagef("%s: cannot read the flags (write --name VALUE or --name=VALUE)", name)
		}
		return nil, mode{}, Usagef("%s: %v", name, err)
	}
	if rest := fs.Args(); len(rest) > 0 {
		if b.sensitive {
			return nil, mode{}, Usagef("%s: unexpected argument %d: not a flag (flags start with --)", name, positional(fs, args)+1)
		}
		return nil, mode{}, Usagef("%s: unexpected argument %q (flags start with --)", name, rest[0])
	}
	for _, f := range c.spec.Flags {
		if f.index == nil {
			continue
		}
		if err := f.after(fs, name); err != nil {
			return nil, mode{}, err
		}
	}
	if m.yes && !m.run {
		return nil, mode{}, Usagef("%s: --yes goes with --run", name)
	}
	p := pv.Interface()
	if wf, ok := p.(interface{ writeFlags() *WriteFlags }); ok && wf.writeFlags().MaxTxnOps < 1 {
		return nil, mode{}, Usagef("%s: --max-txn-ops must be at least 1, got %d", name, wf.writeFlags().MaxTxnOps)
	}
	if cp, ok := p.(interface{ Complete() error }); ok {
		if err := cp.Complete(); err != nil {
			return nil, mode{}, err
		}
	}
	if vp, ok := p.(interface{ Validate() error }); ok {
		if err := vp.Validate(); err != nil {
			return nil, mode{}, asUsage(err)
		}
	}
	if b.empty != nil {
		return nil, mode{}, b.empty
	}
	return p, m, nil
}

func formatOf(p any) string {
	if f, ok := p.(formatter); ok && f.OutputFormat() != "" {
		return f.OutputFormat()
	}
	return FormatTable
}
