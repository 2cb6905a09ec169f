package apply

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/heron-shell/heron/framework"
)

// Every write command registers itself here by name when it is bound to a
// store (Command): a saved plan records that name and the command's flags
// (Header.Planner, Header.Params), and apply --file plans again through
// the command's own build, with all its gates, at the current revision
// (Replay), instead of trusting the file.

// Version is heron's version, as states.Version (set by -ldflags) gives it:
// states sets it at start, this package cannot import states.
var Version = "dev"

// HeronBuild is the version and build that plans: "VERSION (vcs REVISION,
// GO)", recorded in every header (Header.Heron).
func HeronBuild() string {
	rev := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified {
			rev += "-dirty"
		}
	}
	return fmt.Sprintf("%s (vcs %s, %s)", Version, rev, runtime.Version())
}

// planner is a registered command: its parser and its build on its store.
type planner struct {
	cmd   *framework.Command
	build func(ctx context.Context, p any, st *Stage) (*Plan, error)
}

// plannerKey names a command on one store (each connection binds its own).
type plannerKey struct {
	store any
	name  string
}

var (
	plannersMu sync.RWMutex
	planners   = map[plannerKey]planner{}
)

// register binds the command's name on store to its build.
func register[S Store, P any](store S, cmd *framework.Command, build Build[S, P]) {
	key := plannerKey{store: any(store), name: cmd.Path()}
	if !comparableValue(key.store) {
		return
	}
	plannersMu.Lock()
	defer plannersMu.Unlock()
	planners[key] = planner{cmd: cmd, build: func(ctx context.Context, p any, st *Stage) (*Plan, error) {
		return build(ctx, store, p.(*P), st)
	}}
}

// comparableValue: v can key a map (a fake store in a test may not).
func comparableValue(v any) bool { return v != nil && reflect.ValueOf(v).Comparable() }

// Forget drops the commands registered on store (a closed connection).
func Forget(store Store) {
	if !comparableValue(any(store)) {
		return
	}
	plannersMu.Lock()
	defer plannersMu.Unlock()
	for k := range planners {
		if k.store == any(store) {
			delete(planners, k)
		}
	}
}

// Registered reports whether store has the write command name.
func Registered(store Store, name string) bool {
	_, ok := lookup(store, name)
	return ok
}

func lookup(store Store, name string) (planner, bool) {
	if name == "" || !comparableValue(any(store)) {
		return planner{}, false
	}
	plannersMu.RLock()
	defer plannersMu.RUnlock()
	pl, ok := planners[plannerKey{store: any(store), name: name}]
	return pl, ok
}

// Replay plans again what header h records: its Planner's build on store,
// with its recorded Params parsed as that command's flags (secret ones from
// the environment), through st. tap, when set, sees every op the scan
// yields, in write order, staged or not (the scan builds its ops even on a
// dry run). It returns the plan and the header its scan staged under.
func Replay(ctx context.Context, store Store, h Header, st *Stage, tap func(Op) error) (*Plan, Header, error) {
	pl, ok := lookup(store, h.Planner)
	if !ok {
		return nil, Header{}, &RecordedError{Planner: h.Planner, Err: errors.New("this heron has no such write command")}
	}
	p, err := pl.cmd.ParseRecorded(h.Params)
	if err != nil {
		return nil, Header{}, &RecordedError{Planner: h.Planner, Err: err}
	}
	if wf, ok := p.(interface{ WriteOptions() *framework.WriteFlags }); ok {
		// A plan records no write flag: the server's request limit is the
		// one the operator names to the run that plans again (its plan
		// gates the values by it, as the command's own --run does).
		wf.WriteOptions().MaxRequestBytes = st.opt.MaxRequestBytes
	}
	st.planner, st.params, st.tap = h.Planner, h.Params, tap
	defer func() { st.tap = nil }()
	plan, err := pl.build(ctx, p, st)
	if err == nil && plan == nil {
		err = fmt.Errorf("%s built no plan", h.Planner)
	}
	var usage *framework.UsageError
	if errors.As(err, &usage) {
		// The recorded flags parse but do not fit the command on this
		// instance (an unknown --pchannel): the file's claim, not a usage
		// error of the command line typed.
		return nil, Header{}, &RecordedError{Planner: h.Planner, Err: err}
	}
	return plan, st.header, err
}

// RecordedError is a header whose recorded command cannot be planned again:
// heron does not know it, or its recorded flags do not parse or do not fit
// the command (its build refused them as a usage error).
type RecordedError struct {
	Planner string
	Err     error
}

func (e *RecordedError) Error() string {
	return fmt.Sprintf("the header's recorded command %q cannot be planned again: %v", e.Planner, e.Err)
}

func (e *RecordedError) Unwrap() error { return e.Err }

var (
	commandRulesMu sync.RWMutex
	commandRules   = map[string]string{}
)

// RegisterCommandRule registers rule under name (RegisterRule) as the rule
// of command's files: restore refuses a file of command that names another
// rule, or none (a header stripped of its rule hides what the command
// wrote, which restore compares the instance with).
func RegisterCommandRule(command, name string, rule Rule) {
	RegisterRule(name, rule)
	commandRulesMu.Lock()
	defer commandRulesMu.Unlock()
	commandRules[command] = name
}

// CommandRule is the rule command's files name ("": none).
func CommandRule(command string) string {
	commandRulesMu.RLock()
	defer commandRulesMu.RUnlock()
	return commandRules[command]
}

// KnownRule reports whether name is a rule this heron has.
func KnownRule(name string) bool {
	rulesMu.RLock()
	defer rulesMu.RUnlock()
	_, ok := rules[name]
	return ok
}
