package apply

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
)

// StallError is the cause of a run cancelled by its watchdog: etcd answered
// nothing for Timeout.
type StallError struct{ Timeout time.Duration }

func (e *StallError) Error() string {
	return fmt.Sprintf("etcd did not answer for %s: is it running and reachable?", e.Timeout)
}

type watchdogKey struct{}

type watchdog struct {
	last atomic.Int64 // unix nanos of the last heartbeat
	held atomic.Int32 // > 0: waiting on the operator, not on etcd
}

// WithStallTimeout returns a context that is cancelled, with a *StallError as
// its cause, when no heartbeat (an answer from etcd, a staged op) was seen for d (0: DefaultStallTimeout).
// Call stop when done. Long reads (plan builders) and Apply use it so that a
// vanished etcd ends the command with a clear error instead of a hang.
func WithStallTimeout(ctx context.Context, d time.Duration) (context.Context, func()) {
	if d <= 0 {
		d = DefaultStallTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{}
	w.last.Store(time.Now().UnixNano())
	ctx = context.WithValue(ctx, watchdogKey{}, w)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(max(d/8, 10*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				if w.held.Load() == 0 && now.UnixNano()-w.last.Load() > int64(d) {
					cancel(&StallError{Timeout: d})
					return
				}
			}
		}
	}()
	var once atomic.Bool
	return ctx, func() {
		if once.CompareAndSwap(false, true) {
			close(done)
			cancel(context.Canceled)
		}
	}
}

// hold stops the watchdog of ctx (if any) from firing until release is
// called: the run waits on the operator's answer, not on etcd.
func hold(ctx context.Context) (release func()) {
	w, ok := ctx.Value(watchdogKey{}).(*watchdog)
	if !ok {
		return func() {}
	}
	w.held.Add(1)
	return func() {
		w.last.Store(time.Now().UnixNano())
		w.held.Add(-1)
	}
}

// DialOptions are the gRPC options of every etcd client heron dials: each
// answer from etcd tells the watchdog of the call's context that etcd is
// alive, so the kit watches progress without the commands reporting it;
// requests are marshalled once (requestCodec).
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(forceRequestCodec()), grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if err == nil {
			heartbeat(ctx)
		}
		return err
	})}
}

// heartbeat tells the watchdog of ctx (if any) that etcd answered.
func heartbeat(ctx context.Context) {
	if w, ok := ctx.Value(watchdogKey{}).(*watchdog); ok {
		w.last.Store(time.Now().UnixNano())
	}
}

// Cause turns an error caused by a watchdog's cancellation into the
// watchdog's clear message; other errors come back unchanged.
func Cause(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var se *StallError
	if c := context.Cause(ctx); c != nil && errors.As(c, &se) && !errors.As(err, &se) {
		return fmt.Errorf("%w (%v)", se, err)
	}
	return err
}
