// Package instance is a connection to the etcd of one Milvus instance: the
// client, the key layout, and paginated reads pinned to one revision. Every
// namespace under states/ reads etcd through it.
package instance

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
	"unsafe"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
)

// DefaultPageSize is the most keys one range request returns, and
// DefaultPageBytes the bytes (keys and values) a page aims at: together they
// bound the memory of every scan. etcd spends most of a range request's CPU
// per key on small pages, so pages are sized by bytes: after each page the
// next limit is PageBytes over the mean size of a key seen so far, at most
// PageSize keys.
const (
	DefaultPageSize  = 10000
	DefaultPageBytes = 4 << 20
	// firstPageKeys is the limit of a scan's first request, before any
	// key size is known.
	firstPageKeys = 1000
)

// Instance is a connected Milvus instance.
type Instance struct {
	cli    *clientv3.Client
	Layout models.Layout
	// Endpoints are the etcd addresses, for messages.
	Endpoints []string
	// PageSize is the most keys per range request (0: DefaultPageSize),
	// PageBytes the bytes a page aims at (0: DefaultPageBytes).
	PageSize  int
	PageBytes int
	// FirstPage is the most keys of a scan's first page, before any key
	// size is known (0: firstPageKeys): small for large values.
	FirstPage int
	// User is the etcd user of the connection ("": no auth).
	User string
	// Notice receives "waiting for etcd" when a request waits longer than
	// NoticeAfter (nil: silent); RequestTimeout bounds every request. Zero
	// durations are DefaultNoticeAfter and DefaultRequestTimeout.
	Notice         io.Writer
	NoticeAfter    time.Duration
	RequestTimeout time.Duration
	waiter         *waiter
}

// New wraps a connected client.
func New(cli *clientv3.Client, layout models.Layout, endpoints []string) *Instance {
	in := &Instance{cli: cli, Layout: layout, Endpoints: endpoints, PageSize: DefaultPageSize, PageBytes: DefaultPageBytes}
	in.waiter = &waiter{in: in}
	if cli != nil {
		if _, wrapped := cli.KV.(*waitKV); !wrapped {
			cli.KV = &waitKV{KV: cli.KV, w: in.waiter}
		}
	}
	return in
}

// pager sizes the pages of one scan by the bytes of the keys it has seen.
type pager struct {
	max, target   int
	limit         int
	keys, byteSum int64
}

func (in *Instance) pager() *pager {
	p := &pager{max: in.PageSize, target: in.PageBytes}
	if p.max <= 0 {
		p.max = DefaultPageSize
	}
	if p.target <= 0 {
		p.target = DefaultPageBytes
	}
	first := in.FirstPage
	if first <= 0 {
		first = firstPageKeys
	}
	p.limit = min(p.max, first)
	return p
}

// saw adapts the limit to a page just read.
func (p *pager) saw(kvs []*mvccpb.KeyValue) {
	if len(kvs) == 0 {
		return
	}
	for _, kv := range kvs {
		p.byteSum += int64(len(kv.Key) + len(kv.Value) + 16)
	}
	p.keys += int64(len(kvs))
	mean := max(1, p.byteSum/p.keys)
	p.limit = int(min(int64(p.max), max(1, int64(p.target)/mean)))
}

// KV is one key read from etcd, with the key relative to the meta root when
// it lies under it.
type KV struct {
	Key         string
	Value       []byte
	ModRevision int64
	// CreateRevision is the revision the key was created at (Scan sets it).
	CreateRevision int64
	Lease          int64
}

// Revision returns the current revision of etcd: reads pinned to it see one snapshot.
func (in *Instance) Revision(ctx context.Context) (int64, error) {
	resp, err := in.cli.Get(ctx, in.Layout.MetaRoot(), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("read etcd revision: %w", err)
	}
	return resp.Header.Revision, nil
}

// ScanMeta scans a prefix relative to the meta root; keys passed to fn stay absolute.
func (in *Instance) ScanMeta(ctx context.Context, rel string, rev int64, fn func(page []KV) error) (int64, error) {
	return in.Scan(ctx, in.Layout.Meta(rel), rev, fn)
}

// Get reads one absolute key at revision rev (0: current). ok is false when absent.
func (in *Instance) Get(ctx context.Context, key string, rev int64) (KV, bool, error) {
	var opts []clientv3.OpOption
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	resp, err := in.cli.Get(ctx, key, opts...)
	if err != nil {
		return KV{}, false, fmt.Errorf("read %s: %w", key, compacted(rev, err))
	}
	if len(resp.Kvs) == 0 {
		return KV{}, false, nil
	}
	return kvOf(resp.Kvs[0]), true, nil
}

// kvOf is etcd's key-value as heron holds it. The key is a string over the
// response's key bytes, not a copy (a million per scan): the response
// decoder gives each key bytes of its own (mvccpb's Unmarshal appends
// them to a nil slice, api/v3 v3.6.5 kv.pb.go), and nothing writes to a
// response.
func kvOf(kv *mvccpb.KeyValue) KV {
	return KV{Key: unsafe.String(unsafe.SliceData(kv.Key), len(kv.Key)), Value: kv.Value, ModRevision: kv.ModRevision,
		CreateRevision: kv.CreateRevision, Lease: kv.Lease}
}

// kvsOf is a page of etcd's key-values as heron holds them.
func kvsOf(kvs []*mvccpb.KeyValue) []KV {
	page := make([]KV, len(kvs))
	for i, kv := range kvs {
		page[i] = kvOf(kv)
	}
	return page
}

// Count is the number of keys under the absolute prefix at revision rev (0: current).
func (in *Instance) Count(ctx context.Context, prefix string, rev int64) (int64, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithCountOnly()}
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	resp, err := in.cli.Get(ctx, prefix, opts...)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", prefix, compacted(rev, err))
	}
	return resp.Count, nil
}

// GetMany reads absolute keys at revision rev (0: current) in one read-only
// transaction: out[i] is keys[i], the zero KV when the key is absent.
func (in *Instance) GetMany(ctx context.Context, keys []string, rev int64) ([]KV, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	var opts []clientv3.OpOption
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	gets := make([]clientv3.Op, len(keys))
	for i, k := range keys {
		gets[i] = clientv3.OpGet(k, opts...)
	}
	resp, err := in.cli.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return nil, fmt.Errorf("read %d keys from %s at revision %d: %w", len(keys), keys[0], rev, compacted(rev, err))
	}
	out := make([]KV, len(keys))
	for i, r := range resp.Responses {
		if rr := r.GetResponseRange(); rr != nil && len(rr.Kvs) > 0 {
			out[i] = kvOf(rr.Kvs[0])
		}
	}
	return out, nil
}

// manyReads is the most reads of one read-only transaction of CountMany and
// PrefixMany (etcd refuses more than its --max-txn-ops, 128 by default).
const manyReads = 64

// CountMany is the number of keys under each absolute prefix at revision
// rev (> 0), in read-only transactions of at most manyReads reads.
func (in *Instance) CountMany(ctx context.Context, prefixes []string, rev int64) ([]int64, error) {
	out := make([]int64, 0, len(prefixes))
	err := in.rangeMany(ctx, "count", prefixes, rev, []clientv3.OpOption{clientv3.WithCountOnly()}, func(rr *etcdserverpb.RangeResponse) bool {
		out = append(out, rr.GetCount())
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PrefixMany reads the keys under each absolute prefix at revision rev
// (> 0), at most limit of each, in read-only transactions of at most
// manyReads reads: pages[i] is prefixes[i]'s, in key order. more reports a
// prefix that holds more than limit keys (pages is then nil: read it
// otherwise).
func (in *Instance) PrefixMany(ctx context.Context, prefixes []string, rev int64, limit int) (pages [][]KV, more bool, err error) {
	pages = make([][]KV, 0, len(prefixes))
	err = in.rangeMany(ctx, "read", prefixes, rev, []clientv3.OpOption{clientv3.WithLimit(int64(limit))}, func(rr *etcdserverpb.RangeResponse) bool {
		if more = rr.GetMore(); more {
			return false
		}
		pages = append(pages, kvsOf(rr.GetKvs()))
		return true
	})
	if err != nil || more {
		return nil, more, err
	}
	return pages, false, nil
}

// rangeMany reads each absolute prefix at revision rev with opts, in
// read-only transactions of at most manyReads reads, and hands fn each
// answer in order until fn returns false.
func (in *Instance) rangeMany(ctx context.Context, verb string, prefixes []string, rev int64, opts []clientv3.OpOption, fn func(*etcdserverpb.RangeResponse) bool) error {
	opts = append(opts, clientv3.WithPrefix(), clientv3.WithRev(rev))
	for chunk := range slices.Chunk(prefixes, manyReads) {
		gets := make([]clientv3.Op, len(chunk))
		for i, p := range chunk {
			gets[i] = clientv3.OpGet(p, opts...)
		}
		resp, err := in.cli.Txn(ctx).Then(gets...).Commit()
		if err != nil {
			return fmt.Errorf("%s %d prefixes from %s at revision %d: %w", verb, len(chunk), chunk[0], rev, compacted(rev, err))
		}
		for _, r := range resp.Responses {
			if !fn(r.GetResponseRange()) {
				return nil
			}
		}
	}
	return nil
}

// Txn starts a transaction: the write path of framework/apply (an Instance
// is an apply.Store).
func (in *Instance) Txn(ctx context.Context) clientv3.Txn { return in.cli.Txn(ctx) }

// WithPageSize is a copy of the instance whose scans read at most n keys a
// page (0: the instance's own).
func (in *Instance) WithPageSize(n int) *Instance {
	c := *in
	if n > 0 {
		c.PageSize = n
	}
	return &c
}

// WithFirstPage is a copy of the instance whose scans read at most n keys
// in their first page (0: the instance's own), then pages sized by bytes:
// for values that may be large (collection schemas).
func (in *Instance) WithFirstPage(n int) *Instance {
	c := *in
	if n > 0 {
		c.FirstPage = n
	}
	return &c
}

// Close closes the client.
func (in *Instance) Close() error { return in.cli.Close() }

// Entry is a key under the meta root, read at a pinned revision and classified.
type Entry struct {
	KV
	models.Key
}

// Walk scans each prefix (relative to the meta root) in turn at revision rev
// (0: the current one), a page at a time, and calls fn for every key with its
// classification. It returns the revision read at, so a caller can pin later
// reads to the same snapshot. Several prefixes (a scan's per-pchannel
// records) are read together first, in read-only transactions of at most
// manyReads ranges that hold at most a page in all: a range request costs
// etcd a round of its own whatever it returns, and most such prefixes hold
// a few keys; one that holds more is then scanned alone, in its turn.
func (in *Instance) Walk(ctx context.Context, rev int64, prefixes []string, fn func(e Entry) error) (int64, error) {
	if rev == 0 {
		r, err := in.Revision(ctx)
		if err != nil {
			return 0, err
		}
		rev = r
	}
	each := func(page []KV) error {
		for _, kv := range page {
			rel, _ := in.Layout.Rel(kv.Key)
			if err := fn(Entry{KV: kv, Key: models.Classify(rel)}); err != nil {
				return err
			}
		}
		return nil
	}
	switch len(prefixes) {
	case 0:
		return rev, nil
	case 1:
		_, err := in.ScanMeta(ctx, prefixes[0], rev, each)
		return rev, err
	}
	// The segment prefix (nearly every key of an instance) is scanned
	// alone, in its turn: a limited range of it in a transaction costs
	// etcd a count of every segment before the scan reads them again,
	// where Scan's first window counts about a page (prefixWindows).
	if i := slices.Index(prefixes, models.SegmentPrefix); i >= 0 {
		if _, err := in.Walk(ctx, rev, prefixes[:i], fn); err != nil {
			return rev, err
		}
		if _, err := in.ScanMeta(ctx, prefixes[i], rev, each); err != nil {
			return rev, err
		}
		return in.Walk(ctx, rev, prefixes[i+1:], fn)
	}
	limit := max(1, in.pager().limit/min(len(prefixes), manyReads))
	for chunk := range slices.Chunk(prefixes, manyReads) {
		abs := make([]string, len(chunk))
		for i, p := range chunk {
			abs[i] = in.Layout.Meta(p)
		}
		i := 0
		var werr error
		err := in.rangeMany(ctx, "read", abs, rev, []clientv3.OpOption{clientv3.WithLimit(int64(limit))}, func(rr *etcdserverpb.RangeResponse) bool {
			if rr.GetMore() {
				_, werr = in.ScanMeta(ctx, chunk[i], rev, each)
			} else {
				werr = each(kvsOf(rr.GetKvs()))
			}
			i++
			return werr == nil
		})
		if err == nil {
			err = werr
		}
		if err != nil {
			return rev, err
		}
	}
	return rev, nil
}
