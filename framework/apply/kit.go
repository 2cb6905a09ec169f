package apply

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heron-shell/heron/framework"
)

// The kit is the one path of every write command (see README.md beside this
// file): the command's build returns a complete Plan, a value; the kit
// renders it, refuses it, asks, publishes its staged backup, writes, and
// verifies, without calling back into the command.

// Build is a write command's plan function: it reads what it needs at one
// revision, gates it, scans through st, and returns the complete plan.
type Build[S, P any] func(ctx context.Context, s S, p *P, st *Stage) (*Plan, error)

// Guarded is the state value of a write command: an etcd Store that names
// the prefixes that must hold no leased key while the kit writes (a
// Milvus instance: its sessions). The kit reads them after the question
// and after the verify, and every transaction compares them: a command
// cannot leave them out.
type Guarded interface {
	Store
	Guards() []Guard
}

// Command binds a write command to its state value s (a Guarded etcd
// Store) and its plan function: params + plan + view, the kit does the rest.
func Command[S Guarded, P any](s S, build Build[S, P]) *framework.Command {
	return Tuned(s, build, nil)
}

// Tuned is Command with tune adjusting every run's options last (tests
// build their own options here: hooks, limits).
// It registers the command by name on s (registry.go: apply --file plans
// a saved plan again through it).
func Tuned[S Guarded, P any](s S, build Build[S, P], tune func(*Options)) *framework.Command {
	var cmd *framework.Command
	cmd = framework.WriteCommand(func(ctx context.Context, p *P, m framework.Mode, w framework.WriteIO) (framework.Result, error) {
		k := &kit[S, P]{store: s, build: build, tune: tune, p: p, m: m, w: w, name: cmd.Path()}
		// A plan read at a revision etcd compacted away before anything was
		// written is read again, once, at the current revision.
		return framework.RereadOnce(w.Stderr, func() (framework.Result, error) { return k.run(ctx) })
	})
	register(s, cmd, build)
	return cmd
}

type kit[S Guarded, P any] struct {
	store S
	build Build[S, P]
	tune  func(*Options)
	p     *P
	m     framework.Mode
	w     framework.WriteIO
	name  string // the command's path (Header.Planner)
}

func (k *kit[S, P]) options(command string) (Options, framework.WriteFlags, error) {
	var flags framework.WriteFlags
	if wf, ok := any(k.p).(interface{ WriteOptions() *framework.WriteFlags }); ok {
		flags = *wf.WriteOptions()
	}
	opt, err := fromEnv(Options{MaxTxnOps: flags.MaxTxnOps, Concurrency: flags.MaxInflight, MaxRequestBytes: flags.MaxRequestBytes, BackupDir: flags.BackupDir, Progress: k.w.Stderr, Label: command})
	if err != nil {
		return opt, flags, framework.Usagef("%s: %v", command, err)
	}
	if flags.MaxRequestBytes < 0 {
		return opt, flags, framework.Usagef("--max-request-bytes %d: not a size in bytes", flags.MaxRequestBytes)
	}
	opt.guards = k.store.Guards()
	if u, ok := any(k.store).(user); ok {
		opt.user = u.UserName()
	}
	if k.tune != nil {
		k.tune(&opt)
	}
	opt = opt.withDefaults()
	if n := guardCompares(opt.guards); opt.opsPerTxn() < 1 {
		return opt, flags, framework.Usagef("--max-txn-ops %d: every transaction also carries %d compares of the guards (%s): use --max-txn-ops %d or more", opt.MaxTxnOps, n, guardNames(opt.guards), n+1)
	}
	return opt, flags, nil
}

// plan runs build with a stage; dry: nothing staged, its scan's progress
// under label.
func (k *kit[S, P]) plan(ctx context.Context, opt Options, staging bool, label string) (*Plan, *Stage, error) {
	st := &Stage{opt: opt, label: label}
	if staging {
		st = &Stage{opt: opt, staging: true}
	}
	params, err := framework.RecordedFlags(k.p)
	if err != nil {
		return nil, nil, err
	}
	st.planner, st.params = k.name, params
	pl, err := k.build(ctx, k.store, k.p, st)
	if err == nil && pl == nil {
		err = errors.New("built no plan")
	}
	if err != nil {
		st.staged.Abort()
		return nil, nil, Cause(ctx, err)
	}
	return pl, st, nil
}

// planAgain builds the plan again for the verify, staging nothing: pl's
// Again when it names one, else the command's own build.
func (k *kit[S, P]) planAgain(ctx context.Context, opt Options, pl *Plan) (*Plan, error) {
	if pl.Again == nil {
		again, _, err := k.plan(ctx, opt, false, replanLabel)
		return again, err
	}
	again, err := pl.Again(ctx, &Stage{opt: opt, label: replanLabel})
	if err == nil && again == nil {
		err = errors.New("built no plan")
	}
	return again, Cause(ctx, err)
}

func (k *kit[S, P]) run(ctx context.Context) (framework.Result, error) {
	w := k.w
	opt, flags, err := k.options("")
	if err != nil {
		return nil, err
	}
	ctx, stop := WithStallTimeout(ctx, opt.StallTimeout)
	defer stop()
	if !k.m.Run && flags.PlanOut != "" {
		// The dry run stages its plan where --plan-out publishes it: a link
		// within one folder (not across filesystems, nor in a read-only
		// working folder).
		opt.BackupDir = filepath.Dir(flags.PlanOut)
	}
	pl, st, err := k.plan(ctx, opt, k.m.Run || flags.PlanOut != "", "scan")
	if err != nil {
		return nil, err
	}
	defer st.staged.Abort()
	defer st.release()
	if err := pl.checkEffects(); err != nil {
		return nil, err
	}
	if st.staged != nil {
		pl.commandLine = st.staged.bw.header.Command
		st.staged.opt.Label = pl.Command
		if got := st.staged.result().Keys; got != pl.Keys {
			return nil, fmt.Errorf("%s: the plan counted %d keys but staged %d: nothing was written; build the plan again", pl.Command, pl.Keys, got)
		}
		if ext := pl.effectInfos(); len(ext) > 0 {
			h := st.staged.bw.header
			h.External = ext
			st.staged.bw.setHeader(h)
		}
	}
	if st.staged != nil && !slices.ContainsFunc(pl.Gates, func(g framework.Gate) bool { return g.Name == RequestLimitName }) {
		// The kit's own count of the staged puts, for a command whose plan
		// does not gate them itself.
		if g, ok := st.staged.limit.Gate(); ok {
			pl.Gates = append(pl.Gates, g)
		}
	}
	refusal := pl.Refusal()
	if !k.m.Run || refusal != nil {
		if err := framework.Render(w.Stdout, pl.View, w.Format); err != nil {
			return nil, err
		}
		if refusal != nil {
			return nil, refusal
		}
		if flags.PlanOut != "" {
			digest, err := st.staged.saveAs(flags.PlanOut)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(w.Stderr, "plan saved: %s (%d keys, sha256 %s): %s\n", flags.PlanOut, pl.Keys, digest, pl.savedNote(flags.PlanOut, digest))
		}
		fmt.Fprintln(w.Stderr, "dry run: nothing was written; add --run to apply the plan")
		return pl.View, nil
	}
	out := &Outcome{plan: pl}
	res, external, err := k.commit(ctx, pl, st, flags)
	out.Applied, out.External = res, external
	if err == nil {
		vstart := time.Now()
		out.Verify, err = k.verify(ctx, opt, pl, st)
		if res != nil {
			res.VerifySeconds = time.Since(vstart).Seconds()
			res.Seconds += res.VerifySeconds
		}
		if v := out.Verify; v != nil && v.Running != "" && res != nil && res.Backup != "" {
			out.Stopped = stopped(st, res, nil)
			out.Stopped.Running = v.Running
		}
	} else if nothingWritten(res, err) {
		// The run changed no key: no STOPPED block, no split, no advice to
		// complete or roll back, and no backup of it to chain to or restore.
		err = k.unwritten(out, st, res, err)
	} else if res != nil && res.Backup != "" && !errors.Is(err, framework.ErrNotConfirmed) {
		out.Stopped = stopped(st, res, err)
	}
	if s := out.Stopped; s != nil && s.Running != "" {
		s.noteOverwritten(ctx, k.store, st.openBackup, st.staged)
	}
	switch {
	case errors.Is(err, framework.ErrNotConfirmed):
		fmt.Fprintln(w.Stderr, "nothing was written")
		return nil, nil
	case err != nil && (res == nil || framework.IsStaleRead(err)):
		return nil, err
	}
	if rerr := framework.Render(w.Stdout, out, w.Format); rerr != nil && err == nil {
		err = rerr
	}
	return out, err
}

// commit asks, publishes the staged backup, does the plan's effects
// outside etcd and writes its ops. It returns nil (and no backup) when
// there was nothing to write.
func (k *kit[S, P]) commit(ctx context.Context, pl *Plan, st *Stage, flags framework.WriteFlags) (*Result, []EffectDone, error) {
	w, staged := k.w, st.staged
	if staged == nil {
		return nil, nil, fmt.Errorf("%s: the plan staged no ops", pl.Command)
	}
	if pl.Keys == 0 {
		return nil, nil, nil
	}
	if err := staged.checkLimits(ctx, k.store); err != nil {
		return nil, nil, err
	}
	if err := staged.probe.run(ctx, k.store); err != nil {
		return nil, nil, Cause(ctx, err)
	}
	release := hold(ctx)
	ok, err := w.ApproveQuestion(ctx, pl.View, pl.question(staged.opt.Header, absPath(filepath.Dir(staged.opt.BackupPath))))
	release()
	if err == nil && !ok {
		err = framework.ErrNotConfirmed
	}
	if err != nil {
		return nil, nil, err
	}
	if err := checkGuards(ctx, k.store, staged.opt.guards); err != nil {
		return nil, nil, framework.Refusedf("%s refused after the question, nothing was written: %v", pl.Command, err)
	}
	if pl.SplitState {
		h := staged.bw.header
		chainHeader(staged.opt.BackupDir, &h, chainCommand(h, pl.Command), pl.Continues)
		staged.bw.setHeader(h)
	}
	published := staged.bw.header
	derive, err := ruleFor(published)
	if err != nil {
		return nil, nil, err
	}
	failed := func(res *Result, err error) (*Result, []EffectDone, error) {
		if gone := noteBackupGone(res, w.Stderr); gone != "" {
			err = fmt.Errorf("%w (%s)", err, gone)
		} else if res != nil && res.Backup != "" && !nothingWritten(res, err) && !movedOn(err) {
			err = fmt.Errorf("%w (%s)", err, rollback(res.Backup, published))
		}
		return res, nil, err
	}
	// The steps of a run, in order: publish the backup, the effects
	// outside etcd, the writes.
	res, err := staged.publish()
	if err != nil {
		return failed(res, err)
	}
	// The published backup stays open until the verify has read it back,
	// so that a backup deleted during the run is still read.
	held, err := os.Open(res.Backup)
	if err != nil {
		return failed(res, fmt.Errorf("backup: %w", err))
	}
	st.held = held
	fmt.Fprintf(w.Stderr, "backup: %s (%d keys, synced)\n", res.Backup, pl.Keys)
	if published.SplitState {
		fmt.Fprintf(w.Stderr, "%s\n", chainNote(published))
	}
	if flags.PlanOut != "" {
		if err := copyFile(res.Backup, flags.PlanOut); err != nil {
			return failed(res, &InterruptedError{Err: err, Total: res.Keys})
		}
		fmt.Fprintf(w.Stderr, "plan saved: %s\n", flags.PlanOut)
	}
	if err := staged.afterBackup(res); err != nil {
		return failed(res, err)
	}
	if len(pl.effects()) > 0 {
		// No backup brings the effects back: a component that registered
		// since the question (while the backup was published) stops the
		// run right before them, nothing done.
		if err := checkGuards(ctx, k.store, staged.opt.guards); err != nil {
			return failed(res, &unstartedError{err})
		}
	}
	external, err := runEffects(ctx, k.store, staged.opt, pl, res.Backup)
	if err != nil {
		return nil, external, err
	}
	res, err = staged.write(ctx, k.store, replay(staged.opt.BackupPath, derive), res)
	if err != nil {
		res, _, err = failed(res, err)
	} else {
		noteBackupGone(res, w.Stderr)
	}
	return res, external, err
}

// runningIn names the Milvus component a stopped run's error found live
// ("": none).
func runningIn(err error) string {
	var live *LiveError
	var ce *ConflictError
	switch {
	case errors.As(err, &live):
		return live.Running()
	case errors.As(err, &ce):
		return ce.Running
	}
	return ""
}

// nothingWritten: the run stopped after its backup was published and
// before any key was written, for certain (a compare that failed, a
// transaction etcd refused unapplied, a limit, a live key under a guard
// that failed the first transaction); a transaction whose outcome is
// unknown is not certain.
func nothingWritten(res *Result, err error) bool {
	if err == nil || res == nil || res.Backup == "" || res.Written != 0 {
		return false
	}
	var ce *ConflictError
	var re *RefusedTxnError
	var le *LimitError
	var live *LiveError
	var us *unstartedError
	switch {
	case errors.As(err, &us):
		return true
	case errors.As(err, &re):
		return !re.Applied
	case errors.As(err, &ce), errors.As(err, &le), errors.As(err, &live):
		return true
	}
	return false
}

// unstartedError stops a run after its backup was published and before
// its first write (and its effects, or after them for an interrupt before
// the first transaction was sent): nothing was written to etcd, for
// certain. A live component is a refusal (exit 3).
type unstartedError struct{ err error }

func (e *unstartedError) Error() string { return e.err.Error() }
func (e *unstartedError) Unwrap() error { return e.err }

// unwritten ends a run that wrote nothing: its backup holds no change of
// this run (restoring it, or chaining a later run to it, would undo
// whatever else wrote since), so it is removed; the outcome says nothing was
// written and why. A compare that failed is a refusal (exit 3): another
// writer moved the instance on since the plan.
func (k *kit[S, P]) unwritten(out *Outcome, st *Stage, res *Result, err error) error {
	out.Unwritten = framework.EscapeText(err.Error())
	if rerr := os.Remove(res.Backup); rerr == nil {
		fmt.Fprintf(k.w.Stderr, "backup: %s removed: this run changed no key\n", res.Backup)
		res.Backup, res.BackupDeleted = "", false
	}
	what := "nothing was written"
	if len(out.External) > 0 {
		what = "nothing was written to etcd (its effects outside etcd were done)"
	}
	var ce *ConflictError
	var live *LiveError
	var us *unstartedError
	if errors.As(err, &ce) || (errors.As(err, &us) && errors.As(err, &live)) {
		return framework.Refusedf("%s: %s: %w", out.plan.Command, what, err)
	}
	return fmt.Errorf("%s: %s: %w", out.plan.Command, what, err)
}

// movedOn: the run stopped on a key another writer changed since the plan,
// with no Milvus component found live: the instance moved on through
// another run (heron's or anyone's).
func movedOn(err error) bool {
	var ce *ConflictError
	return errors.As(err, &ce) && ce.Running == ""
}

// stopped is what a run that stopped after its backup was published says
// first: what it wrote, that the instance is split, and the two ways out;
// for an instance that moved on through another run, no way out: it names
// what to read first.
func stopped(st *Stage, res *Result, err error) *Stopped {
	h := st.staged.bw.header
	s := &Stopped{Written: res.Written, Total: res.Keys, Running: runningIn(err)}
	if movedOn(err) {
		var ce *ConflictError
		errors.As(err, &ce)
		s.MovedOn = fmt.Sprintf("%s was changed by another writer since the plan read it at revision %d (mod revision %d, now %d)", keyText(ce.Key), ce.Revision, ce.Read, ce.Now)
		s.Again = checkAgain(h.Command)
		return s
	}
	s.Complete = completeCommand(h.Command, st.staged.opt.BackupDir)
	chain := []string{res.Backup}
	if h.Continues != "" {
		rest, _ := BackupChain(h.Continues)
		chain = append(chain, rest...)
	}
	s.RollBack = restoreOrder(chain)
	return s
}

// completeCommand is the command line that completes a stopped run: the
// run's own, with --run (a header's command may carry only the plan's
// flags: a repair's does), and with its --backup-dir, where the
// completing run finds this run's backup to chain to (and not the working
// folder, lost with a pod).
func completeCommand(command, dir string) string {
	if !slices.Contains(strings.Fields(command), "--run") {
		command += " --run"
	}
	if dir == "" {
		return command
	}
	return command + " --backup-dir " + framework.QuoteWord(dir)
}
