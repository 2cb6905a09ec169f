package chaos

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
)

// The invariants, by the names violations carry.
const (
	RuleOutsideRoot  = "outside-root"    // no key outside the instance's root changed
	RulePerKey       = "per-key"         // every key holds its bytes from before or the fresh plan's
	RuleRefused      = "refused"         // a refused plan writes nothing
	RuleNothing      = "nothing-written" // "nothing was written" is true
	RuleExitZero     = "exit-0"          // exit 0: the fresh plan's state, whole, and verify: ok
	RuleSession      = "session"         // no transaction commits after a component registered
	RuleLostWrite    = "lost-write"      // a concurrent writer's change is never overwritten
	RuleConverges    = "converges"       // the command a stopped run printed, run as printed, converges
	RuleBackupChain  = "backup-chain"    // the step's backups, restored newest first, give the state before
	RuleNoBackup     = "no-backup"       // nothing is written without a published backup
	RuleRestoreChain = "restore-chain"   // restore --run of every backup, newest first, gives the seeded instance back
	RuleFaultFree    = "fault-free"      // with no fault, a plan the dry run accepted runs to exit 0
)

// checkRun checks a step's run (before any recovery) against the state
// before it and its fresh plan.
func (r *runner) checkRun(n int, run heronRun, before state, after Dump, want expectation, in *injected) {
	now := after.Values()
	skip := in.skip
	// Per key: before's bytes or the plan's.
	var bad []string
	for k := range keysOf(before, now) {
		if skip(k) || !strings.HasPrefix(k, rootPath+"/") {
			continue
		}
		v, ok := now[k]
		b, okb := before[k]
		if ok == okb && bytes.Equal(v, b) {
			continue
		}
		w, okw := want.after[k]
		if ok == okw && bytes.Equal(v, w) {
			continue
		}
		bad = append(bad, k)
	}
	// Outside the root: nothing changes, whatever the plan says (the
	// instances here keep no legacy top-level woodpecker/ keys, the only
	// ones a command may write outside its root).
	for k := range keysOf(before, now) {
		if !skip(k) && !strings.HasPrefix(k, rootPath+"/") && changedKey(before, now, k) {
			r.violate(n, RuleOutsideRoot, "%s (outside %s/) changed: before %s, now %s", k, rootPath, describe(before, k), describe(now, k))
			break
		}
	}
	if len(bad) > 0 {
		r.violate(n, RulePerKey, "%d keys hold bytes neither from before nor from the fresh plan (%s), e.g. %s: before %s, planned %s, now %s",
			len(bad), run.summary(), bad[0], describe(before, bad[0]), describe(want.after, bad[0]), describe(now, bad[0]))
	}
	if run.fault == FaultNone && !want.refused && run.rc != 0 {
		r.violate(n, RuleFaultFree, "no fault, and the run failed: %s", run.summary())
	}
	if want.refused && changed(before, now, skip) {
		r.violate(n, RuleRefused, "the dry run refused, the run wrote (%s)", run.summary())
	}
	if run.wroteNothing() {
		if c, keys := diff(before, now, skip, 3); c > 0 {
			r.violate(n, RuleNothing, "the run said nothing was written, %d keys changed (%v; %s)", c, keys, run.summary())
		}
	}
	if run.rc == 0 && !want.refused {
		if c, keys := diff(want.after, now, skip, 3); c > 0 {
			r.violate(n, RuleExitZero, "exit 0, and %d keys are not what the fresh plan writes (%v)", c, keys)
		}
		if len(want.plan) > 0 && (run.doc.Verify == nil || !run.doc.Verify.OK) {
			r.violate(n, RuleExitZero, "exit 0 without verify: ok (%s)", run.summary())
		}
		if in.session != "" {
			r.violate(n, RuleExitZero, "exit 0 though a Milvus component registered during the run")
		}
		for k := range in.writes {
			if _, ok := want.plan[k]; ok {
				r.violate(n, RuleExitZero, "exit 0 though %s, which it plans, was changed by another writer during the run", k)
				break
			}
		}
	}
	if in.sessionRev > 0 {
		for k := range keysOf(before, now) {
			if skip(k) || !changedKey(before, now, k) {
				continue
			}
			if kv, ok := after.KVs[k]; ok && kv.ModRev > in.sessionRev {
				r.violate(n, RuleSession, "%s was written at revision %d, after a component registered at %d", k, kv.ModRev, in.sessionRev)
				break
			}
		}
	}
	for k, v := range in.writes {
		if !bytes.Equal(now[k], v) {
			r.violate(n, RuleLostWrite, "another writer's change to %s was overwritten: now %s (%s)", k, describe(now, k), run.summary())
			break
		}
	}
}

func changedKey(a, b state, k string) bool {
	va, oka := a[k]
	vb, okb := b[k]
	return oka != okb || !bytes.Equal(va, vb)
}

// recover runs what heron prints for the instance a run left: the
// STOPPED block's command to complete it (or to roll it back); after a
// kill, which prints nothing, the same command again (an apply --file:
// what `show checkpoint --backup-dir` names for the split instance); after
// another writer moved the instance on (no way out advised), the dry run
// printed to read it first, then run. It checks that the instance
// converges.
func (r *runner) recover(ctx context.Context, n int, st Step, line string, run heronRun, before state, want expectation, in *injected) (state, error) {
	var cmds []string
	rollback := false
	switch s := run.doc.Stopped; {
	case s != nil && st.Rollback && s.RollBack != "":
		cmds, rollback = []string{s.RollBack}, true
	case s != nil && s.Complete != "":
		cmds = []string{s.Complete}
	case s != nil && len(s.Again) > 0:
		return r.reread(ctx, n, s.Again[0], in)
	case run.doc.Verify != nil && len(run.doc.Verify.Again) > 0:
		return r.reread(ctx, n, run.doc.Verify.Again[0], in)
	case st.Command != CmdApply:
		// Killed: "running the command again completes it".
		cmds = []string{line + " --run"}
	default:
		// A killed apply --file: its plan no longer matches the instance
		// (its own writes moved it on), so the same line is refused and
		// says to plan again; show checkpoint names the reset that
		// completes it and the restores that roll it back.
		show, err := runHeron(ctx, r.opt.Bins.Heron, r.work, r.c.Endpoints(), "show checkpoint --pchannels --format json --backup-dir "+r.backups)
		if err != nil {
			return nil, err
		}
		switch {
		case show.show.CompleteCommand != "" && st.Rollback && len(show.show.RollbackCommands) > 0:
			cmds, rollback = show.show.RollbackCommands, true
		case show.show.CompleteCommand != "":
			cmds = []string{show.show.CompleteCommand}
		default:
			cmds = []string{line + " --run"}
		}
	}
	var rec heronRun
	for _, cmd := range cmds {
		if !strings.Contains(cmd, "--backup-dir") {
			cmd += " --backup-dir " + r.backups
		}
		r.res.Recoveries++
		var err error
		if rec, err = runHeron(ctx, r.opt.Bins.Heron, r.work, r.c.Endpoints(), cmd+" --format json"); err != nil {
			return nil, err
		}
		if rec.rc != 0 {
			r.violate(n, RuleConverges, "`%s` (what heron printed after the run: %s) failed: %s", cmd, run.summary(), rec.summary())
			return r.dump(ctx)
		}
	}
	final, err := r.dump(ctx)
	if err != nil {
		return nil, err
	}
	goal, what := want.after, "the fresh plan's state"
	if rollback {
		goal, what = before, "the state before"
	}
	if c, keys := diff(goal, final, in.skip, 3); c > 0 {
		r.violate(n, RuleConverges, "after %v, %d keys are not %s (%v)", cmds, c, what, keys)
	}
	return final, nil
}

// reread runs line (a dry run printed by a run another writer stopped):
// its fresh plan, then the line with --run, checked against that plan.
func (r *runner) reread(ctx context.Context, n int, line string, in *injected) (state, error) {
	before, err := r.dump(ctx)
	if err != nil {
		return nil, err
	}
	want, err := r.expect(ctx, n, line, before)
	if err != nil || len(r.res.Violations) > 0 {
		return before, err
	}
	r.res.Recoveries++
	run, err := runHeron(ctx, r.opt.Bins.Heron, r.work, r.c.Endpoints(), line+" --run --format json --backup-dir "+r.backups)
	if err != nil {
		return nil, err
	}
	after, err := r.readDump(ctx)
	if err != nil {
		return nil, err
	}
	// The writer's keys are the instance's now: this run may rewrite
	// them; the session ended before.
	r.checkRun(n, run, before, after, want, &injected{})
	if run.rc != 0 && !want.refused {
		r.violate(n, RuleConverges, "`%s --run` (the dry run a stopped run printed, run) failed: %s", line, run.summary())
	}
	return after.Values(), nil
}

// checkPublished: a run that changed the instance published a backup
// (its own or a racer's) before it did, as seen right after it, before
// any recovery publishes one of its own.
func (r *runner) checkPublished(n int, had map[string]bool, before, now state, in *injected) {
	if !changed(before, now, in.skip) {
		return
	}
	files, _ := newFiles(r.backups, had)
	racers, _ := backupsIn(r.racerBackups(n))
	if len(files)+len(racers) == 0 {
		r.violate(n, RuleNoBackup, "the instance changed and no backup was published in %s", r.backups)
	}
}

// checkBackups: what the step wrote, its backups (and a racer's) undo,
// newest first, to the state before.
func (r *runner) checkBackups(n int, had map[string]bool, before, final state, in *injected) {
	if !changed(before, final, in.skip) {
		return
	}
	files, err := newFiles(r.backups, had)
	if err != nil {
		r.violate(n, RuleBackupChain, "%v", err)
		return
	}
	if racers, _ := backupsIn(r.racerBackups(n)); len(racers) > 0 {
		files = append(files, racers...)
		sortNewestFirst(files)
	}
	if len(files) == 0 {
		return // checkPublished reported it
	}
	s := final
	for _, f := range files {
		if s, err = undo(s, f.path); err != nil {
			r.violate(n, RuleBackupChain, "%s: %v", f.path, err)
			return
		}
	}
	if c, keys := diff(before, s, in.skip, 3); c > 0 {
		r.violate(n, RuleBackupChain, "the step's %d backups, undone newest first, leave %d keys unlike before (%v)", len(files), c, keys)
	}
}

// restoreAll restores every backup of the schedule with the release
// heron, newest first: the seeded instance must come back byte for byte.
func (r *runner) restoreAll(ctx context.Context) error {
	files, err := backupsIn(r.backups)
	if err != nil || len(files) == 0 {
		return err
	}
	scratch := filepath.Join(r.opt.Dir, "restore-backups")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		run, err := runHeron(ctx, r.opt.Bins.Heron, r.work, r.c.Endpoints(), "restore --file "+f.path+" --run --format json --backup-dir "+scratch)
		if err != nil {
			return err
		}
		switch {
		case run.rc == 3 && run.wroteNothing():
			// A gate refuses (a restore of a reset's backup while a
			// broadcast task a repair put back is in flight): by design,
			// and nothing was written (checkRun's rules hold for it too).
			r.res.EndCheck = "stopped: a gate refused restore --file " + f.path
			return nil
		case run.rc != 0:
			r.violate(0, RuleRestoreChain, "restore --file %s: %s", f.path, run.summary())
			return nil
		}
	}
	now, err := r.dump(ctx)
	if err != nil {
		return err
	}
	skip := func(k string) bool { return under(k, fillPrefix, stormPrefix) }
	if c, keys := diff(r.initial, now, skip, 3); c > 0 {
		r.violate(0, RuleRestoreChain, "after restoring all %d backups newest first, %d keys differ from the seeded instance (%v)", len(files), c, keys)
	}
	return nil
}
