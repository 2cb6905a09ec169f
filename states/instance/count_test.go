package instance

import (
	"context"
	"fmt"
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
	kv := &countingKV{KV: cli.KV}
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
		kv.counted = 0
		got, err := New(&c, models.NewLayout(c0.root, "meta"), nil).HasMeta(ctx)
		if err != nil || got != c0.want {
			t.Fatalf("%s: HasMeta = %v, %v; want %v", c0.root, got, err, c0.want)
		}
		if kv.counted > c0.mostKeys {
			t.Errorf("%s: etcd counted %d keys to find the meta root, want at most %d", c0.root, kv.counted, c0.mostKeys)
		}
	}
}
