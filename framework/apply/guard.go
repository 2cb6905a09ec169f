package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/heron-shell/heron/framework"
)

// Guard is a prefix that must hold no key with a lease while the kit
// writes (framework.Guard: a Guarded store names its own).
type Guard = framework.Guard

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
		return fmt.Sprintf("%s (lease %s)", keyText(e.Key), framework.LeaseID(e.Lease))
	}
	return fmt.Sprintf("%s (%s, lease %s)", keyText(e.Key), keyText(e.Role), framework.LeaseID(e.Lease))
}

func (e *LiveError) Error() string {
	return fmt.Sprintf("%s: a Milvus component is running: %s; stop it (every component) before going on", e.Guard, e.Running())
}

// keyText is a key (or any text from etcd) as a message shows it: a
// newline or another control character in it is escaped, so that a key
// cannot forge a line of heron's output.
func keyText(key string) string { return framework.EscapeText(key) }

// checkGuards reads every guard now: a live key is a *LiveError.
func checkGuards(ctx context.Context, store Store, guards []Guard) error {
	for _, g := range guards {
		resp, err := readGuard(ctx, store, g.Prefix)
		if err != nil {
			return fmt.Errorf("cannot check %q: read %s: %w", g.Name, g.Prefix, err)
		}
		for _, r := range resp.Responses {
			if live := liveIn(g, r.GetResponseRange().GetKvs()); live != nil {
				return live
			}
		}
	}
	return nil
}

// liveIn is the first key of kvs (read under g) that holds a lease, named.
func liveIn(g Guard, kvs []*mvccpb.KeyValue) *LiveError {
	for _, kv := range kvs {
		if kv.Lease != 0 && !slices.Contains(g.Except, string(kv.Key)) {
			live := &LiveError{Guard: g.Name, Key: string(kv.Key), Lease: kv.Lease}
			if g.Role != nil {
				live.Role = g.Role(live.Key, kv.Value)
			}
			return live
		}
	}
	return nil
}

// guardRange is a key range [key, end) of a guard's prefix: the prefix
// cut around its Except keys, which a compare cannot leave out otherwise.
type guardRange struct {
	guard    int
	key, end string
}

// guardRanges are the ranges every transaction compares, guard by guard.
func guardRanges(guards []Guard) []guardRange {
	var out []guardRange
	for i, g := range guards {
		end := clientv3.GetPrefixRangeEnd(g.Prefix)
		except := slices.Clone(g.Except)
		slices.Sort(except)
		from := g.Prefix
		for _, x := range except {
			if x < from || x >= end {
				continue
			}
			if from < x {
				out = append(out, guardRange{guard: i, key: from, end: x})
			}
			from = x + "\x00"
		}
		if from < end {
			out = append(out, guardRange{guard: i, key: from, end: end})
		}
	}
	return out
}

// guardCompares is how many compares the guards add to every transaction:
// etcd's --max-txn-ops counts them (a transaction's size is the largest of
// its compares, its Then and its Else).
func guardCompares(guards []Guard) int { return len(guardRanges(guards)) }

// guardTxn is what the guards add to every transaction the writer sends:
// a compare per range that no key in it holds a lease (etcd compares every
// key of a range; an empty range compares as lease 0), so a component that
// registered before the transaction is applied fails it atomically, and a
// read of each range in the Else: the failed transaction itself names the
// live key, at the revision it was refused at.
type guardTxn struct {
	guards []Guard
	ranges []guardRange
	cmps   []clientv3.Cmp
	reads  []clientv3.Op
}

func newGuardTxn(guards []Guard) *guardTxn {
	gt := &guardTxn{guards: guards, ranges: guardRanges(guards)}
	for _, r := range gt.ranges {
		gt.cmps = append(gt.cmps, clientv3.Compare(clientv3.LeaseValue(r.key), "=", clientv3.NoLease).WithRange(r.end))
		gt.reads = append(gt.reads, clientv3.OpGet(r.key, clientv3.WithRange(r.end)))
	}
	return gt
}

// liveAt is the live key the Else of a refused transaction read (nil: the
// guards held; a key's mod revision failed the compare).
func (gt *guardTxn) liveAt(resp *clientv3.TxnResponse) *LiveError {
	for i, r := range resp.Responses {
		if i >= len(gt.ranges) {
			break
		}
		if live := liveIn(gt.guards[gt.ranges[i].guard], r.GetResponseRange().GetKvs()); live != nil {
			return live
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

// guardNames lists the guards' names for a message.
func guardNames(guards []Guard) string {
	names := make([]string, len(guards))
	for i, g := range guards {
		names[i] = fmt.Sprintf("%q", g.Name)
	}
	return strings.Join(names, ", ")
}
