package instance

import (
	"context"
	"fmt"
	"testing"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// A scan of N keys costs about N/page range requests, few of them empty,
// and etcd counts about as many keys as it returns: the windows hold about
// one page each, for Milvus's decimal ids of equal length (many collections,
// or one collection of many segments) and for ids of mixed digit counts.
func TestScanWindowsHoldAboutOnePage(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	layouts := []struct {
		name string
		keys func() []string
	}{
		{"many collections", func() []string {
			var keys []string
			for c := range 400 {
				coll := int64(451234567890000000 + 7*c)
				for s := range 50 {
					keys = append(keys, fmt.Sprintf("a/m/s/%d/%d/%d", coll, coll+1, 451234567900000000+int64(c*50+s)))
				}
			}
			return keys
		}},
		{"one collection", func() []string {
			var keys []string
			for s := range 20000 {
				keys = append(keys, fmt.Sprintf("b/m/s/449000000000000000/449000000000000001/%d", 451234567900000000+int64(3*s)))
			}
			return keys
		}},
		{"mixed digit counts", func() []string {
			var keys []string
			for c := range 2000 {
				for s := range 10 {
					keys = append(keys, fmt.Sprintf("c/m/s/%d/%d/%d", c+1, c+2, c*10+s))
				}
			}
			return keys
		}},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			keys := l.keys()
			putAll(t, cli, keys)
			prefix := keys[0][:6]
			for _, page := range []int{500, 2000} {
				kv := etcdtest.NewCountingKV(cli.KV)
				c := *cli
				c.KV = kv
				in := New(&c, models.NewLayout(prefix[:1], "m"), nil)
				in.PageSize = page
				got := 0
				if _, err := in.Scan(context.Background(), prefix, 0, func(p []KV) error {
					got += len(p)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if got != len(keys) {
					t.Fatalf("page %d: %d keys, want %d", page, got, len(keys))
				}
				ideal := len(keys) / page
				t.Logf("page %d: %d requests (%d empty) for %d keys, etcd counted %.2f keys per key returned",
					page, kv.Requests, kv.Empty, len(keys), float64(kv.Counted)/float64(kv.Returned))
				if kv.Requests > 2*ideal+4 {
					t.Errorf("page %d: %d range requests for %d keys (ideal %d)", page, kv.Requests, len(keys), ideal)
				}
				if kv.Empty > ideal/4+2 {
					t.Errorf("page %d: %d of %d requests came back empty", page, kv.Empty, kv.Requests)
				}
				// The first request knows nothing yet: it is the rest of
				// the range, and etcd counts every key once for it.
				if extra := kv.Counted - kv.Returned - int64(len(keys)); extra > int64(len(keys))/2 {
					t.Errorf("page %d: etcd counted %d keys beyond those returned and the first request's", page, extra)
				}
			}
		})
	}
}

// A scan of large values starts with a small first page, then sizes its
// pages by bytes like any other (collection infos: 50 keys, then ~4 MiB).
func TestFirstPageThenPagesByBytes(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	var keys []string
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf("f/m/c/%04d", i))
	}
	putAll(t, cli, keys)
	in := New(cli, models.NewLayout("f", "m"), nil).WithFirstPage(5)
	in.PageBytes = 30 * 200 // about 200 keys of ~30 bytes
	var sizes []int
	if _, err := in.Scan(context.Background(), "f/m/c/", 0, func(p []KV) error {
		sizes = append(sizes, len(p))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if sizes[0] != 5 || len(sizes) > 2000/100 {
		t.Fatalf("pages %v: want a first page of 5 keys, then pages of about 200", sizes)
	}
}

// An error from fn ends the scan with that error while the next page is
// in flight; the read ahead is cancelled and waited for.
func TestScanStopsOnHandlerError(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	var keys []string
	for i := range 3000 {
		keys = append(keys, fmt.Sprintf("e/m/s/%05d", i))
	}
	putAll(t, cli, keys)
	in := New(cli, models.NewLayout("e", "m"), nil)
	in.PageSize = 100
	stop := fmt.Errorf("stop here")
	pages := 0
	_, err := in.Scan(context.Background(), "e/m/s/", 0, func(p []KV) error {
		pages++
		if pages == 3 {
			return stop
		}
		return nil
	})
	if err != stop || pages != 3 {
		t.Fatalf("got %v after %d pages, want the handler's error after 3", err, pages)
	}
}
