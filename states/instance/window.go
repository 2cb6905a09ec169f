package instance

import (
	"bytes"
	"context"
	"fmt"
	"math/big"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
)

// etcd answers a range request with a limit only after counting every key up
// to the range end, so paging [from, prefixEnd) with a limit costs O(keys
// left) per page and O(n²/page) for a whole prefix: about 25 s per 200k keys
// at 1,000 keys a page, minutes for a million. ScanWindowed pages through
// windows [from, to) sized to hold about one page, estimated from the key
// density of the page before, so a scan costs O(n).

// windowPrecision is how many key bytes after the prefix place a key in the
// key space when window bounds are computed.
const windowPrecision = 128

// ScanWindowed is Scan (pages of keys under the absolute prefix at revision
// rev, 0: current; returns the revision read at) in O(n) etcd work. Pages
// may be shorter than PageSize; keys come in order, each exactly once.
func (in *Instance) ScanWindowed(ctx context.Context, prefix string, rev int64, fn func(page []KV) error) (int64, error) {
	size := in.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	end := clientv3.GetPrefixRangeEnd(prefix)
	space := newKeySpace(prefix)
	from := prefix
	var width *big.Int // nil: the first request spans the whole range
	for {
		to := end
		if width != nil {
			if t, ok := space.add(from, width); ok && t < end {
				to = t
			}
		}
		opts := []clientv3.OpOption{clientv3.WithRange(to), clientv3.WithLimit(int64(size))}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := in.Client.Get(ctx, from, opts...)
		if err != nil {
			return rev, fmt.Errorf("read %s: %w", prefix, err)
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		if len(resp.Kvs) > 0 {
			page := make([]KV, len(resp.Kvs))
			for i, kv := range resp.Kvs {
				page[i] = KV{Key: string(kv.Key), Value: kv.Value, ModRevision: kv.ModRevision, Lease: kv.Lease}
			}
			if err := fn(page); err != nil {
				return rev, err
			}
		}
		switch {
		case resp.More:
			// The window held more than a page: go on after the last key,
			// with a window about 3/4 as wide as the keys this page covered.
			first, last := string(resp.Kvs[0].Key), string(resp.Kvs[len(resp.Kvs)-1].Key)
			width = space.distance(first, last)
			width.Mul(width, big.NewInt(3))
			width.Rsh(width, 2)
			from = last + "\x00"
		case to == end:
			return rev, nil
		default:
			// The whole window was read: move on with a window sized for
			// 3/4 of a page at the density just seen (at most 8 times wider).
			n := int64(len(resp.Kvs))
			w := space.distance(from, to)
			if n == 0 || 8*n < int64(size) {
				w.Lsh(w, 3)
			} else {
				w.Mul(w, big.NewInt(3*int64(size)))
				w.Div(w, big.NewInt(4*n))
			}
			width = w
			from = to
		}
	}
}

// WalkWindowed is Walk over ScanWindowed.
func (in *Instance) WalkWindowed(ctx context.Context, rev int64, prefixes []string, fn func(e Entry) error) (int64, error) {
	if rev == 0 {
		r, err := in.Revision(ctx)
		if err != nil {
			return 0, err
		}
		rev = r
	}
	for _, prefix := range prefixes {
		_, err := in.ScanWindowed(ctx, in.Layout.Meta(prefix), rev, func(page []KV) error {
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

// keySpace maps the keys under a prefix to numbers: the windowPrecision
// bytes after the prefix, big-endian, zero-padded.
type keySpace struct{ prefix string }

func newKeySpace(prefix string) keySpace { return keySpace{prefix: prefix} }

func (s keySpace) num(key string) *big.Int {
	var b [windowPrecision]byte
	if len(key) > len(s.prefix) {
		copy(b[:], key[len(s.prefix):])
	}
	return new(big.Int).SetBytes(b[:])
}

// distance is num(b)-num(a), at least 1.
func (s keySpace) distance(a, b string) *big.Int {
	d := new(big.Int).Sub(s.num(b), s.num(a))
	if d.Sign() <= 0 {
		d.SetInt64(1)
	}
	return d
}

// add returns the key at num(from)+width; ok is false past the key space.
func (s keySpace) add(from string, width *big.Int) (string, bool) {
	n := new(big.Int).Add(s.num(from), width)
	if n.BitLen() > 8*windowPrecision {
		return "", false
	}
	var b [windowPrecision]byte
	n.FillBytes(b[:])
	key := s.prefix + string(bytes.TrimRight(b[:], "\x00"))
	if key <= from {
		return "", false
	}
	return key, true
}
