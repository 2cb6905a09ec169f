package apply

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// provenByRevisions is Verify.ReadBack when the run's own revisions prove
// the read-back.
const provenByRevisions = "proven by revisions"

// readBack checks every key of the published backup of st. etcd's
// revision is global and each transaction that writes moves it by one, and
// the writer sent only transactions carrying exactly the staged bytes
// (checkRequest): when the run's transactions hold every revision from the
// plan's onward up to now, nothing else wrote, and every key holds what its
// transaction wrote, with no read. Otherwise it reads the keys' mod
// revisions, and the values of only the keys whose mod revision is not the
// one their transaction gave them.
func readBack(ctx context.Context, store Store, open func() (*BackupReader, error), st *Staged, v *Verify) error {
	br, err := open()
	if err != nil {
		return err
	}
	defer br.Close()
	resp, err := store.Txn(ctx).Then(clientv3.OpGet("\x00", clientv3.WithCountOnly())).Commit()
	if err != nil {
		return err
	}
	v.Revision = resp.Header.Revision
	if onlyOwnRevisions(br.Header.Revision, st.revs, v.Revision) {
		v.Keys, v.ReadBack = st.result().Keys, provenByRevisions
		return nil
	}
	if st.opt.Pause != nil {
		st.opt.Pause(PauseReadBack)
	}
	derive, err := ruleFor(br.Header)
	if err != nil {
		return err
	}
	// The writer's batcher again, so each op meets its transaction's number.
	b := newBatcher(st.opt, st.seed, func(bt *batch) error {
		var rev int64
		if bt.seq < len(st.revs) {
			rev = st.revs[bt.seq]
		}
		return readBatch(ctx, store, bt.ops, rev, v)
	})
	if err := eachOp(ctx, br, derive, b.add); err != nil {
		return err
	}
	if err := b.flush(); err != nil {
		return err
	}
	v.ReadBack = fmt.Sprintf("keys-only read, %d values compared", v.ValuesCompared)
	return nil
}

// onlyOwnRevisions: revs (the run's transactions) are exactly the
// revisions plan+1 .. now.
func onlyOwnRevisions(plan int64, revs []int64, now int64) bool {
	if len(revs) == 0 || now != plan+int64(len(revs)) {
		return false
	}
	sorted := slices.Sorted(slices.Values(revs))
	for i, r := range sorted {
		if r != plan+1+int64(i) {
			return false
		}
	}
	return true
}

// readBatch checks the ops of one transaction, committed at rev, at
// v.Revision: keys only, then the values of the keys written since.
func readBatch(ctx context.Context, store Store, ops []Op, rev int64, v *Verify) error {
	gets := make([]clientv3.Op, len(ops))
	for i, op := range ops {
		gets[i] = clientv3.OpGet(op.Key, clientv3.WithRev(v.Revision), clientv3.WithKeysOnly())
	}
	resp, err := store.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return err
	}
	var since []int
	for i, r := range resp.Responses {
		op := ops[i]
		v.Keys++
		kvs := r.GetResponseRange().GetKvs()
		switch {
		case op.Delete && len(kvs) > 0:
			v.fail("%s: deleted by the run, but present (written again at revision %d)", op.Key, kvs[0].ModRevision)
		case op.Delete:
		case len(kvs) == 0:
			v.fail("%s: written by the run, but absent", op.Key)
		case rev == 0 || kvs[0].ModRevision != rev:
			since = append(since, i)
		}
	}
	if len(since) == 0 {
		return nil
	}
	gets = gets[:0]
	for _, i := range since {
		gets = append(gets, clientv3.OpGet(ops[i].Key, clientv3.WithRev(v.Revision)))
	}
	if resp, err = store.Txn(ctx).Then(gets...).Commit(); err != nil {
		return err
	}
	for j, r := range resp.Responses {
		op := ops[since[j]]
		v.ValuesCompared++
		kvs := r.GetResponseRange().GetKvs()
		switch {
		case len(kvs) == 0:
			v.fail("%s: written by the run, but absent", op.Key)
		case !bytes.Equal(kvs[0].Value, op.Value):
			v.fail("%s: does not hold the bytes the plan staged (written again at revision %d, after the run wrote it at %d)", op.Key, kvs[0].ModRevision, rev)
		}
	}
	return nil
}

// maxOverwrittenListed is how many overwritten keys a stopped run names.
const maxOverwrittenListed = 5

// noteOverwritten reads back the keys of the transactions the run
// committed and records in s those that no longer hold the bytes the run
// wrote there: a component running since wrote over them. Transactions not
// committed (or committed at a revision etcd did not report) are not read.
func (s *Stopped) noteOverwritten(ctx context.Context, store Store, open func() (*BackupReader, error), st *Staged) {
	s.OverwrittenKeys = []string{}
	if err := overwritten(ctx, store, open, st, s); err != nil {
		s.Overwritten, s.OverwrittenKeys = 0, []string{}
		s.OverwrittenUnread = err.Error()
	}
}

func overwritten(ctx context.Context, store Store, open func() (*BackupReader, error), st *Staged, s *Stopped) error {
	br, err := open()
	if err != nil {
		return err
	}
	defer br.Close()
	derive, err := ruleFor(br.Header)
	if err != nil {
		return err
	}
	// The writer's batcher again, so each op meets its transaction's number.
	b := newBatcher(st.opt, st.seed, func(bt *batch) error {
		if bt.seq >= len(st.revs) || st.revs[bt.seq] == 0 {
			return nil
		}
		return overwrittenIn(ctx, store, bt.ops, st.revs[bt.seq], s)
	})
	if err := eachOp(ctx, br, derive, b.add); err != nil {
		return err
	}
	return b.flush()
}

// overwrittenIn reads the ops of one transaction, committed at rev, now
// (keys only, then the values of the keys written since): a key deleted by
// it and present again, absent after its put, or holding other bytes than
// its put's (a key written since with the same bytes is not overwritten)
// goes into s.
func overwrittenIn(ctx context.Context, store Store, ops []Op, rev int64, s *Stopped) error {
	over := func(op Op) {
		s.Overwritten++
		if len(s.OverwrittenKeys) < maxOverwrittenListed {
			s.OverwrittenKeys = append(s.OverwrittenKeys, op.Key)
		}
	}
	gets := make([]clientv3.Op, len(ops))
	for i, op := range ops {
		gets[i] = clientv3.OpGet(op.Key, clientv3.WithKeysOnly())
	}
	resp, err := store.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return err
	}
	var since []clientv3.Op
	var sinceOps []Op
	for i, r := range resp.Responses {
		op, kvs := ops[i], r.GetResponseRange().GetKvs()
		switch {
		case op.Delete && len(kvs) > 0, !op.Delete && len(kvs) == 0:
			over(op)
		case !op.Delete && kvs[0].ModRevision != rev:
			since = append(since, clientv3.OpGet(op.Key, clientv3.WithRev(resp.Header.Revision)))
			sinceOps = append(sinceOps, op)
		}
	}
	if len(since) == 0 {
		return nil
	}
	if resp, err = store.Txn(ctx).Then(since...).Commit(); err != nil {
		return err
	}
	for j, r := range resp.Responses {
		if kvs := r.GetResponseRange().GetKvs(); len(kvs) == 0 || !bytes.Equal(kvs[0].Value, sinceOps[j].Value) {
			over(sinceOps[j])
		}
	}
	return nil
}
