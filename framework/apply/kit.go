package apply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/heron-shell/heron/framework"
)

// The kit is the one path of every write command (see README.md beside this
// file): the command's build returns a complete Plan, a value; the kit
// renders it, refuses it, asks, publishes its staged backup, writes, and
// verifies, without calling back into the command.

// Plan is a write command's complete plan: every gate with its verdict, the
// view that renders it (summary, gates, warnings once each), and its ops,
// staged through the Stage the kit handed to build.
type Plan struct {
	// Command names the command in messages ("reset checkpoint").
	Command string
	// Title heads the run's result ("reset checkpoint to kafka").
	Title string
	// View renders the whole plan in every format; the kit shows it before
	// the question and on a refusal, with and without --run alike.
	View framework.Result
	// Gates are every gate of the plan, context and scan alike: one failed
	// gate refuses it (exit 3).
	Gates []framework.Gate
	// Keys is the number of keys the plan writes or deletes.
	Keys int64
	// Root is the root path named in the question before the first write.
	Root string
	// SplitState: the plan found a split state (an interrupted run left
	// it), so its backup continues an earlier one (Header.Continues).
	SplitState bool
	// Put is how the result names a put ("rewritten", "put back").
	Put string
	// Nothing is the result's line when there is nothing to write.
	Nothing string
	// Reminders close a verified run.
	Reminders []string
	// After are the checks read once the keys read back (restore's
	// split-state check, named by its backup's header).
	After []Check
	// Guards are read again after the question and watched while the kit
	// writes and verifies.
	Guards []Guard
	// External are the plan's effects outside etcd (external.go): named in
	// the question, run once after the backup is published and before the
	// first etcd write. A saved plan records them; apply --file refuses it.
	External []Effect
	// Replan, when set, is what planning again after the run finds, proven
	// by the command during its scan; the verify uses it instead of a
	// re-plan when the run's own revisions prove nothing else wrote (nil:
	// the verify always plans again).
	Replan *Replan
}

// Replan is a command's proof of what its re-plan after a run finds,
// without reading its keys again. A re-plan at the verify's revision R
// reads the context, then decides every key of the command's scan. When
// the run's own revisions prove that etcd at R holds the plan's revision
// plus exactly the run's ops (Verify.ReadBack "proven by revisions"),
// every key holds either its plan value (a key the plan kept) or its
// staged new value, or is absent (deleted): so the re-plan's answer is
// known from the scan, provided the context read at R decides each key as
// the plan's did. The command checks the new values during its scan
// (Unsettled) and the context at R (Same); either failing its part, the
// kit plans again as before.
type Replan struct {
	// Unsettled counts the staged puts whose new value the plan's own
	// decision would rewrite again (a planner that does not converge).
	Unsettled int64
	// Same reports whether a plan at rev (the verify's revision) decides
	// every key as the plan did (keys it kept stay kept, its new values
	// stay settled) and scans no key the plan did not scan, reading at rev
	// what of the command's context the run may have changed. false: the
	// kit plans again.
	Same func(ctx context.Context, rev int64) (bool, error)
}

// Refusal is nil when every gate passed: the one place a plan is refused.
func (p *Plan) Refusal() error { return framework.Refusal(p.Command, p.Gates) }

// Check is a read after the verify: a note (verify passes, with the note
// instead of "ok") or an error (verify fails).
type Check struct {
	Name string
	Run  func(ctx context.Context) (note string, err error)
}

// Scan is a command's scan: it decides every key at the plan's revision,
// in write order, and yields each op (yield is nil when nothing is staged,
// a dry run: the scan then builds no op, it only decides).
type Scan func(ctx context.Context, yield func(Op) error) error

// Stage is where a plan's ops go: the kit makes it and hands it to build.
// On a dry run it stages nothing; with --run or --plan-out its ops go into
// a temporary backup file (the old values; the new ones in the file, or
// derived again by the header's Rule), which the kit publishes on commit.
type Stage struct {
	opt     Options
	staging bool
	staged  *Staged
	path    string // the plan file a Load staged from
	label   string // the progress label of a scan that stages nothing
	// held is the published backup, open until the verify has read it back
	// (a backup deleted during the run is still read back, and reported).
	held *os.File
}

// openBackup reads the published backup from its start.
func (s *Stage) openBackup() (*BackupReader, error) {
	if s.held != nil {
		return reopen(s.staged.opt.BackupPath, s.held)
	}
	return OpenBackup(s.staged.opt.BackupPath)
}

// release closes the held backup.
func (s *Stage) release() {
	if s.held != nil {
		_ = s.held.Close()
		s.held = nil
	}
}

// Scan runs scan once with the header of the backup the run publishes
// (name goes into the backup's file name).
func (s *Stage) Scan(ctx context.Context, h Header, name string, scan Scan) error {
	if s.staged != nil {
		return errors.New("a plan staged its ops twice")
	}
	if !s.staging {
		// Nothing staged, nothing counted: the scan counts what it reads
		// (ReadCounter), shown once it takes longer than a progress interval.
		prog := startQuietProgress(s.opt.Progress, s.label, s.opt.ProgressInterval)
		err := scan(withReadCounter(ctx, prog.add), nil)
		prog.finish(err == nil)
		return err
	}
	opt := s.opt
	opt.Header = h
	opt.BackupPath = BackupPath(opt.BackupDir, h.RootPath, name, h.Revision, time.Now())
	st, err := newStaged(opt, "scan", h.Rule == "")
	if err != nil {
		return fmt.Errorf("%w; nothing was written: choose a writable folder with --backup-dir", err)
	}
	st.ctx = ctx
	s.staged = st
	if err := scan(ctx, st.add); err != nil {
		return err
	}
	return st.close()
}

// Load stages the entries of a saved plan file (--plan-out), checksum
// first, under a backup header that is the file's with command; yield sees
// each entry as it is staged. It returns the file's header.
func (s *Stage) Load(ctx context.Context, path, command string, each func(Entry, Op) error) (Header, error) {
	info, err := VerifyBackup(path, false, nil)
	if err != nil {
		return Header{}, err
	}
	h := info.Header
	derive, err := ruleFor(h)
	if err != nil {
		return h, err
	}
	nh := h
	nh.Command, nh.Created, nh.Continues, nh.OriginalBackup, nh.SplitState = command, time.Time{}, "", "", false
	s.path = path
	return h, s.Scan(ctx, nh, "apply", func(ctx context.Context, yield func(Op) error) error {
		br, err := OpenBackup(path)
		if err != nil {
			return err
		}
		defer br.Close()
		for {
			e, ok, err := br.Next()
			if err != nil || !ok {
				return err
			}
			op, err := derive(e)
			if err != nil {
				return fmt.Errorf("plan %s line %d: %w", path, e.Line, err)
			}
			if err := each(e, op); err != nil {
				return err
			}
			if yield != nil {
				if err := yield(op); err != nil {
					return err
				}
			}
		}
	})
}

// Rule derives the op of a staged entry again from its backed-up old value:
// a pure function of the backup header (its RuleParams), registered by name,
// so that a staged plan need not carry new values it can compute.
type Rule func(h Header) (func(Entry) (Op, error), error)

var (
	rulesMu sync.RWMutex
	rules   = map[string]Rule{}
)

// RegisterRule registers rule under name (a command's package does, in init).
func RegisterRule(name string, rule Rule) {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	rules[name] = rule
}

// ruleFor is the function that gives each entry of a file with header h its
// op: the header's rule, or the entry's own new value.
func ruleFor(h Header) (func(Entry) (Op, error), error) {
	if h.Rule == "" {
		return entryOp, nil
	}
	rulesMu.RLock()
	rule, ok := rules[h.Rule]
	rulesMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("the file names rule %q, which this heron does not know", h.Rule)
	}
	return rule(h)
}

// Derive is the function that gives each entry of a backup with header h
// the op its command wrote (its new value: in the entry, or derived again by
// the header's Rule): what restore compares a key with to see whether the
// instance moved on since.
func Derive(h Header) (func(Entry) (Op, error), error) { return ruleFor(h) }

// entryOp is the op of an entry that carries its new value.
func entryOp(e Entry) (Op, error) {
	op := Op{Key: e.Key, ModRevision: e.ModRevision, Delete: e.Delete, Phase: e.Phase}
	if !e.Absent {
		op.Original = e.Value
	}
	if !e.Delete {
		if !e.HasNew {
			return Op{}, fmt.Errorf("entry %s has no new value", e.Key)
		}
		op.Value = e.New
	}
	return op, nil
}

// Build is a write command's plan function: it reads what it needs at one
// revision, gates it, scans through st, and returns the complete plan.
type Build[S, P any] func(ctx context.Context, s S, p *P, st *Stage) (*Plan, error)

// Command binds a write command to its state value s (an etcd Store) and
// its plan function: params + plan + view, the kit does the rest.
func Command[S Store, P any](s S, build Build[S, P]) *framework.Command {
	return Tuned(s, build, nil)
}

// Tuned is Command with tune adjusting every run's options last (tests
// build their own options here: hooks, limits).
func Tuned[S Store, P any](s S, build Build[S, P], tune func(*Options)) *framework.Command {
	return framework.WriteCommand(func(ctx context.Context, p *P, m framework.Mode, w framework.WriteIO) (framework.Result, error) {
		k := &kit[S, P]{store: s, build: build, tune: tune, p: p, m: m, w: w}
		// A plan read at a revision etcd compacted away before anything was
		// written is read again, once, at the current revision.
		return framework.RereadOnce(w.Stderr, func() (framework.Result, error) { return k.run(ctx) })
	})
}

type kit[S Store, P any] struct {
	store S
	build Build[S, P]
	tune  func(*Options)
	p     *P
	m     framework.Mode
	w     framework.WriteIO
}

func (k *kit[S, P]) options(command string) (Options, framework.WriteFlags, error) {
	var flags framework.WriteFlags
	if wf, ok := any(k.p).(interface{ WriteOptions() *framework.WriteFlags }); ok {
		flags = *wf.WriteOptions()
	}
	opt, err := fromEnv(Options{MaxTxnOps: flags.MaxTxnOps, BackupDir: flags.BackupDir, Progress: k.w.Stderr, Label: command})
	if err != nil {
		return opt, flags, framework.Usagef("%s: %v", command, err)
	}
	if k.tune != nil {
		k.tune(&opt)
	}
	return opt.withDefaults(), flags, nil
}

// plan runs build with a stage; dry: nothing staged, its scan's progress
// under label.
func (k *kit[S, P]) plan(ctx context.Context, opt Options, staging bool, label string) (*Plan, *Stage, error) {
	st := &Stage{opt: opt, label: label}
	if staging {
		st = &Stage{opt: opt, staging: true}
	}
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

func (k *kit[S, P]) run(ctx context.Context) (framework.Result, error) {
	w := k.w
	opt, flags, err := k.options("")
	if err != nil {
		return nil, err
	}
	ctx, stop := WithStallTimeout(ctx, opt.StallTimeout)
	defer stop()
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
	refusal := pl.Refusal()
	if !k.m.Run || refusal != nil {
		if err := framework.Render(w.Stdout, pl.View, w.Format); err != nil {
			return nil, err
		}
		if refusal != nil {
			return nil, refusal
		}
		if flags.PlanOut != "" {
			if err := st.staged.saveAs(flags.PlanOut); err != nil {
				return nil, err
			}
			fmt.Fprintf(w.Stderr, "plan saved: %s (%d keys, checksummed): %s\n", flags.PlanOut, pl.Keys, pl.savedNote(flags.PlanOut))
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
			out.Stopped = stopped(st, res)
			out.Stopped.Running = v.Running
		}
	} else if res != nil && res.Backup != "" && !errors.Is(err, framework.ErrNotConfirmed) {
		out.Stopped = stopped(st, res)
		out.Stopped.Running = runningIn(err)
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
	ok, err := w.ApproveQuestion(ctx, pl.View, pl.question())
	release()
	if err == nil && !ok {
		err = framework.ErrNotConfirmed
	}
	if err != nil {
		return nil, nil, err
	}
	if err := checkGuards(ctx, k.store, pl.Guards); err != nil {
		return nil, nil, framework.Refusedf("%s refused after the question, nothing was written: %v", pl.Command, err)
	}
	staged.opt.guards = pl.Guards
	if pl.SplitState {
		h := staged.bw.header
		chainHeader(staged.opt.BackupDir, &h, pl.Command)
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
		} else if res != nil && res.Backup != "" {
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
	external, err := runEffects(ctx, staged.opt, pl, res.Backup)
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

// stopped is what a run that stopped after its backup was published says
// first: what it wrote, that the instance is split, and the two ways out.
func stopped(st *Stage, res *Result) *Stopped {
	h := st.staged.bw.header
	s := &Stopped{Written: res.Written, Total: res.Keys, Complete: completeCommand(h.Command, st.staged.opt.BackupDir)}
	chain := []string{res.Backup}
	if h.Continues != "" {
		rest, _ := BackupChain(h.Continues)
		chain = append(chain, rest...)
	}
	s.RollBack = restoreOrder(chain)
	return s
}

// completeCommand is the command line that completes a stopped run: the
// run's own, with its --backup-dir, where the completing run finds this
// run's backup to chain to (and not the working folder, lost with a pod).
func completeCommand(command, dir string) string {
	if dir == "" {
		return command
	}
	return command + " --backup-dir " + framework.QuoteWord(dir)
}

// verify checks every key of the published backup (each put holds the
// bytes staged, each delete is absent: proven by the run's own revisions
// when nothing else wrote, read back otherwise), plans again (nothing more
// to do), then runs the plan's After checks.
func (k *kit[S, P]) verify(ctx context.Context, opt Options, pl *Plan, st *Stage) (*Verify, error) {
	v, err := k.verifyWritten(ctx, opt, pl, st)
	return v, afterWrite(err)
}

func (k *kit[S, P]) verifyWritten(ctx context.Context, opt Options, pl *Plan, st *Stage) (*Verify, error) {
	v := &Verify{Failures: []string{}}
	var again int64
	var planned bool
	var readErr, planErr error
	if pl.Replan != nil && pl.Keys > 0 && st.path == "" {
		// The read-back first: proven by revisions, the command's own proof
		// of the re-plan stands in for it (Replan).
		if readErr = readBackPinned(ctx, k.store, st.openBackup, st.staged, v); readErr == nil && v.ReadBack == provenByRevisions {
			again, planned, planErr = replanProven(ctx, pl.Replan, v.Revision)
		}
		if readErr == nil && !planned && planErr == nil {
			again, planned, planErr = k.replanKeys(ctx, opt)
		}
	} else {
		// The read-back and the re-plan are independent reads: they run side
		// by side, so the verify costs about one scan.
		var wg sync.WaitGroup
		if pl.Keys > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				readErr = readBackPinned(ctx, k.store, st.openBackup, st.staged, v)
			}()
		}
		if st.path == "" {
			again, planned, planErr = k.replanKeys(ctx, opt)
		}
		wg.Wait()
	}
	if readErr != nil {
		return nil, Cause(ctx, fmt.Errorf("verify: %w", readErr))
	}
	if planErr != nil {
		return v, fmt.Errorf("verify: plan again: %w", planErr)
	}
	if planned {
		v.Replanned = again
		if again > 0 {
			v.fail("planned again, the command still finds %d keys to write", again)
		}
	}
	var live *LiveError
	switch err := checkGuards(ctx, k.store, pl.Guards); {
	case err == nil:
	case errors.As(err, &live):
		// A component live now is first among the problems: it is who wrote
		// over any key that does not read back.
		v.Running = live.Running()
		v.FailuresTotal++
		v.Failures = append([]string{err.Error()}, v.Failures...)[:min(len(v.Failures)+1, maxListedFailures)]
	default:
		v.fail("%v", err)
	}
	for _, c := range pl.After {
		note, err := c.Run(ctx)
		if err != nil {
			v.OK = false
			v.fail("%s", err)
			return v, fmt.Errorf("verify: %s", err)
		}
		v.Note = note
	}
	v.OK = v.FailuresTotal == 0
	if !v.OK && v.Running != "" {
		return v, fmt.Errorf("verify: %d problems after the run: a Milvus component is running: %s; stop it (every component), then re-run heron to complete; first: %s",
			v.FailuresTotal, v.Running, strings.Join(v.Failures[:min(3, len(v.Failures))], "; "))
	}
	if !v.OK {
		return v, fmt.Errorf("verify: %d problems after the run, first: %s", v.FailuresTotal, strings.Join(v.Failures[:min(3, len(v.Failures))], "; "))
	}
	return v, nil
}

// replanKeys builds the plan again at the current revision, again when
// etcd compacts the one it reads at (up to maxReadBacks times), and returns
// the keys it would write.
func (k *kit[S, P]) replanKeys(ctx context.Context, opt Options) (int64, bool, error) {
	for attempt := 1; ; attempt++ {
		again, _, err := k.plan(ctx, opt, false, "verify: planning again")
		if err == nil {
			return again.Keys, true, nil
		}
		if !framework.IsStaleRead(err) || attempt == maxReadBacks {
			return 0, false, err
		}
	}
}

// replanProven is the re-plan's answer from the command's proof r at rev,
// a revision the run's own revisions prove (planned false: the context at
// rev decides otherwise, or etcd compacted rev: the kit plans again).
func replanProven(ctx context.Context, r *Replan, rev int64) (int64, bool, error) {
	same, err := r.Same(ctx, rev)
	switch {
	case err != nil && framework.IsStaleRead(err):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case !same:
		return 0, false, nil
	}
	return r.Unsettled, true, nil
}

const maxListedFailures = 20

// Verify is the read-back after the writes.
type Verify struct {
	OK bool `json:"ok"`
	// Revision is the revision the keys were checked at.
	Revision int64 `json:"revision"`
	// Keys checked; Replanned is what planning again found to write.
	Keys int64 `json:"keys_checked"`
	// ReadBack is how the keys were checked: "proven by revisions" (every
	// revision since the plan's is one of the run's transactions, so each
	// key holds what its transaction wrote, nothing read), or "keys-only
	// read, N values compared" (something else wrote to etcd: mod revisions
	// read, values compared only where a key's is not its transaction's).
	ReadBack string `json:"read_back"`
	// ValuesCompared counts the values read back and compared.
	ValuesCompared int64    `json:"values_compared"`
	Replanned      int64    `json:"replanned_keys"`
	Failures       []string `json:"failures"`
	// FailuresTotal counts every failure (at most 20 are listed).
	FailuresTotal int64 `json:"failures_total"`
	// Note replaces "ok" when an After check found something to say.
	Note string `json:"note,omitempty"`
	// Running names the Milvus component live at the verify
	// (LiveError.Running): the verify fails, and the run is stopped.
	Running string `json:"running,omitempty"`
}

func (v *Verify) fail(format string, a ...any) {
	v.FailuresTotal++
	if len(v.Failures) < maxListedFailures {
		v.Failures = append(v.Failures, fmt.Sprintf(format, a...))
	}
}

// maxReadBacks is how many times verify reads the keys back when etcd
// compacts the revision it reads at.
const maxReadBacks = 3

// readBackPinned is readBack, read again from the start at the new current
// revision when etcd compacts the one it reads at (another writer and
// etcd's compactor): a compaction is no verdict on the keys.
func readBackPinned(ctx context.Context, store Store, open func() (*BackupReader, error), st *Staged, v *Verify) error {
	for attempt := 1; ; attempt++ {
		err := readBack(ctx, store, open, st, v)
		if err == nil || !IsCompacted(err) || attempt == maxReadBacks {
			return err
		}
		*v = Verify{Failures: []string{}}
	}
}

// saveAs publishes the staged ops under path (a dry run's --plan-out).
func (st *Staged) saveAs(path string) error {
	if st == nil {
		return errors.New("plan: nothing was staged")
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("plan: %s already exists", path)
	}
	st.bw.final = path
	if err := st.bw.Commit(); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	st.bw = nil
	return nil
}

// copyFile copies the published backup to path (--plan-out with --run).
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("plan: write %s: %w", to, err)
	}
	return out.Close()
}

// Outcome is what a write command's --run prints: the plan, what was
// applied (nil: nothing to write), the read-back (nil: not run), and for a
// run that stopped after its backup was published, how to go on.
type Outcome struct {
	plan    *Plan
	Applied *Result
	Verify  *Verify
	Stopped *Stopped
	// External are the plan's effects outside etcd the run did.
	External []EffectDone
}

// Stopped is a run that stopped part way: Written of Total keys are
// written, so the instance is split; Complete is the command that completes
// it, RollBack the restores that roll it back.
type Stopped struct {
	Written  int64  `json:"written"`
	Total    int64  `json:"total"`
	Complete string `json:"complete"`
	RollBack string `json:"roll_back"`
	// Running names the Milvus component found live when the run stopped
	// (LiveError.Running; "": none): it must be stopped before either way out.
	Running string `json:"running,omitempty"`
	// With a component running, the keys the run wrote are read back:
	// Overwritten counts those that no longer hold the run's bytes (the
	// component wrote over them), OverwrittenKeys names the first few;
	// OverwrittenUnread is why they could not be read ("": read).
	Overwritten       int64    `json:"overwritten,omitempty"`
	OverwrittenKeys   []string `json:"overwritten_keys,omitempty"`
	OverwrittenUnread string   `json:"overwritten_unread,omitempty"`
}

// overwrittenLine is what the STOPPED block says of the keys the run wrote
// that a running component wrote over ("": nothing read).
func (s *Stopped) overwrittenLine() string {
	switch {
	case s.Running == "":
		return ""
	case s.OverwrittenUnread != "":
		return "the keys the run wrote could not be read back: " + s.OverwrittenUnread
	case s.Overwritten == 0:
		return "every key the run wrote still holds its bytes"
	}
	keys := strings.Join(s.OverwrittenKeys, ", ")
	if s.Overwritten > int64(len(s.OverwrittenKeys)) {
		keys += ", ..."
	}
	noun, verb := "keys", "hold"
	if s.Overwritten == 1 {
		noun, verb = "key", "holds"
	}
	return fmt.Sprintf("%d %s the run wrote no longer %s its bytes (the running component wrote over them): %s", s.Overwritten, noun, verb, keys)
}

type outcomeJSON struct {
	Plan      any          `json:"plan"`
	Applied   *Result      `json:"applied"`
	Verify    *Verify      `json:"verify"`
	Stopped   *Stopped     `json:"stopped,omitempty"`
	Reminders []string     `json:"reminders"`
	External  []EffectDone `json:"external,omitempty"`
}

// JSON is the run document.
func (o *Outcome) JSON() any {
	return outcomeJSON{Plan: o.plan.View.JSON(), Applied: o.Applied, Verify: o.Verify, Stopped: o.Stopped, Reminders: o.reminders(), External: o.External}
}

// reminders are the plan's, once the run verified.
func (o *Outcome) reminders() []string {
	if o.Verify == nil || !o.Verify.OK {
		return []string{}
	}
	r := slices.Clone(o.plan.Reminders)
	if a := o.Applied; a != nil && a.Backup != "" && !a.BackupDeleted {
		r = append(r, fmt.Sprintf("keep the backup file: restore --file %s --run puts every key the run changed in etcd back as it was", a.Backup))
	}
	return r
}

// Table writes the run for people.
func (o *Outcome) Table(w io.Writer) error {
	var b strings.Builder
	pl := o.plan
	if s := o.Stopped; s != nil {
		if s.Running != "" && s.Written == s.Total {
			fmt.Fprintf(&b, "STOPPED: %d of %d keys written, then a Milvus component started: the instance may be split.\n", s.Written, s.Total)
		} else {
			fmt.Fprintf(&b, "STOPPED: %d of %d keys written: the instance is split, do not start Milvus.\n", s.Written, s.Total)
		}
		if s.Running != "" {
			fmt.Fprintf(&b, "  a Milvus component is running: %s: stop it (every component) first\n", framework.EscapeText(s.Running))
			fmt.Fprintf(&b, "  %s\n", framework.EscapeText(s.overwrittenLine()))
		}
		fmt.Fprintf(&b, "  to complete it:  %s\n", framework.EscapeText(s.Complete))
		fmt.Fprintf(&b, "  to roll it back: %s\n", framework.EscapeText(s.RollBack))
	}
	for _, d := range o.External {
		fmt.Fprintf(&b, "%s: outside etcd, %s in %.1fs (the backup cannot bring them back)\n", pl.Title, framework.EscapeText(d.String()), d.Seconds)
	}
	if a := o.Applied; a == nil {
		fmt.Fprintf(&b, "%s: %s\n", pl.Title, pl.Nothing)
	} else {
		fmt.Fprintf(&b, "%s: wrote %d of %d keys (%s) in %d transactions, %.1fs: scan %.1fs, backup %.1fs, write %.1fs (%.0f keys/s), verify %.1fs\n",
			pl.Title, a.Written, a.Keys, writtenParts(a.Puts, pl.Put, a.Deletes), a.Txns, a.Seconds, a.ScanSeconds, a.BackupSeconds, a.WriteSeconds,
			a.KeysPerSecond, a.VerifySeconds)
		if a.BackupDeleted {
			fmt.Fprintf(&b, "backup: %s DELETED during the run (with its folder or alone): nothing keeps the original values\n", a.Backup)
		} else {
			fmt.Fprintf(&b, "backup: %s\n", a.Backup)
		}
	}
	switch v := o.Verify; {
	case v == nil:
		fmt.Fprintf(&b, "verify: not run (the run stopped early)\n")
	case v.OK && v.Note != "":
		fmt.Fprintf(&b, "verify: %s\n", v.Note)
	case v.OK && v.ReadBack == provenByRevisions:
		fmt.Fprintf(&b, "verify: ok, the %d keys written hold the planned bytes, proven by the run's own revisions (nothing else wrote up to revision %d), and planning again finds nothing to write\n", v.Keys, v.Revision)
	case v.OK:
		fmt.Fprintf(&b, "verify: ok, the %d keys written read back at revision %d hold the planned bytes (%s), and planning again finds nothing to write\n", v.Keys, v.Revision, v.ReadBack)
	default:
		fmt.Fprintf(&b, "verify: FAILED, %d problems:\n", v.FailuresTotal)
		for _, f := range v.Failures {
			fmt.Fprintf(&b, "  %s\n", framework.EscapeText(f))
		}
	}
	for _, r := range o.reminders() {
		fmt.Fprintf(&b, "reminder: %s\n", r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Lines writes the run as key=value records.
func (o *Outcome) Lines(w io.Writer) error {
	kv := []any{"run", o.plan.Command}
	if a := o.Applied; a != nil {
		kv = append(kv, "backup", a.Backup, "backup_deleted", a.BackupDeleted, "keys", a.Keys, "written", a.Written, "puts", a.Puts, "deletes", a.Deletes,
			"txns", a.Txns, "seconds", fmt.Sprintf("%.3f", a.Seconds))
	} else {
		kv = append(kv, "keys", 0)
	}
	if err := framework.WriteLine(w, kv...); err != nil {
		return err
	}
	for _, d := range o.External {
		if err := framework.WriteLine(w, "external", d.Verb, "done", d.Done, "count", d.Count, "unit", d.Unit, "bytes", d.Bytes,
			"where", d.Where, "seconds", fmt.Sprintf("%.3f", d.Seconds)); err != nil {
			return err
		}
	}
	if s := o.Stopped; s != nil {
		if err := framework.WriteLine(w, "stopped", true, "written", s.Written, "total", s.Total, "complete", s.Complete, "roll_back", s.RollBack, "running", s.Running,
			"overwritten", s.Overwritten, "overwritten_keys", strings.Join(s.OverwrittenKeys, ","), "overwritten_unread", s.OverwrittenUnread); err != nil {
			return err
		}
	}
	if v := o.Verify; v != nil {
		if err := framework.WriteLine(w, "verify", v.OK, "revision", v.Revision, "keys", v.Keys, "read_back", v.ReadBack, "values_compared", v.ValuesCompared, "replanned", v.Replanned,
			"failures", v.FailuresTotal, "note", v.Note); err != nil {
			return err
		}
		for _, f := range v.Failures {
			if err := framework.WriteLine(w, "failure", f); err != nil {
				return err
			}
		}
	}
	for _, r := range o.reminders() {
		if err := framework.WriteLine(w, "reminder", r); err != nil {
			return err
		}
	}
	return nil
}

// DryStage is a stage that stages nothing: a plan built with it is a dry
// run (a re-plan, a test).
func DryStage() *Stage { return &Stage{} }

// Guard is a prefix that must hold no key with a lease while the kit
// writes (Milvus's sessions: a live component writes metadata at any
// time). The kit reads it again after the question, before the first
// write, before each transaction (one small read) and after the verify: a
// live key stops the run between transactions, naming it, and fails the
// verify. A transaction whose compare fails reads it too, to name who
// changed the key.
type Guard struct {
	Name   string
	Prefix string
	// Except are keys under Prefix that hold no session (a counter).
	Except []string
	// Role names what a live key belongs to ("datacoord"), from its key and
	// value; nil: the key alone names it.
	Role func(key string, value []byte) string
}

// LiveError is a guard that found a live key.
type LiveError struct {
	Guard string
	Key   string
	Role  string
	Lease int64
}

// Running names the live component: "KEY (ROLE, lease N)", the lease in
// hex as etcdctl prints it.
func (e *LiveError) Running() string {
	if e.Role == "" {
		return fmt.Sprintf("%s (lease %s)", e.Key, framework.LeaseID(e.Lease))
	}
	return fmt.Sprintf("%s (%s, lease %s)", e.Key, e.Role, framework.LeaseID(e.Lease))
}

func (e *LiveError) Error() string {
	return fmt.Sprintf("%s: a Milvus component is running: %s; stop it (every component) before going on", e.Guard, e.Running())
}

// checkGuards reads every guard now: a live key is a *LiveError.
func checkGuards(ctx context.Context, store Store, guards []Guard) error {
	for _, g := range guards {
		resp, err := readGuard(ctx, store, g.Prefix)
		if err != nil {
			return fmt.Errorf("cannot check %q: read %s: %w", g.Name, g.Prefix, err)
		}
		for _, r := range resp.Responses {
			for _, kv := range r.GetResponseRange().GetKvs() {
				if kv.Lease != 0 && !slices.Contains(g.Except, string(kv.Key)) {
					live := &LiveError{Guard: g.Name, Key: string(kv.Key), Lease: kv.Lease}
					if g.Role != nil {
						live.Role = g.Role(live.Key, kv.Value)
					}
					return live
				}
			}
		}
	}
	return nil
}

// readGuard reads a guarded prefix. etcd's client retries no transaction,
// not even a read-only one, and a member killed in a cluster answers "leader
// changed" or drops the connection for a moment: such a read is tried again
// (guardReadAttempts in all) before the run stops on it.
func readGuard(ctx context.Context, store Store, prefix string) (*clientv3.TxnResponse, error) {
	for attempt := 1; ; attempt++ {
		resp, err := store.Txn(ctx).Then(clientv3.OpGet(prefix, clientv3.WithPrefix())).Commit()
		if err == nil || attempt == guardReadAttempts || !transientRead(err) {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(time.Duration(attempt) * guardReadBackoff):
		}
	}
}

const (
	guardReadAttempts = 4
	guardReadBackoff  = 250 * time.Millisecond
)

// transientRead is an error a read may not meet when tried again: the
// cluster is electing a leader, or the member the client used went away.
func transientRead(err error) bool {
	switch {
	case errors.Is(err, rpctypes.ErrLeaderChanged), errors.Is(err, rpctypes.ErrNoLeader),
		errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail), errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost):
		return true
	}
	return status.Code(err) == codes.Unavailable
}

// runningNow names the live component the guards find now ("": none, or
// the read failed): what a failed compare or verify says changed the keys.
func runningNow(ctx context.Context, store Store, guards []Guard) string {
	var live *LiveError
	if errors.As(checkGuards(ctx, store, guards), &live) {
		return live.Running()
	}
	return ""
}

// writtenParts is "15 rewritten, 3 deleted", leaving out a part of 0.
func writtenParts(puts int64, put string, deletes int64) string {
	var parts []string
	if puts > 0 || deletes == 0 {
		parts = append(parts, fmt.Sprintf("%d %s", puts, put))
	}
	if deletes > 0 {
		parts = append(parts, fmt.Sprintf("%d deleted", deletes))
	}
	return strings.Join(parts, ", ")
}
