package restore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
		rs.add(ph, 0, fmt.Sprintf("k%d", i), int64(10*i), int64(10*i+10), int64(i+2))
	}
	if got := rs.of(0); len(got) != 2 || got[0] != (run{phase: 0, from: 0, to: 20, line: 2, first: "k0", last: "k1", ascending: true}) || got[1] != (run{phase: 0, from: 40, to: 50, line: 6, first: "k4", last: "k4", ascending: true}) {
		t.Errorf("phase 0: %+v", got)
	}
	if got := rs.of(1); len(got) != 1 || got[0] != (run{phase: 1, from: 20, to: 40, line: 4, first: "k2", last: "k3", ascending: true}) {
		t.Errorf("phase 1: %+v", got)
	}
	var mixed runs
	for i := range 2*maxRuns + 3 {
		mixed.add(i%2, 0, fmt.Sprintf("k%d", i), int64(i), int64(i+1), int64(i+2))
	}
	if got := mixed.of(1); !mixed.mixed || mixed.disjoint() || len(got) != 1 || got[0].phase != -1 || got[0].from != 0 || got[0].to != 2*maxRuns+3 || got[0].line != 2 {
		t.Errorf("alternating phases: %+v", got)
	}
}

// The keys created since a reset are found beside the restore's scan: in
// its spans (between two segments of the backup), outside the file's runs
// (under its prefixes, before and after them) and in what a span did not
// reach; keys of the file created again, and keys outside the prefixes,
// are not.
func TestCreatedSinceBesideTheScan(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	backup := e.resetRun()
	ctx := context.Background()
	var segments []string
	for k := range e.dump() {
		if rel, ok := e.inst.Layout.Rel(k); ok && models.Classify(rel).Kind == models.KindSegment {
			segments = append(segments, k)
		}
	}
	slices.Sort(segments)
	if len(segments) < 2 {
		t.Fatalf("%d segments", len(segments))
	}
	created := []string{segments[0] + "0", "by-dev/config/new", "by-dev/meta/aaa", "by-dev/meta/zzz"}
	for _, k := range append(slices.Clone(created), "by-dev/other", "by-dev/metb") {
		if _, err := cli.Put(ctx, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	rev := e.rev()
	pl, err := readContext(ctx, e.inst, &Params{File: backup}, rev)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pl.Close() }()
	if !pl.beside || len(pl.created) != 0 {
		t.Fatalf("the keys created since were read before the scan (beside %v, %d keys)", pl.beside, len(pl.created))
	}
	if err := pl.scan(ctx, func(int) {}, nil); err != nil {
		t.Fatal(err)
	}
	slices.Sort(created)
	if got := pl.MovedOn.Created; !slices.Equal(got, created) {
		t.Errorf("created since: %q, want %q", got, created)
	}
}

// A span that stops before its last key (too many keys between) reads the
// rest of its range without values: the keys created since there are
// found, the chunk's own aside.
func TestFetchFindsCreatedKeysBeyondASpan(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	put := func(k string) {
		t.Helper()
		if _, err := cli.Put(ctx, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		put(fmt.Sprintf("by-dev/meta/t/%04d", i))
	}
	put("by-dev/meta/a")
	put("by-dev/meta/u")
	since, err := inst.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	put("by-dev/meta/b")       // in the span
	put("by-dev/meta/t/0150x") // beyond its reach
	put("by-dev/meta/u")       // an entry, created again
	put("by-dev/meta/v")       // after the span
	rev, err := inst.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{inst: inst, rev: rev, gets: 64, since: since, under: func(string) bool { return true }}
	var c chunk
	for _, k := range []string{"by-dev/meta/a", "by-dev/meta/u"} {
		c.add(apply.Entry{Key: k})
	}
	f, err := r.fetch(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"by-dev/meta/b", "by-dev/meta/t/0150x"}; !slices.Equal(f.created, want) {
		t.Errorf("created: %q, want %q", f.created, want)
	}
	if string(f.cur[1].Value) != "v" || f.cur[1].ModRevision == 0 {
		t.Errorf("the entry beyond the span: %+v", f.cur[1])
	}
}

// A panic in the judge stage (a rule's bug on some entry) runs outside the
// shell's recover: the pipeline returns it as an error naming the chunk's
// first line, and every stage stops (the read had more chunks to send).
func TestPipelineJudgePanicIsAnError(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	for i := range 10 {
		if _, err := cli.Put(ctx, fmt.Sprintf("by-dev/meta/s/%02d", i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	rev, err := inst.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{inst: inst, rev: rev, gets: 7}
	read := func(send func(chunk) error) error {
		for n := 0; ; n++ {
			var c chunk
			for i := range 10 {
				c.add(apply.Entry{Key: fmt.Sprintf("by-dev/meta/s/%02d", i), Line: int64(2 + 10*n + i)})
			}
			if err := send(c); err != nil {
				return err
			}
		}
	}
	judgedChunks := 0
	judge := func(*fetched) {
		if judgedChunks++; judgedChunks == 3 {
			panic("a rule's bug")
		}
	}
	decided := 0
	done := make(chan error, 1)
	go func() { done <- r.pipeline(ctx, read, judge, func(fetched) error { decided++; return nil }) }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the pipeline did not stop after its judge panicked")
	}
	if err == nil || !strings.Contains(err.Error(), "internal error (panic) judging the entries from line 22: a rule's bug") {
		t.Fatalf("pipeline: %v", err)
	}
	if decided != 2 {
		t.Fatalf("%d chunks decided, want the 2 judged before the panic", decided)
	}
}

// inflightKV counts the range requests in flight (the most at once: most),
// each held 10 ms, none ending before release is closed. While hold is set,
// a request from a key at or after holdFrom ends only 50 ms after its
// context does.
type inflightKV struct {
	clientv3.KV
	now, most atomic.Int32
	hold      atomic.Bool
	holdFrom  string
	release   chan struct{}
}

func (k *inflightKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	n := k.now.Add(1)
	defer k.now.Add(-1)
	for m := k.most.Load(); n > m && !k.most.CompareAndSwap(m, n); m = k.most.Load() {
	}
	<-k.release
	time.Sleep(10 * time.Millisecond)
	if k.hold.Load() && key >= k.holdFrom {
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond)
	}
	return k.KV.Get(ctx, key, opts...)
}

// Spans are fetched fetchers at once, never more: the judge and decide
// stages still get the chunks in file order, each with its own keys'
// values; a decide that fails returns only once no fetch is in flight; and
// a fetch that fails (the revision compacted) stops the pipeline with its
// error, whichever of the fetches in flight fails first.
func TestPipelineFetchesAheadInFileOrder(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	const chunks, per = 40, 5
	for i := range chunks * per {
		if _, err := cli.Put(ctx, fmt.Sprintf("by-dev/meta/s/%03d", i), fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	// holdFrom is the third chunk's first key: while hold is set, the
	// first two chunks are fetched whole.
	kv := &inflightKV{KV: cli.KV, release: make(chan struct{}), holdFrom: fmt.Sprintf("by-dev/meta/s/%03d", 2*per)}
	cli.KV = kv
	// The first requests wait until the pipeline has had time to start
	// every fetch it may.
	time.AfterFunc(200*time.Millisecond, func() { close(kv.release) })
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	rev, err := inst.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read := func(send func(chunk) error) error {
		for n := range chunks {
			var c chunk
			for i := n * per; i < (n+1)*per; i++ {
				c.add(apply.Entry{Key: fmt.Sprintf("by-dev/meta/s/%03d", i), Line: int64(2 + i)})
			}
			if err := send(c); err != nil {
				return err
			}
		}
		return nil
	}
	var seen []string
	decide := func(f fetched) error {
		for i, e := range f.entries {
			if want := fmt.Sprint(e.Line - 2); string(f.cur[i].Value) != want {
				return fmt.Errorf("line %d (%s): value %q, want %q", e.Line, e.Key, f.cur[i].Value, want)
			}
			seen = append(seen, e.Key)
		}
		return nil
	}
	r := &reader{inst: inst, rev: rev, gets: 7}
	if err := r.pipeline(ctx, read, func(*fetched) {}, decide); err != nil {
		t.Fatal(err)
	}
	if len(seen) != chunks*per || !slices.IsSorted(seen) {
		t.Fatalf("decided %d keys, in file order: %v; want %d in order", len(seen), slices.IsSorted(seen), chunks*per)
	}
	if most := kv.most.Load(); most != fetchers {
		t.Fatalf("at most %d fetches in flight, want %d", most, fetchers)
	}

	// A decide that fails at the first chunk, the fetches of the third and
	// fourth still in flight: the pipeline returns its error once none is.
	kv.hold.Store(true)
	failed := errors.New("decide failed")
	err = r.pipeline(ctx, read, func(*fetched) {}, func(fetched) error { return failed })
	if !errors.Is(err, failed) {
		t.Fatalf("pipeline whose decide fails: %v", err)
	}
	if n := kv.now.Load(); n != 0 {
		t.Fatalf("%d fetches in flight after the pipeline returned", n)
	}

	// The scan's revision compacted away: every fetch fails.
	kv.hold.Store(false)
	if _, err := cli.Put(ctx, "by-dev/meta/s/999", "later"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(ctx, rev+1); err != nil {
		t.Fatal(err)
	}
	seen = nil
	done := make(chan error, 1)
	go func() { done <- r.pipeline(ctx, read, func(*fetched) {}, decide) }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the pipeline did not stop after its fetches failed")
	}
	if err == nil || errors.Is(err, errStopped) || !strings.Contains(err.Error(), "compacted") {
		t.Fatalf("pipeline at a compacted revision: %v", err)
	}
	if len(seen) != 0 {
		t.Fatalf("%d keys decided at a compacted revision", len(seen))
	}
}
