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
