package apply

import (
	"hash/maphash"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// The writer sends a transaction only when the request it built carries
// the staged keys, compared revisions and values byte for byte.
func TestCheckRequestMatchesTheStagedBytes(t *testing.T) {
	opt := Options{}.withDefaults()
	seed := maphash.MakeSeed()
	var staged *batch
	b := newBatcher(opt, seed, func(bt *batch) error { staged = bt; return nil })
	ops := []Op{
		{Key: "r/a", ModRevision: 4, Value: []byte("new-a"), Original: []byte("old-a"), Phase: 1},
		{Key: "r/b", ModRevision: 5, Delete: true, Original: []byte("old-b"), Phase: 1},
	}
	for _, op := range ops {
		if err := b.add(op); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.flush(); err != nil || staged == nil {
		t.Fatal(err)
	}
	w := &writer{seed: seed, hashes: []uint64{staged.hash}}
	check := func(value string, rev int64, del bool) error {
		cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision("r/a"), "=", rev), clientv3.Compare(clientv3.ModRevision("r/b"), "=", 5)}
		thens := []clientv3.Op{clientv3.OpPut("r/a", value), clientv3.OpDelete("r/b")}
		if !del {
			thens[1] = clientv3.OpPut("r/b", "")
		}
		return w.checkRequest(staged, cmps, thens)
	}
	if err := check("new-a", 4, true); err != nil {
		t.Fatalf("the staged request: %v", err)
	}
	for name, bad := range map[string]error{
		"a value byte": check("new-b", 4, true),
		"a revision":   check("new-a", 3, true),
		"a put":        check("new-a", 4, false),
	} {
		if bad == nil || !strings.Contains(bad.Error(), "transaction 1") || !strings.Contains(bad.Error(), "nothing of it was sent") {
			t.Errorf("%s changed: %v", name, bad)
		}
	}
}

// The read-back is proven only when the run's transactions are exactly the
// revisions after the plan's, up to now.
func TestOnlyOwnRevisions(t *testing.T) {
	for _, c := range []struct {
		plan int64
		revs []int64
		now  int64
		want bool
	}{
		{10, []int64{11, 12, 13}, 13, true},
		{10, []int64{12, 11, 13}, 13, true},  // two in flight commit in either order
		{10, []int64{11, 12, 13}, 14, false}, // a write after the last
		{10, []int64{12, 13, 14}, 14, false}, // a write before the first
		{10, []int64{11, 13, 14}, 14, false}, // a write between
		{10, []int64{11, 11, 12}, 12, false}, // a transaction that moved no revision
		{10, []int64{11, 0}, 11, false},      // a transaction not committed
		{10, nil, 10, false},
	} {
		if got := onlyOwnRevisions(c.plan, c.revs, c.now); got != c.want {
			t.Errorf("plan %d, revs %v, now %d: %v", c.plan, c.revs, c.now, got)
		}
	}
}
