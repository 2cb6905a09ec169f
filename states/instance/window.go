package instance

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// etcd answers a range request with a limit only after counting every key up
// to the range end, so paging [from, prefixEnd) with a limit costs O(keys
// left) per page and O(n²/page) for a whole prefix: seconds per 200k keys at
// 1,000 keys a page, minutes for a million. Scan reads windows
// [from, to) that end where a subtree of the key hierarchy ends (the keys
// that share the first j bytes of the last key read), and adapts j: one byte
// longer when a window held more than a page, one byte shorter when it held
// less than a quarter of one. A scan then costs O(n) etcd work.

// Scan reads every key under the absolute prefix at revision rev (0: the
// current one), a page at a time, calls fn with each page (keys absolute),
// and returns the revision it read at, in O(n) etcd work. Pages
// may be shorter than PageSize; keys come in order, each exactly once.
func (in *Instance) Scan(ctx context.Context, prefix string, rev int64, fn func(page []KV) error) (int64, error) {
	return in.scan(ctx, prefix, rev, nil, fn)
}

// ScanKeys is Scan without the values (each KV's Value is nil).
func (in *Instance) ScanKeys(ctx context.Context, prefix string, rev int64, fn func(page []KV) error) (int64, error) {
	return in.scan(ctx, prefix, rev, []clientv3.OpOption{clientv3.WithKeysOnly()}, fn)
}

func (in *Instance) scan(ctx context.Context, prefix string, rev int64, extra []clientv3.OpOption, fn func(page []KV) error) (int64, error) {
	pg := in.pager()
	end := clientv3.GetPrefixRangeEnd(prefix)
	from := prefix
	j := 0 // 0: the window is the whole rest of the range
	for {
		to := windowEnd(from, j, len(prefix), end)
		size := pg.limit
		opts := append([]clientv3.OpOption{clientv3.WithRange(to), clientv3.WithLimit(int64(size))}, extra...)
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := in.cli.Get(ctx, from, opts...)
		if err != nil {
			return rev, fmt.Errorf("read %s: %w", prefix, compacted(rev, err))
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		pg.saw(resp.Kvs)
		if len(resp.Kvs) > 0 {
			page := make([]KV, len(resp.Kvs))
			for i, kv := range resp.Kvs {
				page[i] = KV{Key: string(kv.Key), Value: kv.Value, ModRevision: kv.ModRevision, CreateRevision: kv.CreateRevision, Lease: kv.Lease}
			}
			if err := fn(page); err != nil {
				return rev, err
			}
		}
		switch {
		case resp.More:
			// More than a page in the window: go on after the last key,
			// within the subtree one level below the page's common prefix.
			first, last := string(resp.Kvs[0].Key), string(resp.Kvs[len(resp.Kvs)-1].Key)
			j = min(max(commonPrefix(first, last)+1, j+1), len(last))
			from = last + "\x00"
		case to == end:
			return rev, nil
		default:
			// The whole window was read: the next one is its next sibling,
			// or the rest of its parent when this one was sparse.
			if n := len(resp.Kvs); (n == 0 || 4*n < size) && j > len(prefix)+1 {
				j--
			}
			from = to
		}
	}
}

// windowEnd is the end of the subtree of keys sharing from's first j bytes,
// bounded by end; the whole range when j does not name a subtree under prefix.
func windowEnd(from string, j, prefixLen int, end string) string {
	if j <= prefixLen || j > len(from) {
		if j > len(from) && len(from) > prefixLen {
			j = len(from)
		} else {
			return end
		}
	}
	to := clientv3.GetPrefixRangeEnd(from[:j])
	if to == "\x00" || to > end || to <= from {
		return end
	}
	return to
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
