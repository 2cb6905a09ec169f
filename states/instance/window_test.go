package instance

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

func putAll(t testing.TB, cli *clientv3.Client, keys []string) {
	t.Helper()
	var ops []clientv3.Op
	for i, k := range keys {
		ops = append(ops, clientv3.OpPut(k, "v"+k))
		if len(ops) == 128 || i == len(keys)-1 {
			if _, err := cli.Txn(context.Background()).Then(ops...).Commit(); err != nil {
				t.Fatal(err)
			}
			ops = ops[:0]
		}
	}
}

func TestScanSeesEveryKeyOnce(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	r := rand.New(rand.NewSource(1))
	seen := map[string]bool{}
	var keys []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	// Milvus-like segment keys, clustered ids, long keys, odd bytes.
	for i := 0; i < 3000; i++ {
		coll := 449000000000000000 + int64(r.Intn(20))
		add(fmt.Sprintf("r/m/s/%d/%d/%d", coll, coll+1, coll+1000+int64(r.Intn(1000000))))
	}
	for i := 0; i < 300; i++ {
		add(fmt.Sprintf("r/m/s/%d", r.Intn(100)))
		add("r/m/s/" + string([]byte{byte(r.Intn(256)), byte(r.Intn(256))}))
		add(fmt.Sprintf("r/m/s/long/%0200d", r.Int63()))
	}
	add("r/m/s/")
	add("r/m/s/\xff\xff\xff")
	add("r/m/t/outside")
	add("r/m/r/outside")
	putAll(t, cli, keys)
	in := New(cli, models.NewLayout("r", "m"), nil)
	for _, size := range []int{2, 7, 100, 1000} {
		in.PageSize = size
		var got []string
		_, err := in.Scan(context.Background(), "r/m/s/", 0, func(page []KV) error {
			for _, kv := range page {
				got = append(got, kv.Key)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, k := range keys {
			if len(k) >= 6 && k[:6] == "r/m/s/" {
				want = append(want, k)
			}
		}
		sort.Strings(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("page %d: got %d keys, want %d", size, len(got), len(want))
		}
		// RangeKeys reads ranges by the same windows: from and to anywhere
		// (inside an id, after a key), every key of [from, to) once.
		resp, err := cli.Get(context.Background(), "r/")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			a, b := want[r.Intn(len(want))], want[r.Intn(len(want))]
			if a > b {
				a, b = b, a
			}
			from, to := a[:len(a)-r.Intn(3)], b+"\x00"
			var got, inRange []string
			if err := in.RangeKeys(context.Background(), from, to, resp.Header.Revision, func(page []KV) error {
				for _, kv := range page {
					got = append(got, kv.Key)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			all := slices.Sorted(slices.Values(keys))
			for _, k := range all {
				if from <= k && k < to {
					inRange = append(inRange, k)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(inRange) {
				t.Fatalf("page %d: RangeKeys %q to %q: got %d keys, want %d", size, from, to, len(got), len(inRange))
			}
		}
	}
}

// BenchmarkScan scans 50,000 segment-like keys (go test -bench Scan
// ./states/instance); make bench times the real scans.
func BenchmarkScan(b *testing.B) {
	cli, _ := etcdtest.Start(b)
	var keys []string
	for i := 0; i < 50000; i++ {
		c := 449000000000000000 + int64(i/100)
		keys = append(keys, fmt.Sprintf("r/m/s/%d/%d/%d", c, c+1, c+int64(i)))
	}
	putAll(b, cli, keys)
	in := New(cli, models.NewLayout("r", "m"), nil)
	for b.Loop() {
		count := 0
		if _, err := in.Scan(context.Background(), "r/m/s/", 0, func(page []KV) error {
			count += len(page)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if count != len(keys) {
			b.Fatalf("%d keys, want %d", count, len(keys))
		}
	}
}

func TestPagesAreSizedByBytes(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	var keys []string
	for i := 0; i < 3000; i++ {
		keys = append(keys, fmt.Sprintf("r/m/s/%04d", i))
	}
	putAll(t, cli, keys)
	in := New(cli, models.NewLayout("r", "m"), nil)
	in.PageBytes = 30 * 50 // about 50 keys of ~30 bytes
	{
		scan := in.Scan
		var sizes []int
		total := 0
		if _, err := scan(context.Background(), "r/m/s/", 0, func(page []KV) error {
			sizes = append(sizes, len(page))
			total += len(page)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if total != 3000 || len(sizes) < 2 {
			t.Fatalf("pages %v", sizes)
		}
		for _, n := range sizes[1:] {
			if n > 100 {
				t.Fatalf("a page of %d keys after the first: %v", n, sizes)
			}
		}
	}
}

// scannedKeys is every key scan (Scan or ScanKeys) reads under prefix.
func scannedKeys(t *testing.T, scan func(context.Context, string, int64, func([]KV) error) (int64, error), prefix string) []string {
	t.Helper()
	var got []string
	if _, err := scan(context.Background(), prefix, 0, func(page []KV) error {
		for _, kv := range page {
			got = append(got, kv.Key)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// A segment scan's first window ends after the segments of a few listed
// collections (prefixWindows); the scan must still see every key once, in
// order, whatever the collection keys miss: segments of collections with
// no key before, between and after the listed ones, ids of other lengths,
// listed collections with no segment, a head window that holds no key.
func TestSegmentScanFromItsHead(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "meta")
	var keys []string
	segments := func(coll int64, n int) {
		for s := 0; s < n; s++ {
			keys = append(keys, layout.Meta(models.SegmentKey(coll, coll+1, coll*1000+int64(s))))
		}
	}
	var listed []string
	list := func(colls ...int64) {
		for _, c := range colls {
			listed = append(listed, layout.Meta(models.CollectionInfoKey(1, c)))
		}
	}
	// Listed: 1000 < 200 < 300 as strings, and 3000..3039 with no segment;
	// not listed: 10 (first), 150 (between), 9 (last).
	list(200, 300, 1000)
	for c := int64(3000); c < 3040; c++ {
		list(c)
	}
	segments(10, 5)
	segments(150, 7)
	segments(1000, 3)
	segments(200, 400)
	segments(300, 2)
	segments(9, 50)
	putAll(t, cli, append(slices.Clone(keys), listed...))
	sort.Strings(keys)
	in := New(cli, layout, nil)
	prefix := layout.Meta(models.SegmentPrefix)

	win, err := in.prefixWindows(context.Background(), prefix, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The 16th smallest listed id as a string (1000, 200, 300, 3000, ...,
	// 3012), then the 43rd and last (3039).
	end := func(c int64) string {
		return clientv3.GetPrefixRangeEnd(layout.Meta(models.CollectionSegmentPrefix(c)))
	}
	if want := []string{end(3012), end(3039)}; !slices.Equal(win.heads, want) {
		t.Fatalf("heads %q, want %q", win.heads, want)
	}
	for _, size := range []int{3, 50, 1000} {
		in.PageSize = size
		got := scannedKeys(t, in.Scan, prefix)
		if !slices.Equal(got, keys) {
			t.Fatalf("page %d: got %d keys, want %d", size, len(got), len(keys))
		}
	}
	// Every listed collection empty: the head window holds only the
	// segments of collections not listed that sort before it.
	if _, err := cli.Delete(context.Background(), layout.Meta(models.CollectionSegmentPrefix(200)), clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Delete(context.Background(), layout.Meta(models.SegmentPrefix+"1"), clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(context.Background(), prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, kv := range resp.Kvs {
		want = append(want, string(kv.Key))
	}
	in.PageSize = 10
	got := scannedKeys(t, in.ScanKeys, prefix)
	if len(want) != 52 || !slices.Equal(got, want) {
		t.Fatalf("after the deletes: got %d keys, want %d (52)", len(got), len(want))
	}
}

// etcd counts every key of a limited range before it answers: a scan of
// the segments (nearly every key of an instance) must not begin with a
// range over all of them, alone (Scan's first windows, prefixWindows, past
// dropped collections too) or among other prefixes (Walk scans it alone,
// in its turn). Counted keys stay within half a scan more than the keys
// read.
func TestSegmentScanCountsAboutWhatItReads(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "meta")
	var keys []string
	for c := int64(0); c < 100; c++ {
		coll := 451234567890000000 + c
		keys = append(keys, layout.Meta(models.CollectionInfoKey(1, coll)), layout.Meta(models.ChannelCPKey(fmt.Sprintf("by-dev-rootcoord-dml_0_%dv0", coll))))
		for s := int64(0); s < 50; s++ {
			keys = append(keys, layout.Meta(models.SegmentKey(coll, coll+1, coll*100+s)))
		}
	}
	// Twenty dropped collections whose ids sort first: their keys (here
	// tombstones) outlive their segments, and the first window holds none.
	var dropped []string
	for c := int64(100); c < 120; c++ {
		dropped = append(dropped, layout.Meta(models.CollectionInfoKey(1, c)))
	}
	putAll(t, cli, keys)
	putAll(t, cli, dropped)
	keys = append(keys, dropped...)
	kv := etcdtest.NewCountingKV(cli.KV)
	c := *cli
	c.KV = kv
	in := New(&c, layout, nil)
	in.PageSize = 500
	var scanned int64
	if _, err := in.Scan(context.Background(), layout.Meta(models.SegmentPrefix), 0, func(page []KV) error {
		scanned += int64(len(page))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if scanned != 5000 || kv.Counted > 7500 {
		t.Fatalf("Scan: %d segments read, %d keys counted (want 5000, at most 7500)", scanned, kv.Counted)
	}
	kv.Counted = 0
	var walked int
	if _, err := in.Walk(context.Background(), 0, []string{models.CollectionInfoPrefix, models.SegmentPrefix, models.ChannelCPPrefix}, func(Entry) error {
		walked++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if walked != len(keys) || kv.Counted > int64(len(keys))*3/2 {
		t.Fatalf("Walk: %d keys read, %d counted (want %d, at most %d)", walked, kv.Counted, len(keys), len(keys)*3/2)
	}
}
