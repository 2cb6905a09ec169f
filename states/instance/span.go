package instance

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Span reads the keys in [from, to) at revision rev (> 0), at most limit of
// them, with one range request, in key order: a run of consecutive keys
// costs etcd one range, not one read each (GetMany). more reports keys of
// the range after the last one returned.
func (in *Instance) Span(ctx context.Context, from, to string, rev int64, limit int) (kvs []KV, more bool, err error) {
	resp, err := in.cli.Get(ctx, from, clientv3.WithRange(to), clientv3.WithRev(rev), clientv3.WithLimit(int64(max(limit, 1))))
	if err != nil {
		return nil, false, fmt.Errorf("read %s to %s at revision %d: %w", from, to, rev, compacted(rev, err))
	}
	kvs = make([]KV, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		kvs[i] = kvOf(kv)
	}
	return kvs, resp.More, nil
}
