package instance

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Count counts at the revision asked for, under the prefix only.
func TestCountAtRevision(t *testing.T) {
	cli, endpoint := etcdtest.Start(t)
	in := New(cli, models.NewLayout("by-dev", "meta"), []string{endpoint})
	putAll(t, cli, []string{"by-dev/meta/a/1", "by-dev/meta/a/2", "by-dev/meta/ab", "by-dev/meta/b"})
	ctx := context.Background()
	rev, err := in.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	putAll(t, cli, []string{"by-dev/meta/a/3"})
	for _, c := range []struct {
		prefix string
		rev    int64
		want   int64
	}{{"by-dev/meta/a/", rev, 2}, {"by-dev/meta/a/", 0, 3}, {"by-dev/meta/a", rev, 3}, {"by-dev/meta/z", 0, 0}} {
		got, err := in.Count(ctx, c.prefix, c.rev)
		if err != nil || got != c.want {
			t.Errorf("Count(%q, %d) = %d, %v; want %d", c.prefix, c.rev, got, err, c.want)
		}
	}
}

// CountMany and PrefixMany read many prefixes at one revision, more than
// one transaction holds (etcd's --max-txn-ops); PrefixMany says when a
// prefix holds more keys than its limit.
func TestCountManyAndPrefixMany(t *testing.T) {
	cli, endpoint := etcdtest.Start(t)
	in := New(cli, models.NewLayout("by-dev", "meta"), []string{endpoint})
	var keys, prefixes []string
	for i := range 150 {
		p := fmt.Sprintf("by-dev/meta/p%03d/", i)
		prefixes = append(prefixes, p)
		for j := range i % 3 {
			keys = append(keys, fmt.Sprintf("%s%d", p, j))
		}
	}
	putAll(t, cli, keys)
	ctx := context.Background()
	rev, err := in.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	putAll(t, cli, []string{"by-dev/meta/p000/late"})
	counts, err := in.CountMany(ctx, prefixes, rev)
	if err != nil || len(counts) != len(prefixes) {
		t.Fatalf("CountMany: %v, %d counts", err, len(counts))
	}
	pages, more, err := in.PrefixMany(ctx, prefixes, rev, 2)
	if err != nil || more || len(pages) != len(prefixes) {
		t.Fatalf("PrefixMany: %v, more %v, %d pages", err, more, len(pages))
	}
	for i, p := range prefixes {
		if counts[i] != int64(i%3) || len(pages[i]) != i%3 {
			t.Fatalf("%s: counted %d, read %d, want %d", p, counts[i], len(pages[i]), i%3)
		}
		for j, kv := range pages[i] {
			if kv.Key != fmt.Sprintf("%s%d", p, j) {
				t.Fatalf("%s: key %d is %s", p, j, kv.Key)
			}
		}
	}
	if _, more, err := in.PrefixMany(ctx, prefixes, rev, 1); err != nil || !more {
		t.Fatalf("a prefix of 2 keys, limit 1: more %v, %v", more, err)
	}
}

// HasMeta finds a meta root by any key in it, and counts (etcd counts every
// key of a range it reads one key of) the keys outside the segments and the
// WAL records first: connect on a large instance costs a count of its few
// other keys, not of every segment.
func TestHasMetaCountsNotTheSegments(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	kv := etcdtest.NewCountingKV(cli.KV)
	c := *cli
	c.KV = kv
	var segs, wal []string
	for i := range 2000 {
		segs = append(segs, fmt.Sprintf("big/meta/%s1/2/%d", models.SegmentPrefix, i))
		wal = append(wal, fmt.Sprintf("wal/meta/%sp/vchannel/p_%dv0", models.WALPrefix, i))
	}
	putAll(t, cli, segs)
	putAll(t, cli, wal)
	putAll(t, cli, []string{"big/meta/root-coord/database/db-info/1", "seg/meta/" + models.SegmentPrefix + "1/2/3", "none/metadata/x", "none/meta"})
	ctx := context.Background()
	for _, c0 := range []struct {
		root     string
		want     bool
		mostKeys int64
	}{{"big", true, 1}, {"wal", true, 2000}, {"seg", true, 1}, {"none", false, 0}} {
		kv.Counted = 0
		got, err := New(&c, models.NewLayout(c0.root, "meta"), nil).HasMeta(ctx)
		if err != nil || got != c0.want {
			t.Fatalf("%s: HasMeta = %v, %v; want %v", c0.root, got, err, c0.want)
		}
		if kv.Counted > c0.mostKeys {
			t.Errorf("%s: etcd counted %d keys to find the meta root, want at most %d", c0.root, kv.Counted, c0.mostKeys)
		}
	}
}

// Issue 25: a listing of the path segments under a root path (woodpecker's
// search for a woodpecker.meta.prefix set only in milvus.yaml) read one
// key past each segment, and etcd counted every key from there to the end
// of the range: the instance's meta root, whole, about once per segment
// before it (at 1M segments, seconds before the scan). The instance's own
// subtree is skipped: the listing counts the keys around it.
func TestSegmentsCountsNotTheSkipped(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	kv := etcdtest.NewCountingKV(cli.KV)
	c := *cli
	c.KV = kv
	var meta []string
	for i := range 2000 {
		meta = append(meta, fmt.Sprintf("by-dev/meta/%s1/2/%d", models.SegmentPrefix, i))
	}
	putAll(t, cli, meta)
	putAll(t, cli, []string{"by-dev/config/a", "by-dev/kv/gid/x", "by-dev/meta-other/x", "by-dev/metax", "by-dev/wp/logs/p", "other/meta/x", "zzz/y"})
	inst := New(&c, models.NewLayout("by-dev", "meta"), nil)
	ctx := context.Background()
	for _, tc := range []struct {
		prefix, skip string
		want         []string
	}{
		{"by-dev/", "meta", []string{"config", "kv", "meta-other", "wp"}},
		{"", "by-dev", []string{"other", "zzz"}},
	} {
		kv.Counted = 0
		segs, complete, err := inst.Segments(ctx, tc.prefix, 0, 100, tc.skip)
		if err != nil || !complete || !slices.Equal(segs, tc.want) {
			t.Fatalf("Segments(%q, skip %q) = %v, %v, %v; want %v", tc.prefix, tc.skip, segs, complete, err, tc.want)
		}
		if kv.Counted > 20 {
			t.Errorf("Segments(%q, skip %q): etcd counted %d keys, want at most 20 (not the %d under the skipped segment)", tc.prefix, tc.skip, kv.Counted, len(meta))
		}
	}
	// Without skip, the same listing names the meta root (and counts it).
	kv.Counted = 0
	segs, _, err := inst.Segments(ctx, "by-dev/", 0, 100)
	if err != nil || !slices.Contains(segs, "meta") || kv.Counted < int64(len(meta)) {
		t.Fatalf("without skip: %v, %v, counted %d", segs, err, kv.Counted)
	}
}
