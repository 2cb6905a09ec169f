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
	return kvsOf(resp.Kvs), resp.More, nil
}

// RangeKeys reads the keys in [from, to) at revision rev (> 0) without
// their values, a page at a time, and calls fn with each page, in key order:
// by windows of the range, as ScanKeys reads a prefix (a limited range
// request costs etcd a count of every key up to the range's end).
func (in *Instance) RangeKeys(ctx context.Context, from, to string, rev int64, fn func(page []KV) error) error {
	_, err := in.scan(ctx, from+" to "+to, rangeWindows(from, to), rev, []clientv3.OpOption{clientv3.WithKeysOnly()}, fn)
	return err
}

// PrefixEnd is the first key after every key under prefix: etcd's range
// end of the prefix.
func PrefixEnd(prefix string) string { return clientv3.GetPrefixRangeEnd(prefix) }
