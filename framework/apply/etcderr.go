package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// The errors etcd answers a transaction with fall in two kinds: a refusal
// (out of space, permission denied, a corrupt cluster, a compacted
// revision) was decided before anything of the request was applied, so the
// transaction was NOT applied; any other failure (a timeout, a lost
// connection, a leader change) leaves its outcome unknown. They are told
// apart here, once, for every message that says what was written.

// RefusedTxnError is a transaction etcd refused: none of its keys was written.
type RefusedTxnError struct {
	// Txn is the transaction's number (1-based), Keys its size, First its first key.
	Txn   int
	Keys  int
	First string
	// What says what etcd refused and why; Recovery how to clear it.
	What, Recovery string
	// Once completes "re-run heron to complete once ..." ("": no condition).
	Once string
	// Applied: etcd applied the transaction and then reported the error
	// (it applies the write that crosses its space quota, raises NOSPACE
	// and refuses every write after it).
	Applied bool
	Err     error
}

func (e *RefusedTxnError) Error() string {
	msg := fmt.Sprintf("etcd refused transaction %d (%d keys from %s), which was NOT applied: %s (%v)", e.Txn, e.Keys, keyText(e.First), e.What, e.Err)
	if e.Applied {
		msg = fmt.Sprintf("etcd applied transaction %d (%d keys from %s) and then reported that %s (%v): etcd applies the write that crosses its quota and refuses every write after it", e.Txn, e.Keys, keyText(e.First), e.What, e.Err)
	}
	if e.Recovery != "" {
		msg += "; to recover: " + e.Recovery
	}
	return msg
}

func (e *RefusedTxnError) Unwrap() error { return e.Err }

// IsNoSpace reports whether err is etcd out of space: its NOSPACE alarm is
// raised and it refuses every write until the alarm is disarmed.
func IsNoSpace(err error) bool { return errors.Is(err, rpctypes.ErrNoSpace) }

// IsPermissionDenied reports whether err is etcd refusing the connected user.
func IsPermissionDenied(err error) bool {
	return errors.Is(err, rpctypes.ErrPermissionDenied) || errors.Is(err, rpctypes.ErrUserEmpty)
}

// IsCompacted reports whether err is a read at a revision etcd compacted away.
func IsCompacted(err error) bool { return errors.Is(err, rpctypes.ErrCompacted) }

// isCorrupt reports whether err is etcd's CORRUPT alarm.
func isCorrupt(err error) bool { return errors.Is(err, rpctypes.ErrCorrupt) }

// user is implemented by a Store that knows the etcd user it connected as.
type user interface{ UserName() string }

// userOf names the etcd user of store for messages.
func userOf(store Store) string {
	if u, ok := store.(user); ok && u.UserName() != "" {
		return fmt.Sprintf("etcd user %q", u.UserName())
	}
	return "the connection (no etcd user)"
}

// NoSpaceRecovery is what clears etcd's NOSPACE alarm, with the endpoints
// heron connected to and rev the current revision (0: unknown). The compaction
// is --physical: etcd answers a plain compact before it has removed the old
// revisions (it deletes them in the background, 1000 at a time), so a defrag
// right after it may reclaim nothing, and the re-run's first transaction is
// refused for space again (seen against etcd 3.4 in test_etcd17.sh).
func NoSpaceRecovery(endpoints []string, rev int64) string {
	ep := strings.Join(endpoints, ",")
	if ep == "" {
		ep = "ENDPOINTS"
	}
	r := "REV (the current revision: etcdctl endpoint status --write-out=json)"
	if rev > 0 {
		r = fmt.Sprint(rev)
	}
	return fmt.Sprintf("compact the history to the current revision (etcdctl --endpoints=%s compact --physical %s), "+
		"defragment every member, one at a time (etcdctl --endpoints=%s defrag --cluster), "+
		"disarm the alarm (etcdctl --endpoints=%s alarm disarm), check the space with etcdctl --endpoints=%s endpoint status --cluster "+
		"(if the database is still near its quota, raise etcd's --quota-backend-bytes), then re-run heron", ep, r, ep, ep, ep)
}

// txnError is the error of transaction bt that etcd answered with err.
func (w *writer) txnError(ctx context.Context, bt *batch, err error) error {
	refused := func(what, recovery, once string) error {
		return &RefusedTxnError{Txn: bt.seq + 1, Keys: len(bt.ops), First: bt.ops[0].Key, What: what, Recovery: recovery, Once: once, Err: err}
	}
	switch {
	case IsNoSpace(err):
		r := refused("etcd is out of space (its NOSPACE alarm is raised: the database reached its --quota-backend-bytes, and etcd refuses every write until the alarm is disarmed)",
			NoSpaceRecovery(w.opt.Header.Endpoints, currentRevision(ctx, w.store, bt.ops[0].Key)), "the alarm is disarmed").(*RefusedTxnError)
		r.What = "etcd is out of space (its NOSPACE alarm is raised: the database reached its --quota-backend-bytes, and etcd refuses every write until the alarm is disarmed)"
		r.Applied = applied(ctx, w.store, bt)
		return r
	case IsPermissionDenied(err):
		return refused(fmt.Sprintf("%s may not write every key of it", userOf(w.store)),
			"grant the user read and write permission on every prefix the command writes, then re-run heron", "the user may write every prefix")
	case isCorrupt(err):
		return refused("etcd's CORRUPT alarm is raised (a member's data differs from the others')",
			"repair the cluster (etcdctl alarm list names the member) before any write", "the cluster is repaired")
	case IsCompacted(err):
		return refused("etcd compacted a revision the transaction needs", "", "")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = &timeoutError{d: w.opt.TxnTimeout, err: err}
	}
	return fmt.Errorf("etcd transaction %d (%d keys from %s) failed, its keys may or may not be written: %w", bt.seq+1, len(bt.ops), keyText(bt.ops[0].Key), err)
}

// applied reports whether the transaction bt was applied although etcd
// answered with an error: its first key no longer has the mod revision the
// transaction compared (a put moved it, a delete removed the key). The
// transaction is atomic, and its compare held when it was sent, so one key
// tells. A key that cannot be read counts as not applied.
func applied(ctx context.Context, store Store, bt *batch) bool {
	op := bt.ops[0]
	resp, err := store.Txn(ctx).Then(clientv3.OpGet(op.Key, clientv3.WithKeysOnly())).Commit()
	if err != nil || len(resp.Responses) == 0 {
		return false
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if op.Delete {
		return op.ModRevision != 0 && len(kvs) == 0
	}
	return len(kvs) == 1 && kvs[0].ModRevision != op.ModRevision
}

// currentRevision reads etcd's revision with a read-only transaction (which
// etcd serves under a NOSPACE alarm); 0 when it cannot.
func currentRevision(ctx context.Context, store Store, key string) int64 {
	rev, _ := readRevision(ctx, store, key)
	return rev
}

// readRevision reads etcd's revision with a count of key, one the run
// writes: a user that may read and write only the prefixes a command
// writes may read it (no key outside them is read).
func readRevision(ctx context.Context, store Store, key string) (int64, error) {
	resp, err := store.Txn(ctx).Then(clientv3.OpGet(key, clientv3.WithCountOnly())).Commit()
	if err != nil {
		return 0, fmt.Errorf("read etcd's revision (a count of %s): %w", key, err)
	}
	return resp.Header.Revision, nil
}

// StaleRead reports whether the run stopped on a read at a revision etcd
// compacted away before writing anything: the plan can be read again at a
// new revision (the kit does so once, framework.RereadOnce).
func (e *InterruptedError) StaleRead() bool { return e.Written == 0 && IsCompacted(e.Err) }

// writtenError is an error after the writes (verify's): never a stale read
// that building the plan again could fix.
type writtenError struct{ err error }

func (e *writtenError) Error() string   { return e.err.Error() }
func (e *writtenError) Unwrap() error   { return e.err }
func (e *writtenError) StaleRead() bool { return false }

// afterWrite marks err as an error after the writes.
func afterWrite(err error) error {
	if err == nil {
		return nil
	}
	return &writtenError{err: err}
}
