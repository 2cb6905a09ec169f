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
	if v.Revision, err = readRevision(ctx, store, firstPrefix(br.Header)); err != nil {
		return err
	}
	if onlyOwnRevisions(br.Header.Revision, st.revs, v.Revision) {
		v.Keys, v.ReadBack = st.result().Keys, provenByRevisions
		return nil
	}
	if st.opt.Pause != nil {
		st.opt.Pause(PauseReadBack)
	}
	err = eachTxn(ctx, br, st, func(ops []Op, rev int64) error {
		for attempt := 1; ; attempt++ {
			err := readBatch(ctx, store, ops, rev, v)
			if err == nil || !IsCompacted(err) || attempt == maxReadBacks {
				return err
			}
			// etcd compacted v.Revision (another writer and its compactor):
			// this batch and the rest are read at the current revision.
			if v.Revision, err = readRevision(ctx, store, firstPrefix(br.Header)); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return err
	}
	v.ReadBack = fmt.Sprintf("keys-only read, %d values compared", v.ValuesCompared)
	return nil
}

// firstPrefix is a key under what the run writes (the header's first
// prefix), whose count reads etcd's revision.
func firstPrefix(h Header) string {
	if len(h.Prefixes) > 0 {
		return h.Prefixes[0]
	}
	return h.RootPath + "/"
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

// eachTxn reads br (the run's published backup) to its end and hands fn
// the ops of each of the run's transactions, batched again as the writer
// batched them, with the revision it committed at (0: not known).
func eachTxn(ctx context.Context, br *BackupReader, st *Staged, fn func(ops []Op, rev int64) error) error {
	derive, err := ruleFor(br.Header)
	if err != nil {
		return err
	}
	b := newBatcher(st.opt, st.seed, func(bt *batch) error {
		var rev int64
		if bt.seq < len(st.revs) {
			rev = st.revs[bt.seq]
		}
		return fn(bt.ops, rev)
	})
	if err := eachOp(ctx, br, derive, b.add); err != nil {
		return err
	}
	return b.flush()
}

// How a key the run wrote differs from what the run wrote there.
type mismatch int

const (
	presentAfterDelete mismatch = iota // deleted by the run, present
	absentAfterPut                     // put by the run, absent
	otherBytes                         // put by the run, other bytes there
)

// compareWritten reads the keys of ops, one transaction committed at rev
// (0: not known), at revision at (0: now): keys only, then the values of
// the keys written since (a key written again with the same bytes
// matches). Each key that does not hold what the run wrote goes to bad,
// with its mod revision when present. It returns the values it compared.
func compareWritten(ctx context.Context, store Store, ops []Op, rev, at int64, bad func(op Op, m mismatch, modRev int64)) (int64, error) {
	atRev := func(opts ...clientv3.OpOption) []clientv3.OpOption {
		if at > 0 {
			opts = append(opts, clientv3.WithRev(at))
		}
		return opts
	}
	gets := make([]clientv3.Op, len(ops))
	for i, op := range ops {
		gets[i] = clientv3.OpGet(op.Key, atRev(clientv3.WithKeysOnly())...)
	}
	resp, err := store.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return 0, err
	}
	if at == 0 {
		at = resp.Header.Revision
	}
	var since []int
	for i, r := range resp.Responses {
		op := ops[i]
		kvs := r.GetResponseRange().GetKvs()
		switch {
		case op.Delete && len(kvs) > 0:
			bad(op, presentAfterDelete, kvs[0].ModRevision)
		case op.Delete:
		case len(kvs) == 0:
			bad(op, absentAfterPut, 0)
		case rev == 0 || kvs[0].ModRevision != rev:
			since = append(since, i)
		}
	}
	if len(since) == 0 {
		return 0, nil
	}
	gets = gets[:0]
	for _, i := range since {
		gets = append(gets, clientv3.OpGet(ops[i].Key, clientv3.WithRev(at)))
	}
	if resp, err = store.Txn(ctx).Then(gets...).Commit(); err != nil {
		return 0, err
	}
	for j, r := range resp.Responses {
		op := ops[since[j]]
		switch kvs := r.GetResponseRange().GetKvs(); {
		case len(kvs) == 0:
			bad(op, absentAfterPut, 0)
		case !bytes.Equal(kvs[0].Value, op.Value):
			bad(op, otherBytes, kvs[0].ModRevision)
		}
	}
	return int64(len(since)), nil
}

// readBatch checks the ops of one transaction, committed at rev, at
// v.Revision (counted once they read).
func readBatch(ctx context.Context, store Store, ops []Op, rev int64, v *Verify) error {
	var failures []string
	compared, err := compareWritten(ctx, store, ops, rev, v.Revision, func(op Op, m mismatch, modRev int64) {
		switch m {
		case presentAfterDelete:
			failures = append(failures, fmt.Sprintf("%s: deleted by the run, but present (written again at revision %d)", keyText(op.Key), modRev))
		case absentAfterPut:
			failures = append(failures, fmt.Sprintf("%s: written by the run, but absent", keyText(op.Key)))
		case otherBytes:
			failures = append(failures, fmt.Sprintf("%s: does not hold the bytes the plan staged (written again at revision %d, after the run wrote it at %d)", keyText(op.Key), modRev, rev))
		}
	})
	if err != nil {
		return err
	}
	v.Keys += int64(len(ops))
	v.ValuesCompared += compared
	for _, f := range failures {
		v.fail("%s", f)
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
	return eachTxn(ctx, br, st, func(ops []Op, rev int64) error {
		if rev == 0 {
			return nil
		}
		_, err := compareWritten(ctx, store, ops, rev, 0, func(op Op, _ mismatch, _ int64) {
			s.Overwritten++
			if len(s.OverwrittenKeys) < maxOverwrittenListed {
				s.OverwrittenKeys = append(s.OverwrittenKeys, op.Key)
			}
		})
		return err
	})
}
