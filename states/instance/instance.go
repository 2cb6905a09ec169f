// Package instance is a connection to the etcd of one Milvus instance: the
// client, the key layout, and paginated reads pinned to one revision. Every
// namespace under states/ reads etcd through it.
package instance

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
)

// DefaultPageSize is how many keys one range request returns: it bounds the
// memory of every scan.
const DefaultPageSize = 1000

// Instance is a connected Milvus instance.
type Instance struct {
	Client *clientv3.Client
	Layout models.Layout
	// Endpoints are the etcd addresses, for messages.
	Endpoints []string
	PageSize  int
}

// New wraps a connected client.
func New(cli *clientv3.Client, layout models.Layout, endpoints []string) *Instance {
	return &Instance{Client: cli, Layout: layout, Endpoints: endpoints, PageSize: DefaultPageSize}
}

// KV is one key read from etcd, with the key relative to the meta root when
// it lies under it.
type KV struct {
	Key         string
	Value       []byte
	ModRevision int64
	Lease       int64
}

// Revision returns the current revision of etcd: reads pinned to it see one snapshot.
func (in *Instance) Revision(ctx context.Context) (int64, error) {
	resp, err := in.Client.Get(ctx, in.Layout.MetaRoot(), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("read etcd revision: %w", err)
	}
	return resp.Header.Revision, nil
}

// Scan reads every key under the absolute prefix at revision rev (0: the
// current one), a page at a time, and calls fn with each page. It returns the
// revision it read at. Keys in the page are absolute.
func (in *Instance) Scan(ctx context.Context, prefix string, rev int64, fn func(page []KV) error) (int64, error) {
	return in.ScanRange(ctx, prefix, clientv3.GetPrefixRangeEnd(prefix), rev, fn)
}

// ScanRange reads the keys in [from, end) at revision rev a page at a time.
func (in *Instance) ScanRange(ctx context.Context, from, end string, rev int64, fn func(page []KV) error) (int64, error) {
	size := in.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	key := from
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(int64(size))}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := in.Client.Get(ctx, key, opts...)
		if err != nil {
			return rev, fmt.Errorf("read %s: %w", from, err)
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		page := make([]KV, len(resp.Kvs))
		for i, kv := range resp.Kvs {
			page[i] = KV{Key: string(kv.Key), Value: kv.Value, ModRevision: kv.ModRevision, Lease: kv.Lease}
		}
		if len(page) > 0 {
			if err := fn(page); err != nil {
				return rev, err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return rev, nil
		}
		key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
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
	resp, err := in.Client.Get(ctx, key, opts...)
	if err != nil {
		return KV{}, false, fmt.Errorf("read %s: %w", key, err)
	}
	if len(resp.Kvs) == 0 {
		return KV{}, false, nil
	}
	kv := resp.Kvs[0]
	return KV{Key: string(kv.Key), Value: kv.Value, ModRevision: kv.ModRevision, Lease: kv.Lease}, true, nil
}

// Close closes the client.
func (in *Instance) Close() error { return in.Client.Close() }

// Entry is a key under the meta root, read at a pinned revision and classified.
type Entry struct {
	KV
	models.Key
}

// Walk scans each prefix (relative to the meta root) in turn at revision rev
// (0: the current one), a page at a time, and calls fn for every key with its
// classification. It returns the revision read at, so a caller can pin later
// reads to the same snapshot.
func (in *Instance) Walk(ctx context.Context, rev int64, prefixes []string, fn func(e Entry) error) (int64, error) {
	if rev == 0 {
		r, err := in.Revision(ctx)
		if err != nil {
			return 0, err
		}
		rev = r
	}
	for _, prefix := range prefixes {
		_, err := in.ScanMeta(ctx, prefix, rev, func(page []KV) error {
			for _, kv := range page {
				rel, _ := in.Layout.Rel(kv.Key)
				if err := fn(Entry{KV: kv, Key: models.Classify(rel)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return rev, err
		}
	}
	return rev, nil
}
