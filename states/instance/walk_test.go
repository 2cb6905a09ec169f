package instance

import (
	"context"
	"fmt"
	"testing"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Walk over many prefixes (a scan's per-pchannel records) reads the small
// ones together, in read-only transactions, and scans alone, in its turn,
// one that holds more than its share of a page: every key once, in prefix
// order, with a range request only for the big prefixes.
func TestWalkReadsSmallPrefixesTogether(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	var prefixes, keys []string
	for p := range 70 { // more than one transaction of manyReads ranges
		prefix := fmt.Sprintf("w/%02d/", p)
		prefixes = append(prefixes, prefix)
		n := p % 3 // 0, 1 or 2 keys: within a share of a page
		if p == 5 || p == 66 {
			n = 300 // more than a share: scanned alone
		}
		for k := range n {
			keys = append(keys, fmt.Sprintf("r/m/%s%04d", prefix, k))
		}
	}
	putAll(t, cli, append(keys, "r/m/w/outside", "r/m/w/00"))
	kv := etcdtest.NewCountingKV(cli.KV)
	c := *cli
	c.KV = kv
	in := New(&c, models.NewLayout("r", "m"), nil)
	in.PageSize = 128 // a share: 128/64 = 2 keys per prefix
	var got []string
	rev, err := in.Walk(context.Background(), 0, prefixes, func(e Entry) error {
		got = append(got, e.KV.Key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rev == 0 {
		t.Error("Walk returned no revision")
	}
	if fmt.Sprint(got) != fmt.Sprint(keys) {
		t.Fatalf("got %d keys, want %d in prefix order", len(got), len(keys))
	}
	// Two prefixes of 300 keys in pages of at most 128: a few windowed
	// requests each; the 68 others cost none (they came in the two
	// transactions; read one by one, they would cost 68 more).
	if kv.Requests > 24 {
		t.Errorf("%d range requests: the small prefixes were read one by one", kv.Requests)
	}

	// An error of fn stops the walk with it.
	stop := fmt.Errorf("stop")
	n := 0
	_, err = in.Walk(context.Background(), rev, prefixes, func(Entry) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Fatalf("fn's error: got %v after %d keys", err, n)
	}
	// No prefix: nothing read, no key.
	if _, err := in.Walk(context.Background(), rev, nil, func(Entry) error { t.Fatal("a key of no prefix"); return nil }); err != nil {
		t.Fatal(err)
	}
}
