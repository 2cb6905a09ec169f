package apply

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/heron-shell/heron/framework"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// LimitError is a transaction etcd refused for one of its limits
// (--max-txn-ops, --max-request-bytes). etcd checks them before applying
// anything, so nothing of the refused transaction was written.
type LimitError struct {
	// Msg says what was refused and the limit.
	Msg string
	// Fix is what lets the transaction through ("--max-txn-ops is at most 128").
	Fix string
}

func (e *LimitError) Error() string { return e.Msg }

// DefaultMaxRequestBytes is etcd's default --max-request-bytes (1.5 MiB):
// the largest request (a transaction, with its keys, values and compares)
// the server accepts.
const DefaultMaxRequestBytes = 3 << 19

// RequestLimitName is the gate of values too large for one etcd request.
const RequestLimitName = "values within etcd's request limit"

// etcd measures a request as its raft entry (etcdserver's
// processInternalRaftRequestOnce: the InternalRaftRequest marshalled, its
// header and the txn) against --max-request-bytes; requestBytes and
// txnOverhead count it the same way, protobuf field by field.

// varintBytes is the size of x as a protobuf varint.
func varintBytes(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// fieldBytes is the size of a length-delimited protobuf field of n bytes
// whose number is below 16 (a one-byte tag).
func fieldBytes(n int) int { return 1 + varintBytes(uint64(n)) + n }

// opBytes is what an op adds to its transaction's request: its compare
// (Compare{target MOD, key, mod_revision}) and its put
// (RequestOp{PutRequest{key, value}}) or delete
// (RequestOp{DeleteRangeRequest{key}}), each an element of TxnRequest.
func opBytes(key string, value []byte, modRevision int64, del bool) int {
	cmp := 2 + fieldBytes(len(key)) + 1 + varintBytes(uint64(modRevision))
	req := fieldBytes(len(key))
	if !del && len(value) > 0 {
		req += fieldBytes(len(value))
	}
	return fieldBytes(cmp) + fieldBytes(fieldBytes(req))
}

// maxUserNameBytes bounds the etcd user name counted in a request's raft
// header when the store does not name its user.
const maxUserNameBytes = 256

// headerBytes is etcd's raft header of a request by user (RequestHeader:
// request id, user name, auth revision, each as large as it may be) as a
// field of InternalRaftRequest (number 100: a two-byte tag).
func headerBytes(user string) int {
	h := 11 + fieldBytes(len(user)) + 11
	return 2 + varintBytes(uint64(h)) + h
}

// guardBytes is what the guards add to every transaction: their compares
// and their Else reads, as elements of TxnRequest, and etcd's raft header.
func guardBytes(gt *guardTxn, user string) int {
	n := headerBytes(user)
	for i := range gt.cmps {
		n += fieldBytes((*etcdserverpb.Compare)(&gt.cmps[i]).Size())
	}
	for _, r := range gt.ranges {
		read := etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestRange{RequestRange: &etcdserverpb.RangeRequest{Key: []byte(r.key), RangeEnd: []byte(r.end)}}}
		n += fieldBytes(read.Size())
	}
	return n
}

// opRoom is how many bytes of ops a transaction holds under etcd's request
// limit (0: its default), with fixed bytes of guards and header: the txn's
// own field in the raft request (its length a varint of at most limit).
func opRoom(limit, fixed int) int {
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	return limit - fixed - 1 - varintBytes(uint64(limit))
}

// RequestLimit counts the puts over etcd's request limit (a put alone in
// its transaction, with the guards' compares and reads and etcd's header,
// over --max-request-bytes): the gate Gate shows.
type RequestLimit struct {
	// Limit is --max-request-bytes (0: etcd's default).
	Limit int
	// Over counts the puts over Limit; Keys names the first few, with their
	// sizes. AboveDefault counts those over etcd's default limit (a raised
	// --max-request-bytes lets them through).
	Over, AboveDefault int64
	Keys               []string
	// fixed is what every transaction holds besides its ops (guardBytes).
	fixed int
}

// NewRequestLimit counts the puts over limit (--max-request-bytes, 0: etcd's
// default) of a run on s, whose guards go into every transaction.
func NewRequestLimit(limit int, s Guarded) RequestLimit {
	name := ""
	if u, ok := s.(user); ok {
		name = u.UserName()
	}
	return newRequestLimit(limit, s.Guards(), name)
}

// newRequestLimit counts the puts over limit of a run with guards, by user
// ("": a name of up to maxUserNameBytes).
func newRequestLimit(limit int, guards []Guard, user string) RequestLimit {
	if user == "" {
		user = strings.Repeat(" ", maxUserNameBytes)
	}
	return RequestLimit{Limit: limit, fixed: guardBytes(newGuardTxn(guards), user)}
}

// over reports whether a put of value at key, alone in its transaction
// (compared at any mod revision), is over limit.
func (r *RequestLimit) over(key string, value []byte, limit int) bool {
	return opBytes(key, value, math.MaxInt64, false) > opRoom(limit, r.fixed)
}

// Add counts a put of value at key.
func (r *RequestLimit) Add(key string, value []byte) {
	if r.over(key, value, 0) {
		r.AboveDefault++
	}
	if r.over(key, value, r.Limit) {
		r.Over++
		if len(r.Keys) < maxLimitKeys {
			r.Keys = append(r.Keys, fmt.Sprintf("%s (%d bytes)", key, len(value)))
		}
	}
}

const maxLimitKeys = 5

// Gate is the gate "values within etcd's request limit" (ok: false when a
// put does not fit; ok with the override noted when --max-request-bytes
// lets values above etcd's default through). present is false when no
// value comes near the limit: the plan then shows no such gate.
func (r *RequestLimit) Gate() (g framework.Gate, present bool) {
	limit := r.Limit
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	switch {
	case r.Over > 0:
		return framework.Gate{Name: RequestLimitName, Count: r.Over, Keys: r.Keys,
			Detail: fmt.Sprintf("%d values do not fit in one etcd request of %d bytes (the server's --max-request-bytes; 1.5 MiB by default): their transactions would fail mid-run", r.Over, limit),
			Fix:    []framework.Step{{Order: framework.StepRerun, Text: "if etcd runs with a larger --max-request-bytes, re-run with --max-request-bytes set to the server's value"}}}, true
	case r.AboveDefault > 0:
		return framework.Gate{Name: RequestLimitName, OK: true, Overridden: true, Count: r.AboveDefault,
			Detail: fmt.Sprintf("--max-request-bytes %d: %d values above etcd's default request limit (1.5 MiB) go in requests of up to %d bytes: etcd must run with --max-request-bytes %d or more", limit, r.AboveDefault, limit, limit)}, true
	}
	return framework.Gate{}, false
}

// tooManyOps: etcd's --max-txn-ops refused a transaction
// (etcdserver/api/v3rpc/key.go checkTxnReq: rpctypes.ErrGRPCTooManyOps).
func tooManyOps(err error) bool {
	return errors.Is(err, rpctypes.ErrTooManyOps) || strings.Contains(err.Error(), rpctypes.ErrTooManyOps.Error())
}

// tooLarge: the request was over etcd's --max-request-bytes: refused by
// etcd (rpctypes.ErrGRPCRequestTooLarge), or by its gRPC server, whose
// receive limit is --max-request-bytes plus 512 KiB (etcdserver/api/v3rpc/grpc.go).
func tooLarge(err error) bool {
	if errors.Is(err, rpctypes.ErrRequestTooLarge) || strings.Contains(err.Error(), rpctypes.ErrRequestTooLarge.Error()) {
		return true
	}
	return status.Code(err) == codes.ResourceExhausted && strings.Contains(err.Error(), "larger than max")
}

// maxTxnOps finds etcd's --max-txn-ops with read-only transactions of gets
// of key (which write nothing): the largest count up to n that etcd accepts.
// ok is false when etcd accepts n.
func maxTxnOps(ctx context.Context, store Store, opt Options, key string, n int) (limit int, ok bool, err error) {
	try := func(k int) (bool, error) {
		gets := make([]clientv3.Op, k)
		for i := range gets {
			gets[i] = clientv3.OpGet(key, clientv3.WithKeysOnly())
		}
		tctx, cancel := context.WithTimeout(ctx, opt.TxnTimeout)
		defer cancel()
		_, err := store.Txn(tctx).Then(gets...).Commit()
		heartbeat(ctx)
		if err != nil && tooManyOps(err) {
			return false, nil
		}
		return err == nil, err
	}
	fits, err := try(n)
	if err != nil || fits {
		return n, false, err
	}
	lo, hi := 0, n // lo is accepted (0: none tried), hi refused
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		fits, err := try(mid)
		if err != nil {
			return 0, false, err
		}
		if fits {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true, nil
}

func txnOpsError(limit int) *LimitError {
	if limit <= 0 {
		return &LimitError{Msg: "etcd refuses even a transaction of one operation (its --max-txn-ops)", Fix: "etcd's --max-txn-ops is raised"}
	}
	return &LimitError{
		Msg: fmt.Sprintf("etcd allows at most %d operations per transaction (its --max-txn-ops): use --max-txn-ops <= %d", limit, limit),
		Fix: fmt.Sprintf("--max-txn-ops is at most %d", limit),
	}
}

// checkTxnOps makes sure etcd accepts a transaction of n ops, before the
// first write.
func checkTxnOps(ctx context.Context, store Store, opt Options, key string, n int) error {
	limit, over, err := maxTxnOps(ctx, store, opt, key, n)
	if err != nil {
		return fmt.Errorf("checking etcd's --max-txn-ops with a read of %d keys: %w", n, err)
	}
	if over {
		e := txnOpsError(limit)
		e.Msg += "; nothing was written"
		return e
	}
	return nil
}

// limitError turns a transaction etcd refused for a limit into a
// *LimitError (nil for any other failure).
func (w *writer) limitError(ctx context.Context, bt *batch, err error) error {
	switch {
	case tooManyOps(err):
		// etcd counts the guards' compares too.
		n := len(bt.ops) + len(w.guard.cmps)
		limit, _, perr := maxTxnOps(ctx, w.store, w.opt, bt.ops[0].Key, n)
		if perr != nil {
			return &LimitError{Msg: fmt.Sprintf("etcd refused transaction %d of %d operations (from %s) as more than its --max-txn-ops allows; nothing of it was written: use a smaller --max-txn-ops", bt.seq+1, n, keyText(bt.ops[0].Key)),
				Fix: "--max-txn-ops is below etcd's"}
		}
		e := txnOpsError(limit)
		e.Msg = fmt.Sprintf("%s (transaction %d of %d operations from %s was refused, nothing of it was written)", e.Msg, bt.seq+1, n, keyText(bt.ops[0].Key))
		return e
	case tooLarge(err):
		big := bt.ops[0]
		for _, op := range bt.ops {
			if len(op.Value) > len(big.Value) {
				big = op
			}
		}
		what := fmt.Sprintf("key %s holds a value of %d bytes", keyText(big.Key), len(big.Value))
		if len(bt.ops) > 1 {
			what = fmt.Sprintf("its %d keys hold %d bytes, the largest value is %s's (%d bytes)", len(bt.ops), bt.bytes, keyText(big.Key), len(big.Value))
		}
		return &LimitError{
			Msg: fmt.Sprintf("etcd refused transaction %d as too large: %s, over etcd's request limit (its --max-request-bytes, 1.5 MiB by default); nothing of that transaction was written (%v)", bt.seq+1, what, err),
			Fix: fmt.Sprintf("etcd runs with --max-request-bytes above %d", bt.bytes),
		}
	}
	return nil
}
