package instance

import (
	"context"
	"fmt"
	"sort"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
)

// MaxRoots and MaxRootScan bound the search for the root paths that hold
// metadata in the message of a root path that holds none.
const (
	MaxRoots    = 50
	MaxRootScan = 1000
)

// HasMeta reports whether any key lies under the meta root.
func (in *Instance) HasMeta(ctx context.Context) (bool, error) {
	return hasMeta(ctx, in.cli, in.Layout.RootPath, in.Layout.MetaPath)
}

// hasMeta reads the meta root of root in windows: etcd answers a range
// read of one key only after counting every key of the range, and the
// segments and the WAL records are nearly all of an instance's keys
// (O(segments)). The rest of the meta root comes first, the two large
// prefixes only when it is empty: connect costs one read of a limited
// count, not a count of the whole instance.
func hasMeta(ctx context.Context, cli *clientv3.Client, root, meta string) (bool, error) {
	p := root + "/" + meta + "/"
	segs, wal := p+models.SegmentPrefix, p+models.WALPrefix
	for _, w := range [][2]string{
		{p, segs},
		{clientv3.GetPrefixRangeEnd(segs), wal},
		{clientv3.GetPrefixRangeEnd(wal), clientv3.GetPrefixRangeEnd(p)},
		{segs, clientv3.GetPrefixRangeEnd(segs)},
		{wal, clientv3.GetPrefixRangeEnd(wal)},
	} {
		resp, err := cli.Get(ctx, w[0], clientv3.WithRange(w[1]), clientv3.WithLimit(1), clientv3.WithKeysOnly())
		if err != nil {
			return false, err
		}
		if len(resp.Kvs) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// NoMetaError is the refusal of a root path without metadata: it lists the
// root paths of this etcd that hold some (at most MaxRoots, found in the
// first MaxRootScan top-level prefixes).
func (in *Instance) NoMetaError(ctx context.Context) error {
	layout := in.Layout
	msg := fmt.Sprintf("root path %q holds no Milvus metadata (no key under %s)", layout.RootPath, layout.MetaRoot())
	roots, complete, err := in.FindRoots(ctx, MaxRoots, MaxRootScan)
	switch {
	case err != nil:
		return fmt.Errorf("%s; listing the root paths failed: %v", msg, err)
	case len(roots) == 0 && complete:
		return fmt.Errorf("%s; no root path in this etcd holds metadata under */%s/ (use --force to connect anyway)", msg, layout.MetaPath)
	case len(roots) == 0:
		return fmt.Errorf("%s; none found in the first %d top-level prefixes (use --force to connect anyway)", msg, MaxRootScan)
	}
	more := ""
	if !complete {
		more = ", ..."
	}
	return fmt.Errorf("%s; root paths with Milvus metadata: %s%s (pass one with --rootPath, or --force)", msg, strings.Join(roots, ", "), more)
}

// FindRoots lists, sorted, the first path segments X of the keyspace for
// which X/{MetaPath}/ holds a key (MetaPath of the instance's layout),
// without loading the keyspace (Segments). complete is false when it stopped
// at maxRoots roots or after maxScan requests.
func (in *Instance) FindRoots(ctx context.Context, maxRoots, maxScan int) (roots []string, complete bool, err error) {
	segs, complete, err := in.Segments(ctx, "", 0, maxScan)
	if err != nil {
		return nil, false, err
	}
	for _, seg := range segs {
		if len(roots) >= maxRoots {
			sort.Strings(roots)
			return roots, false, nil
		}
		found, err := hasMeta(ctx, in.cli, seg, in.Layout.MetaPath)
		if err != nil {
			return roots, false, err
		}
		if found {
			roots = append(roots, seg)
		}
	}
	sort.Strings(roots)
	return roots, complete, nil
}

// Segments lists, in key order, the distinct path segments X such that a key
// prefix+X+"/"... exists at revision rev (0: current), without loading the
// keys: it reads one key (keys only), takes its segment, then jumps past
// that segment's keys, so it costs one request per segment. Keys with no
// '/' after prefix are skipped, a request each. complete is false when it
// stopped after max requests.
//
// etcd answers a read of one key only after counting every key of its
// range: each read's range ends at the next segment of skip (segments the
// caller knows of, neither read nor listed: the instance's own meta root,
// nearly all of its keys), so that the listing counts the keys around
// them, not theirs.
func (in *Instance) Segments(ctx context.Context, prefix string, rev int64, max int, skip ...string) (segs []string, complete bool, err error) {
	from := prefix
	if from == "" {
		from = "\x00"
	}
	end := "\x00" // etcd's "every key from here on"
	if prefix != "" {
		end = clientv3.GetPrefixRangeEnd(prefix)
	}
	skipped := make([]string, len(skip))
	for i, s := range skip {
		skipped[i] = prefix + s + "/"
	}
	sort.Strings(skipped)
	opts := []clientv3.OpOption{clientv3.WithLimit(1), clientv3.WithKeysOnly()}
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	for reads := 0; ; reads++ {
		if reads >= max {
			return segs, false, nil
		}
		// The range ends at the next skipped subtree, if any.
		to, next := end, ""
		if i := sort.SearchStrings(skipped, from); i < len(skipped) && (end == "\x00" || skipped[i] < end) {
			to, next = skipped[i], skipped[i]
		}
		resp, err := in.cli.Get(ctx, from, append(opts, clientv3.WithRange(to))...)
		if err != nil {
			return segs, false, fmt.Errorf("list %s*/: %w", prefix, compacted(rev, err))
		}
		if len(resp.Kvs) == 0 {
			if next == "" {
				return segs, true, nil
			}
			from = clientv3.GetPrefixRangeEnd(next)
			continue
		}
		key := string(resp.Kvs[0].Key)
		seg, _, hasSlash := strings.Cut(strings.TrimPrefix(key, prefix), "/")
		if !hasSlash {
			// A key without '/': the next key may share its start ("x-y/...").
			from = key + "\x00"
			continue
		}
		from = clientv3.GetPrefixRangeEnd(prefix + seg + "/")
		if seg != "" {
			segs = append(segs, seg)
		}
	}
}
