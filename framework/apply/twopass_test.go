package apply

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// twoPass is what Apply adds to Options: Total, the count pass 1 must
// find; Replay, pass 2 rebuilt from the backup file; Check, a refusal after
// pass 1; Amend, the header completed after pass 1; Approve, the question;
// SkipEmpty, no backup for an empty plan.
type twoPass struct {
	Total     int64
	Replay    func(e Entry) (Op, error)
	Check     func() error
	Amend     func(h *Header) error
	Approve   func(ops int64) error
	SkipEmpty bool
}

// The tests drive the staging and the writer through Apply, the two-pass
// form of the kit without a command: pass 1 stages src into the backup,
// pass 2 writes src again (or tp.Replay over the backup file).

// Apply backs up and applies the ops of src (see the package doc). It returns
// what it did, also on error (then Written tells how far it got). Errors:
// the backup could not be written (nothing written to etcd); the source
// yielded other ops on the second pass than on the first; a *ConflictError; an
// *InterruptedError; a *StallError cause when etcd stopped answering.
func Apply(ctx context.Context, store Store, src Source, opt Options, more ...twoPass) (*Result, error) {
	var tp twoPass
	if len(more) > 0 {
		tp = more[0]
	}
	opt = opt.withDefaults()
	if !watched(ctx) {
		var stop func()
		ctx, stop = WithStallTimeout(ctx, opt.StallTimeout)
		defer stop()
	}
	// Pass 1: the backup.
	st, err := newStaged(opt, opt.Label+": backup", false)
	if err != nil {
		return &Result{}, err
	}
	st.ctx = ctx
	err = src(ctx, st.add)
	if err == nil {
		err = st.close()
	}
	res := st.result()
	if err == nil && tp.Total > 0 && res.Keys != tp.Total {
		err = fmt.Errorf("the plan counted %d keys but reading them again at revision %d gave %d: nothing was written; build the plan again", tp.Total, opt.Header.Revision, res.Keys)
	}
	if err != nil {
		st.Abort()
		return res, Cause(ctx, backupErr(err))
	}
	if tp.Check != nil {
		if err := tp.Check(); err != nil {
			st.Abort()
			return res, err
		}
	}
	if res.Keys == 0 && tp.SkipEmpty {
		st.Abort()
		res.Seconds = time.Since(st.start).Seconds()
		return res, nil
	}
	if tp.Amend != nil {
		h := st.bw.header
		if err := tp.Amend(&h); err != nil {
			st.Abort()
			return res, err
		}
		st.bw.setHeader(h)
	}
	if err := st.checkLimits(ctx, store); err != nil {
		st.Abort()
		return res, err
	}
	if tp.Approve != nil {
		if err := tp.Approve(res.Keys); err != nil {
			st.Abort()
			return res, err
		}
	}
	src2 := src
	if tp.Replay != nil {
		src2 = replay(opt.BackupPath, tp.Replay)
	}
	return st.commit(ctx, store, src2)
}

// backupErr prefixes a pass-1 error with "backup: " unless it has it already
// (the backup writer's own errors do).
func backupErr(err error) error {
	if strings.HasPrefix(err.Error(), "backup") {
		return err
	}
	return fmt.Errorf("backup: %w", err)
}

// watched reports whether ctx has a watchdog already (Run's, for Apply).
func watched(ctx context.Context) bool {
	_, ok := ctx.Value(watchdogKey{}).(*watchdog)
	return ok
}

// Slice is a Source over a fixed slice of ops (tests, tiny plans).
func Slice(ops []Op) Source {
	return func(ctx context.Context, yield func(Op) error) error {
		for _, op := range ops {
			if err := yield(op); err != nil {
				return err
			}
		}
		return nil
	}
}

// commit is the kit's commit without the question and the effects:
// publish the backup (its AfterBackup hook), then pass 2.
func (st *Staged) commit(ctx context.Context, store Store, src2 Source) (*Result, error) {
	res, err := st.publish()
	if err != nil {
		return res, err
	}
	if err := st.afterBackup(res); err != nil {
		return res, err
	}
	return st.write(ctx, store, src2, res)
}
