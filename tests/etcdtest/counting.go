package etcdtest

import (
	"context"
	"sync"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// CountingKV is a KV that counts what its range reads cost etcd, plain and
// in transactions: the requests and the empty ones (plain), the keys etcd
// counted for them (it counts every key up to a limited range's end before
// it answers), the keys they returned, and each returned key by name. Read
// the counts once the reads are done.
type CountingKV struct {
	clientv3.KV
	mu                sync.Mutex
	Requests, Empty   int
	Counted, Returned int64
	Seen              map[string]int
}

// NewCountingKV counts the range reads of kv.
func NewCountingKV(kv clientv3.KV) *CountingKV {
	return &CountingKV{KV: kv, Seen: map[string]int{}}
}

func (c *CountingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	resp, err := c.KV.Get(ctx, key, opts...)
	if err == nil {
		c.mu.Lock()
		c.Requests++
		if len(resp.Kvs) == 0 {
			c.Empty++
		}
		c.add(resp.Count, resp.Kvs)
		c.mu.Unlock()
	}
	return resp, err
}

func (c *CountingKV) Txn(ctx context.Context) clientv3.Txn {
	return &HookedTxn{Txn: c.KV.Txn(ctx), Hook: func(commit func() (*clientv3.TxnResponse, error)) (*clientv3.TxnResponse, error) {
		resp, err := commit()
		if err == nil {
			c.mu.Lock()
			for _, r := range resp.Responses {
				if rr := r.GetResponseRange(); rr != nil {
					c.add(rr.Count, rr.Kvs)
				}
			}
			c.mu.Unlock()
		}
		return resp, err
	}}
}

// add counts one range's answer; the caller holds mu.
func (c *CountingKV) add(counted int64, kvs []*mvccpb.KeyValue) {
	c.Counted += counted
	c.Returned += int64(len(kvs))
	for _, kv := range kvs {
		c.Seen[string(kv.Key)]++
	}
}

// HookedTxn is a transaction whose Commit runs through Hook, which calls
// commit once: a test's store counts, delays or watches transactions with
// it, and If, Then and Else keep it the transaction they return.
type HookedTxn struct {
	clientv3.Txn
	Hook func(commit func() (*clientv3.TxnResponse, error)) (*clientv3.TxnResponse, error)
}

func (t *HookedTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.Txn = t.Txn.If(cs...)
	return t
}

func (t *HookedTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *HookedTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.Txn = t.Txn.Else(ops...)
	return t
}

func (t *HookedTxn) Commit() (*clientv3.TxnResponse, error) { return t.Hook(t.Txn.Commit) }
