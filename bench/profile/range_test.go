package profile

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BenchmarkRangeCost (go test ./bench/profile -run '^$' -bench RangeCost -benchtime 1x -v) times a scan of the segment prefix in pages of 1000 keys
// (HERON_PROFILE_PAGE), in windows of ids sharing their first 16 digits
// (HERON_PROFILE_WINDOW; HERON_PROFILE_ONLY=1: one variant),
// pinned to one revision: linearizable vs serializable reads, and with the
// next page requested while the current one is handed over (prefetch).
func BenchmarkRangeCost(b *testing.B) {
	for b.Loop() {
		rangeCost(b)
	}
}

func rangeCost(t *testing.B) {
	cli, _ := profileClient(t)
	defer cli.Close()
	ctx := context.Background()
	prefix := "by-dev/meta/datacoord-meta/s/"
	end := clientv3.GetPrefixRangeEnd(prefix)
	head, err := cli.Get(ctx, prefix, clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	rev := head.Header.Revision
	page := 1000
	if v, _ := strconv.Atoi(os.Getenv("HERON_PROFILE_PAGE")); v > 0 {
		page = v
	}
	wbytes := 16
	if v, _ := strconv.Atoi(os.Getenv("HERON_PROFILE_WINDOW")); v > 0 {
		wbytes = v
	}
	only := os.Getenv("HERON_PROFILE_ONLY")
	// work stands for heron's per-page decoding: it touches every value.
	work := func(kvs int, sum int) int { return sum + kvs }
	scan := func(name string, serializable, prefetch bool, w int) {
		start := time.Now()
		opts := func(to string) []clientv3.OpOption {
			o := []clientv3.OpOption{clientv3.WithRange(to), clientv3.WithLimit(int64(page)), clientv3.WithRev(rev)}
			if serializable {
				o = append(o, clientv3.WithSerializable())
			}
			return o
		}
		window := func(from string) string {
			if w > 0 && len(from) > w {
				return clientv3.GetPrefixRangeEnd(from[:w])
			}
			return end
		}
		type res struct {
			r   *clientv3.GetResponse
			err error
		}
		get := func(from string) res {
			r, err := cli.Get(ctx, from, opts(window(from))...)
			return res{r, err}
		}
		advance := func(from string, r *clientv3.GetResponse) string {
			if r.More {
				return string(r.Kvs[len(r.Kvs)-1].Key) + "\x00"
			}
			return window(from)
		}
		from, n, sum := prefix, 0, 0
		var next chan res
		for from < end {
			var x res
			if next != nil {
				x = <-next
			} else {
				x = get(from)
			}
			if x.err != nil {
				t.Fatal(x.err)
			}
			nextFrom := advance(from, x.r)
			next = nil
			if prefetch && nextFrom < end {
				next = make(chan res, 1)
				go func(f string) { next <- get(f) }(nextFrom)
			}
			n += len(x.r.Kvs)
			for _, kv := range x.r.Kvs {
				sum = work(len(kv.Value), sum)
			}
			from = nextFrom
		}
		_ = sum
		t.Logf("%-34s %7d keys in %6.2fs (%6.0f keys/s)", name, n, time.Since(start).Seconds(), float64(n)/time.Since(start).Seconds())
	}
	w := len(prefix) + wbytes // 16: ids sharing 16 of 18 digits, ~100 collections' segments
	if only != "" {
		scan("windowed, serializable, prefetch", true, true, w)
		return
	}
	scan("windowed, linearizable", false, false, w)
	scan("windowed, serializable", true, false, w)
	scan("windowed, linearizable, prefetch", false, true, w)
	scan("windowed, serializable, prefetch", true, true, w)
}
