package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Effect is a change a plan makes outside etcd (the objects of a bucket):
// a value that says what it does, for the view, the question and the run's
// result, and the one function that does it. The kit runs it exactly once,
// after the backup is published and before the first etcd write (the etcd
// backup cannot bring it back), with its progress on stderr; its error
// stops the run with nothing written to etcd.
type Effect struct {
	EffectInfo
	// Run does it; it calls done with each batch of items finished, for
	// the progress and for what a failure left done.
	Run func(ctx context.Context, done func(n int64)) error
}

// EffectInfo is what an Effect does, as the question, the run's result and
// a backup's header name it (never a credential).
type EffectInfo struct {
	// Verb is what it does to each item ("delete"), Past the same done
	// ("deleted").
	Verb string `json:"verb"`
	Past string `json:"-"`
	// Count items of Unit ("objects"), Bytes their size.
	Count int64  `json:"count"`
	Unit  string `json:"unit"`
	Bytes int64  `json:"bytes"`
	// Where names the place: "bucket a-bucket, files/wp/ on minio:9000".
	Where string `json:"where"`
}

// String is "delete 17 objects (1454 bytes) in bucket ...".
func (e EffectInfo) String() string {
	return fmt.Sprintf("%s %d %s (%d bytes) in %s", e.Verb, e.Count, e.Unit, e.Bytes, e.Where)
}

// EffectDone is an effect the run did: Done of its Count items.
type EffectDone struct {
	EffectInfo
	Done    int64   `json:"done"`
	Seconds float64 `json:"seconds"`
}

func (d EffectDone) String() string {
	return fmt.Sprintf("%s %d of the %d %s (%d bytes) in %s", d.Past, d.Done, d.Count, d.Unit, d.Bytes, d.Where)
}

// EffectError is an effect that failed: the run stopped before its first
// etcd write. Done are the effects it did, the failed one last.
type EffectError struct {
	Command string
	Done    []EffectDone
	Backup  string
	Err     error
}

func (e *EffectError) Error() string {
	failed := e.Done[len(e.Done)-1]
	outside := make([]string, len(e.Done))
	for i, d := range e.Done {
		outside[i] = d.String()
	}
	return fmt.Sprintf("%s: %s %s failed: %v; nothing was written to etcd (the backup %s holds its keys as they still are); outside etcd it %s, which no backup brings back; run the command again to complete",
		e.Command, failed.Verb, failed.Unit, e.Err, e.Backup, strings.Join(outside, ", then "))
}

func (e *EffectError) Unwrap() error { return e.Err }

// effects are the plan's effects that have something to do.
func (p *Plan) effects() []Effect {
	var out []Effect
	for _, e := range p.External {
		if e.Count > 0 {
			out = append(out, e)
		}
	}
	return out
}

// effectInfos are the plan's effects as a header records them.
func (p *Plan) effectInfos() []EffectInfo {
	var out []EffectInfo
	for _, e := range p.effects() {
		out = append(out, e.EffectInfo)
	}
	return out
}

// checkEffects: an effect goes with the plan's key changes (the kit runs it
// between the backup and the first write), and says what it does.
func (p *Plan) checkEffects() error {
	for _, e := range p.effects() {
		switch {
		case e.Run == nil || e.Verb == "" || e.Past == "" || e.Unit == "" || e.Where == "":
			return fmt.Errorf("%s: the plan's effect outside etcd %q does not say what it does: nothing was written", p.Command, e.String())
		case p.Keys == 0:
			return fmt.Errorf("%s: the plan would %s but changes no key: nothing was written", p.Command, e.String())
		}
	}
	return nil
}

// question is what the kit asks before the first write: a line naming
// what is written where (the command and its target WAL, the root path and
// its etcd) and the folder the backup goes to first, then the effects
// outside etcd in the order they run, then the question.
func (p *Plan) question(h Header, backupDir string) string {
	endpoints, what := h.Endpoints, p.Command
	if h.Target != "" {
		what += " to " + h.Target
	}
	where := p.Root
	if len(endpoints) > 0 {
		where += " on etcd " + strings.Join(endpoints, ",")
	}
	head := fmt.Sprintf("%s: write %s, after the backup into %s\n", what, where, backupDir)
	q := fmt.Sprintf("apply these %d key changes to %s? [y/N] ", p.Keys, p.Root)
	eff := p.effects()
	if len(eff) == 0 {
		return head + q
	}
	first := make([]string, len(eff))
	for i, e := range eff {
		first[i] = e.String()
	}
	return fmt.Sprintf("%sfirst %s (outside etcd: the backup cannot bring them back), then %s", head, strings.Join(first, ", then "), q)
}

// savedNote is what the kit says of a saved plan whose effects outside
// etcd the file cannot carry.
func (p *Plan) savedNote(path, digest string) string {
	eff := p.effects()
	if len(eff) == 0 {
		return fmt.Sprintf("apply --file %s --expect-digest %s --run plans it again and applies it if heron plans the same ops then", path, digest)
	}
	what := make([]string, len(eff))
	for i, e := range eff {
		what[i] = e.String()
	}
	return fmt.Sprintf("it also would %s outside etcd, which a plan file cannot carry (it holds no credentials): apply --file refuses it; run %s with --run instead",
		strings.Join(what, " and "), p.Command)
}

// runEffects does the plan's effects outside etcd in order, each once,
// with its progress on stderr; the run's backup is published, no etcd key
// is written yet. The watchdog is held: it waits on etcd, which these
// calls do not reach. After each batch an effect reports done, the guards
// are read again: a component that registered meanwhile stops the effect
// there (its context is cancelled), so that it undoes no more under a
// running Milvus.
func runEffects(ctx context.Context, store Store, opt Options, pl *Plan, backup string) ([]EffectDone, error) {
	var done []EffectDone
	for _, e := range pl.effects() {
		release := hold(ctx)
		start := time.Now()
		prog := startProgressOf(opt.Progress, pl.Command+": "+e.Verb, e.Unit, e.Count, opt.ProgressInterval)
		d := EffectDone{EffectInfo: e.EffectInfo}
		ectx, stop := context.WithCancelCause(ctx)
		err := e.Run(ectx, func(n int64) {
			d.Done += n
			prog.add(int(n))
			var live *LiveError
			if gerr := checkGuards(ctx, store, opt.guards); errors.As(gerr, &live) {
				stop(live)
			}
		})
		var live *LiveError
		if cause := context.Cause(ectx); errors.As(cause, &live) {
			err = live
		}
		stop(nil)
		prog.finish(err == nil)
		release()
		d.Seconds = time.Since(start).Seconds()
		done = append(done, d)
		if err == nil && ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		if err != nil {
			if errors.Is(err, context.Canceled) {
				err = errors.New("interrupted")
			}
			return done, &EffectError{Command: pl.Command, Done: done, Backup: backup, Err: err}
		}
	}
	return done, nil
}
