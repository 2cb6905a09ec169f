package instance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A hung etcd (stopped, partitioned, a proxy that accepts and never
// answers) makes the client wait forever: every request heron sends goes
// through a KV that bounds it (RequestTimeout) and, while it waits, tells
// the operator after NoticeAfter.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultNoticeAfter    = 3 * time.Second
)

// NoAnswerError is a request etcd did not answer within the request timeout.
type NoAnswerError struct {
	Endpoints []string
	Timeout   time.Duration
	Err       error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("etcd at %s did not answer within %s: is it running and reachable?", strings.Join(e.Endpoints, ","), e.Timeout)
}

// Unwrap is context.DeadlineExceeded: callers that time requests out
// themselves see their own kind of error.
func (e *NoAnswerError) Unwrap() error { return e.Err }

// waiter bounds the requests of one instance and writes the waiting notice.
type waiter struct {
	in *Instance
	mu sync.Mutex
	// noticed is when the last notice was written: concurrent requests
	// write one notice each NoticeAfter, not one each.
	noticed time.Time
}

// request bounds one request: the returned context has the request
// timeout, and a notice goes to in.Notice when no answer came after
// in.NoticeAfter. Call done with the request's error: it names a timeout.
func (w *waiter) request(ctx context.Context) (context.Context, func(error) error) {
	in := w.in
	timeout := in.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	after := in.NoticeAfter
	if after <= 0 {
		after = DefaultNoticeAfter
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	start := time.Now()
	var t *time.Timer
	if in.Notice != nil {
		t = time.AfterFunc(after, func() { w.notice(start, timeout) })
	}
	return rctx, func(err error) error {
		if t != nil {
			t.Stop()
		}
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
			return &NoAnswerError{Endpoints: in.Endpoints, Timeout: timeout, Err: context.DeadlineExceeded}
		}
		return err
	}
}

func (w *waiter) notice(start time.Time, timeout time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if now.Sub(w.noticed) < now.Sub(start) {
		return
	}
	w.noticed = now
	fmt.Fprintf(w.in.Notice, "waiting for etcd at %s: no answer for %s (heron gives up after %s)...\n",
		strings.Join(w.in.Endpoints, ","), now.Sub(start).Round(time.Second), timeout)
}

// waitKV is the client's KV with every request bounded by the waiter.
type waitKV struct {
	clientv3.KV
	w *waiter
}

func (k *waitKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	ctx, done := k.w.request(ctx)
	resp, err := k.KV.Get(ctx, key, opts...)
	return resp, done(err)
}

func (k *waitKV) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	ctx, done := k.w.request(ctx)
	resp, err := k.KV.Put(ctx, key, val, opts...)
	return resp, done(err)
}

func (k *waitKV) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	ctx, done := k.w.request(ctx)
	resp, err := k.KV.Delete(ctx, key, opts...)
	return resp, done(err)
}

func (k *waitKV) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	ctx, done := k.w.request(ctx)
	resp, err := k.KV.Do(ctx, op)
	return resp, done(err)
}

func (k *waitKV) Txn(ctx context.Context) clientv3.Txn { return &waitTxn{kv: k, ctx: ctx} }

// waitTxn collects a transaction and bounds its Commit.
type waitTxn struct {
	kv             *waitKV
	ctx            context.Context
	cmps           []clientv3.Cmp
	thens, elses   []clientv3.Op
	ifSet, thenSet bool
	elseSet        bool
}

// If, Then and Else keep the slice they are given until Commit instead of
// copying it (the write pass builds each transaction's once; clientv3's own
// Txn keeps the ops' keys and values the same way).
func (t *waitTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.cmps, t.ifSet = keep(t.cmps, cs), true
	return t
}

func (t *waitTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.thens, t.thenSet = keep(t.thens, ops), true
	return t
}

func (t *waitTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.elses, t.elseSet = keep(t.elses, ops), true
	return t
}

// keep is have with add appended: add itself when have is empty (clipped,
// so that a later append copies rather than writes into the caller's
// array).
func keep[T any](have, add []T) []T {
	if len(have) == 0 {
		return slices.Clip(add)
	}
	return append(have, add...)
}

func (t *waitTxn) Commit() (*clientv3.TxnResponse, error) {
	ctx, done := t.kv.w.request(t.ctx)
	txn := t.kv.KV.Txn(ctx)
	if t.ifSet {
		txn = txn.If(t.cmps...)
	}
	if t.thenSet {
		txn = txn.Then(t.thens...)
	}
	if t.elseSet {
		txn = txn.Else(t.elses...)
	}
	resp, err := txn.Commit()
	return resp, done(err)
}

// bounded runs one maintenance request under the waiter.
func (in *Instance) bounded(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, done := in.waiter.request(ctx)
	return done(fn(ctx))
}

// SetNotice sends the waiting notices to w (nil: none).
func (in *Instance) SetNotice(w io.Writer) { in.Notice = w }
