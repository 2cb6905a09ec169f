package restore

import (
	"context"
	"fmt"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// countingKV counts the range requests and transactions a reader sends.
type countingKV struct {
	clientv3.KV
	gets, txns int
}

func (k *countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	k.gets++
	return k.KV.Get(ctx, key, opts...)
}

func (k *countingKV) Txn(ctx context.Context) clientv3.Txn {
	k.txns++
	return k.KV.Txn(ctx)
}

// A chunk whose keys ascend is read with one range request, whatever keys
// lie between its entries (a few) or are absent; each entry gets its key's
// value at the revision read, as a get of that key gives it. A chunk whose
// keys lie far apart (many other keys between them), or do not ascend, is
// read right too, by gets.
func TestFetchReadsASpan(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	put := func(k, v string) {
		t.Helper()
		if _, err := cli.Put(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		put(fmt.Sprintf("by-dev/meta/s/%04d", i), fmt.Sprintf("v%d", i))
		if i%10 == 0 {
			put(fmt.Sprintf("by-dev/meta/s/%04d/other", i), "not in the backup")
		}
	}
	for i := range 500 {
		put(fmt.Sprintf("by-dev/meta/t/%04d", i), "between")
	}
	put("by-dev/meta/u", "far")
	kv := &countingKV{KV: cli.KV}
	cli.KV = kv
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	rev, err := inst.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	put("by-dev/meta/s/0001", "after the revision")
	r := &reader{inst: inst, rev: rev, gets: 7}
	check := func(name string, keys []string, gets, txns int) {
		t.Helper()
		var c chunk
		for _, k := range keys {
			c.add(apply.Entry{Key: k})
		}
		kv.gets, kv.txns = 0, 0
		f, err := r.fetch(ctx, c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if kv.gets != gets || kv.txns != txns {
			t.Errorf("%s: %d range requests and %d transactions, want %d and %d", name, kv.gets, kv.txns, gets, txns)
		}
		for i, k := range keys {
			want, _, err := inst.Get(ctx, k, rev)
			if err != nil {
				t.Fatal(err)
			}
			got := f.cur[i]
			if got.Key != want.Key || string(got.Value) != string(want.Value) || got.ModRevision != want.ModRevision {
				t.Errorf("%s: %s read %q (mod revision %d), want %q (%d)", name, k, got.Value, got.ModRevision, want.Value, want.ModRevision)
			}
		}
	}
	var dense []string
	for i := range 300 {
		dense = append(dense, fmt.Sprintf("by-dev/meta/s/%04d", i))
		if i%7 == 0 {
			dense = append(dense, fmt.Sprintf("by-dev/meta/s/%04d/absent", i))
		}
	}
	check("ascending keys", dense, 1, 0)
	// 500 keys between the second entry and the third: the span stops
	// after spanSlack more, the rest by gets.
	check("keys far apart", []string{"by-dev/meta/s/0000", "by-dev/meta/s/0299", "by-dev/meta/u", "by-dev/meta/v"}, 1, 1)
	check("keys that do not ascend", []string{"by-dev/meta/s/0005", "by-dev/meta/s/0001", "by-dev/meta/absent"}, 0, 1)
}

// The check notes where each phase's entries lie; a file whose phases
// alternate more than maxRuns times is read whole for each phase.
func TestRuns(t *testing.T) {
	var rs runs
	for i, ph := range []int{0, 0, 1, 1, 0, 2} {
		rs.add(ph, int64(10*i), int64(10*i+10), int64(i+2))
	}
	if got := rs.of(0); len(got) != 2 || got[0] != (run{phase: 0, from: 0, to: 20, line: 2}) || got[1] != (run{phase: 0, from: 40, to: 50, line: 6}) {
		t.Errorf("phase 0: %+v", got)
	}
	if got := rs.of(1); len(got) != 1 || got[0] != (run{phase: 1, from: 20, to: 40, line: 4}) {
		t.Errorf("phase 1: %+v", got)
	}
	var mixed runs
	for i := range 2*maxRuns + 3 {
		mixed.add(i%2, int64(i), int64(i+1), int64(i+2))
	}
	want := run{phase: -1, from: 0, to: 2*maxRuns + 3, line: 2}
	if got := mixed.of(1); !mixed.mixed || len(got) != 1 || got[0] != want {
		t.Errorf("alternating phases: %+v", got)
	}
}
