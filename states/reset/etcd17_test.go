package reset

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/framework/embedded"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// compactingKV compacts etcd to its current revision (after a write
// elsewhere, as another writer and etcd's compactor do) right before the
// trigger-th read pinned to a revision, once armed: a Get, or a transaction
// that reads at a revision (the kit's read-back).
type compactingKV struct {
	clientv3.KV
	armed   atomic.Bool
	pinned  atomic.Int64
	trigger atomic.Int64
	fired   atomic.Int64
}

func (k *compactingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if clientv3.OpGet(key, opts...).Rev() > 0 {
		if err := k.pinnedRead(ctx); err != nil {
			return nil, err
		}
	}
	return k.KV.Get(ctx, key, opts...)
}

// Txn: a transaction that reads at a revision (the kit's read-back) is a
// pinned read.
func (k *compactingKV) Txn(ctx context.Context) clientv3.Txn {
	return &pinnedTxn{Txn: k.KV.Txn(ctx), commit: func(rev int64, commit func() (*clientv3.TxnResponse, error)) (*clientv3.TxnResponse, error) {
		if rev > 0 {
			if err := k.pinnedRead(ctx); err != nil {
				return nil, err
			}
		}
		return commit()
	}}
}

// pinnedRead compacts when this is the armed read.
func (k *compactingKV) pinnedRead(ctx context.Context) error {
	if !k.armed.Load() || k.pinned.Add(1) != k.trigger.Load() {
		return nil
	}
	k.armed.Store(false)
	k.fired.Add(1)
	put, err := k.KV.Put(ctx, "other-writer/key", "x")
	if err != nil {
		return err
	}
	_, err = k.KV.Compact(ctx, put.Header.Revision)
	return err
}

// pinnedTxn is a transaction that notes the revision its reads are pinned
// to (0: none) and commits through commit, which is given it.
type pinnedTxn struct {
	clientv3.Txn
	rev    int64
	commit func(rev int64, commit func() (*clientv3.TxnResponse, error)) (*clientv3.TxnResponse, error)
}

func (t *pinnedTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.Txn = t.Txn.If(cs...)
	return t
}

func (t *pinnedTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.note(ops)
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *pinnedTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.note(ops)
	t.Txn = t.Txn.Else(ops...)
	return t
}

func (t *pinnedTxn) note(ops []clientv3.Op) {
	for _, op := range ops {
		if op.IsGet() && op.Rev() > 0 {
			t.rev = op.Rev()
		}
	}
}

func (t *pinnedTxn) Commit() (*clientv3.TxnResponse, error) {
	return t.commit(t.rev, t.Txn.Commit)
}

// arm compacts before the n-th pinned read from now.
func (k *compactingKV) arm(n int64) {
	k.pinned.Store(0)
	k.trigger.Store(n)
	k.armed.Store(true)
}

func withCompactor(e *env) *compactingKV {
	k := &compactingKV{KV: e.cli.KV}
	e.cli.KV = k
	return k
}

func TestCompactionDuringThePlanRereadsOnce(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	k := withCompactor(e)

	// Count the pinned reads of a dry run (Build, then the scan).
	k.arm(1 << 40)
	if _, errs, code := e.reset("--target-wal kafka --allow-growing"); code != 0 {
		t.Fatalf("dry run: %d\n%s", code, errs)
	}
	reads := k.pinned.Load()
	if reads < 2 {
		t.Fatalf("%d pinned reads", reads)
	}

	// Compacted during Build: the plan is read again, once.
	k.arm(1)
	out, errs, code := e.reset("--target-wal kafka --allow-growing")
	if code != 0 || k.fired.Load() != 1 {
		t.Fatalf("exit %d, compactions %d\n%s", code, k.fired.Load(), errs)
	}
	mustContain(t, errs, "note: ", "etcd compacted its history past revision", "nothing was written: reading the plan again at the current revision")
	mustContain(t, out, "keys to write or delete")

	// With --run, compacted at the last read of pass 1 (the scan that
	// writes the backup, before the question): nothing was written, the
	// plan is read again, and the run completes.
	k.arm(reads)
	before := e.dump()
	out, errs, code = e.reset("--target-wal kafka --allow-growing --run")
	if code != 0 || k.fired.Load() != 2 {
		t.Fatalf("exit %d, compactions %d\n%s\n%s", code, k.fired.Load(), out, errs)
	}
	mustContain(t, errs, "reading the plan again at the current revision")
	mustContain(t, out, "verify: ok")
	if len(diffKeys(before, e.dump())) == 0 {
		t.Fatal("the run wrote nothing")
	}
}

func TestCompactionTwiceDuringThePlanFailsSayingNothingWasWritten(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	k := withCompactor(e)
	before := e.dump()
	// The first pinned read of each attempt compacts: the second attempt
	// is the first read at another revision than the one that failed (the
	// context's reads run side by side: more of the first attempt's may
	// fail after the first).
	e.cli.KV = &rearmKV{compactingKV: k, rearm: func() { k.arm(1) }}
	k.arm(1)
	_, errs, code := e.reset("--target-wal kafka --allow-growing --run")
	if code != framework.ExitFailed {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	mustContain(t, errs, "compacted its history", "nothing was written (the plan was read twice")
	if d := diffKeys(before, e.dump()); len(d) > 1 || (len(d) == 1 && d[0] != "other-writer/key") {
		t.Fatalf("keys changed: %v", d)
	}
}

// rearmKV arms the compactor again, once, at the first pinned read at
// another revision than the first read that failed.
type rearmKV struct {
	*compactingKV
	rearm  func()
	mu     sync.Mutex
	failed int64 // the revision of the first failed read (0: none yet)
	again  bool  // armed again
}

func (r *rearmKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	rev := clientv3.OpGet(key, opts...).Rev()
	r.before(rev)
	resp, err := r.compactingKV.Get(ctx, key, opts...)
	r.after(rev, err)
	return resp, err
}

// Txn: the context's reads of several prefixes at once are read-only
// transactions pinned at the plan's revision; whichever of them and the
// Gets fails first is the failed read.
func (r *rearmKV) Txn(ctx context.Context) clientv3.Txn {
	return &pinnedTxn{Txn: r.compactingKV.Txn(ctx), commit: func(rev int64, commit func() (*clientv3.TxnResponse, error)) (*clientv3.TxnResponse, error) {
		r.before(rev)
		resp, err := commit()
		if rev > 0 {
			r.after(rev, err)
		}
		return resp, err
	}}
}

// before arms the compactor again at the first pinned read at rev, a
// revision other than the failed read's.
func (r *rearmKV) before(rev int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rev > 0 && r.failed != 0 && rev != r.failed && !r.again {
		r.again = true
		r.rearm()
	}
}

// after records the revision of the first read that failed.
func (r *rearmKV) after(rev int64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && r.failed == 0 {
		r.failed = rev
	}
}

// A compaction during verify, while it reads the written keys back at one
// revision or while it reads the context again, makes it read again at the
// current revision: verify passes on a correct instance, and the plan is not
// read again (the writes are done). A quiet whole-instance run's verify
// reads nothing pinned (proven by revisions): a put elsewhere makes it read
// the keys back; a scoped run reads its collections again at the verify's
// revision, and plans again when etcd compacted it.
func TestCompactionDuringVerifyReadsAtTheCurrentRevision(t *testing.T) {
	for _, tc := range []struct {
		name    string
		foreign bool
		scoped  bool
	}{
		{"read back", true, false},
		{"context read again", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, commonpb.WALName_Pulsar)
			args := "--target-wal kafka --allow-growing --run --max-txn-ops 4"
			if tc.scoped {
				e.moveOutside("kafka", e.sample.PChannels[1:]...)
				args += " --pchannel " + e.pc(0)
			}
			k := withCompactor(e)
			e.tune = func(o *apply.Options) {
				// Pass 2 replays the backup and writes without pinned reads:
				// after a transaction, the next pinned read is verify's.
				o.AfterTxn = func(n int) error {
					k.arm(1)
					if tc.foreign && n == 1 {
						_, err := e.cli.Put(context.Background(), "elsewhere", "x")
						return err
					}
					return nil
				}
			}
			out, errs, code := e.reset(args)
			if code != 0 || k.fired.Load() != 1 {
				t.Fatalf("exit %d, compactions %d\n%s\n%s", code, k.fired.Load(), out, errs)
			}
			mustContain(t, out, "verify: ok")
			if strings.Contains(out+errs, "FAILED") || strings.Contains(errs, "reading the plan again") {
				t.Fatalf("verify failed on a correct instance, or the plan was read again:\n%s\n%s", out, errs)
			}
		})
	}
}

func TestWrongMessageTypeIsRefusedAtEveryKeyKind(t *testing.T) {
	layout := models.NewLayout("by-dev", "meta")
	s := sample.Build(layout, commonpb.WALName_Pulsar)
	var segKey, cpKey string
	for k := range s.KVs {
		rel, _ := layout.Rel(k)
		switch models.Classify(rel).Kind {
		case models.KindSegment:
			segKey = k
		case models.KindChannelCP:
			if cp, err := models.DecodePosition(s.KVs[k]); err == nil && !models.IsDroppedChannelCP(cp) {
				cpKey = k
			}
		}
	}
	checkpointKey := layout.Meta(models.ConsumeCheckpointKey(s.PChannels[0]))
	position := s.KVs[cpKey]
	for _, tc := range []struct {
		name, key string
		value     []byte
	}{
		{"a segment at a channel-cp key", cpKey, s.KVs[segKey]},
		{"a consume checkpoint at a channel-cp key", cpKey, s.KVs[checkpointKey]},
		{"a position at a segment key", segKey, position},
		{"a position at a consume checkpoint key", checkpointKey, position},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, commonpb.WALName_Pulsar)
			e.put(tc.key, tc.value)
			before := e.dump()
			for _, args := range []string{"--target-wal kafka --allow-growing", "--target-wal kafka --allow-growing --run"} {
				_, errs, code := e.reset(args)
				if code != framework.ExitFailed {
					t.Fatalf("%s: exit %d\n%s", args, code, errs)
				}
				mustContain(t, errs, "the value of "+tc.key+" does not decode", "a value of another message type?", "nothing was written")
			}
			if d := diffKeys(before, e.dump()); len(d) > 0 {
				t.Fatalf("keys changed: %v", d)
			}
		})
	}
}

func TestWarningsEscapeControlBytes(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	// A key under wal/{pchannel}/ that heron does not know, with an escape
	// sequence in it: the plan warns about it.
	e.put(e.meta(models.WALPrefix+e.pc(0)+"/evil\x1b[2J"), []byte("x"))
	out, errs, code := e.reset("--target-wal kafka --allow-growing --run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if strings.Contains(out+errs, "\x1b") {
		t.Fatalf("raw ESC on the terminal:\n%q\n%q", out, errs)
	}
	// The plan, warnings included, is shown once before the first write.
	mustContain(t, out, `warning: keys under`, `evil\x1b[2J`)
}

func TestAlarmGateRefusesTheResetAndThePlanShowsTheSpace(t *testing.T) {
	cli, ep := etcdtest.StartWith(t, embedded.Options{QuotaBackendBytes: 1 << 20})
	e := seedEnv(t, cli, ep, "by-dev", commonpb.WALName_Pulsar)
	out, errs, code := e.reset("--target-wal kafka --allow-growing")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	mustContain(t, out, "etcd space: the write adds about ", "to etcd's database of ", "quota 1.0 MiB")

	value := strings.Repeat("j", 64<<10)
	for i := 0; ; i++ {
		if _, err := cli.Put(context.Background(), fmt.Sprintf("junk/%04d", i), value); err != nil {
			break
		}
	}
	before := e.dump()
	out, errs, code = e.reset("--target-wal kafka --allow-growing --run")
	if code != framework.ExitRefused {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED", "no etcd alarm", "NOSPACE")
	mustContain(t, errs, "nothing was written", "alarm disarm")
	if d := diffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("keys changed: %v", d)
	}
}
