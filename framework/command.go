package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
	exec      func(ctx context.Context, p any, run bool, out io.Writer, format string) (Result, error)
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
// a Result, it says what would change and each gate's verdict.
type Plan interface {
	Result
	// Refusal is nil when every gate passed, else why the write is refused.
	Refusal() error
	// Apply performs the plan and returns what it did.
	Apply(ctx context.Context) (Result, error)
}

// runFlagDesc is the help of the --run flag that Write adds.
const runFlagDesc = "apply the plan (without it, only print the plan and write nothing)"

// Read binds a read command to the state value s. The command's path, help
// and flags come from the tags of P (see ParamBase).
func Read[S any, P any](s S, run func(ctx context.Context, s S, p *P) (Result, error)) *Command {
	c := newCommand[P](false)
	c.exec = func(ctx context.Context, p any, _ bool, out io.Writer, format string) (Result, error) {
		res, err := run(ctx, s, p.(*P))
		if res != nil {
			if rerr := Render(out, res, format); rerr != nil && err == nil {
				err = rerr
			}
		}
		return res, err
	}
	return c
}

// Write binds a write command to the state value s; it gets the flag --run.
// The framework builds the plan, then: if the plan refuses, renders it and
// returns the refusal (exit 3); without --run renders the plan (a dry run);
// with --run applies it and renders only what Apply returns. build may return
// its own plan type, so a command's Build function binds as it is.
func Write[S any, P any, L Plan](s S, build func(ctx context.Context, s S, p *P) (L, error)) *Command {
	c := newCommand[P](true)
	c.exec = func(ctx context.Context, p any, run bool, out io.Writer, format string) (Result, error) {
		plan, err := build(WithRun(ctx, run), s, p.(*P))
		if err != nil {
			return nil, err
		}
		if v := reflect.ValueOf(plan); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
			return nil, fmt.Errorf("%s: built no plan", c.Path())
		}
		if refusal := plan.Refusal(); refusal != nil {
			if rerr := Render(out, plan, format); rerr != nil {
				fmt.Fprintf(Stderr(ctx), "error: %v\n", rerr)
			}
			return nil, asRefused(refusal)
		}
		if !run {
			if err := Render(out, plan, format); err != nil {
				return nil, err
			}
			fmt.Fprintln(Stderr(ctx), "dry run: nothing was written; add --run to apply the plan")
			return plan, nil
		}
		res, err := plan.Apply(ctx)
		if res != nil {
			if rerr := Render(out, res, format); rerr != nil && err == nil {
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
	if write && spec.flag("run") != nil {
		panic(fmt.Sprintf("framework: command %q: --run is added by framework.Write; do not declare it", strings.Join(spec.Path, " ")))
	}
	if write {
		spec.Flags = append(spec.Flags, &flagSpec{Name: "run", Kind: kindBool, Desc: runFlagDesc})
	}
	return &Command{spec: spec, paramType: t, write: write}
}

// errHelp is returned by parse when the words asked for the command's help.
var errHelp = errors.New("help requested")

// parse builds the params from the words after the command path.
func (c *Command) parse(args []string) (params any, run bool, err error) {
	name := c.Path()
	pv := reflect.New(c.paramType)
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	b := &flagBinding{cmd: name, sensitive: credentialCommands[name]}
	for _, f := range c.spec.Flags {
		if f.index == nil {
			fs.BoolVar(&run, f.Name, false, f.Desc)
			fl := fs.Lookup(f.Name)
			fl.Value = &scalarValue{Value: fl.Value, spec: f, b: b}
			continue
		}
		f.bind(fs, pv.Elem(), b)
	}
	if err := fs.Parse(args); err != nil {
		switch {
		case errors.Is(err, pflag.ErrHelp):
			return nil, false, errHelp
		case b.err != nil:
			return nil, false, b.err
		case b.sensitive && !strings.HasPrefix(err.Error(), "unknown flag: --"):
			return nil, false, Usagef("%s: cannot read the flags (write --name VALUE or --name=VALUE)", name)
		}
		return nil, false, Usagef("%s: %v", name, err)
	}
	if rest := fs.Args(); len(rest) > 0 {
		if b.sensitive {
			return nil, false, Usagef("%s: unexpected argument %d: not a flag (flags start with --)", name, positional(fs, args)+1)
		}
		return nil, false, Usagef("%s: unexpected argument %q (flags start with --)", name, rest[0])
	}
	for _, f := range c.spec.Flags {
		if f.index == nil {
			continue
		}
		if err := f.after(fs, name); err != nil {
			return nil, false, err
		}
	}
	p := pv.Interface()
	if cp, ok := p.(interface{ Complete() error }); ok {
		if err := cp.Complete(); err != nil {
			return nil, false, err
		}
	}
	if vp, ok := p.(interface{ Validate() error }); ok {
		if err := vp.Validate(); err != nil {
			return nil, false, asUsage(err)
		}
	}
	if b.empty != nil {
		return nil, false, b.empty
	}
	return p, run, nil
}

func formatOf(p any) string {
	if f, ok := p.(formatter); ok && f.OutputFormat() != "" {
		return f.OutputFormat()
	}
	return FormatTable
}

type stderrKey struct{}

type runKey struct{}

// WithRun returns a context whose Running is run (Write sets it for build).
func WithRun(ctx context.Context, run bool) context.Context {
	return context.WithValue(ctx, runKey{}, run)
}

// Running tells a Write command's build function that --run was given: the
// plan will be applied right after it passes its gates, so the build may
// leave work to Apply that only a run needs (a dry run must plan fully).
func Running(ctx context.Context) bool {
	run, _ := ctx.Value(runKey{}).(bool)
	return run
}

// WithStderr returns a context whose Stderr is w.
func WithStderr(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, stderrKey{}, w)
}

// Stderr is where a command writes progress, warnings and notices: the
// shell's stderr, or os.Stderr outside a shell.
func Stderr(ctx context.Context) io.Writer {
	if w, ok := ctx.Value(stderrKey{}).(io.Writer); ok && w != nil {
		return w
	}
	return os.Stderr
}
