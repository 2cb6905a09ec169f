package reset

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
)

// segmentReads counts the range requests under a prefix that read keys.
type segmentReads struct {
	clientv3.KV
	prefix string
	n      *atomic.Int64
}

func (k segmentReads) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if strings.HasPrefix(key, k.prefix) && !clientv3.OpGet(key, opts...).IsCountOnly() {
		k.n.Add(1)
	}
	return k.KV.Get(ctx, key, opts...)
}

// A run nothing else wrote during is verified without reading a segment
// again: the scan decided every new value again (settled), and the verify
// reads at most the scoped collections at its revision. The run reads the
// segments as often as the dry run does, and a plan after it finds nothing;
// the whole instance and one pchannel (the others already on the target).
func TestVerifyReadsNoSegmentAgain(t *testing.T) {
	for _, scoped := range []bool{false, true} {
		e := newEnv(t, commonpb.WALName_Pulsar)
		args := "--target-wal kafka"
		p := &Params{TargetWAL: "kafka"}
		if scoped {
			e.moveOutside("kafka", e.sample.PChannels[1:]...)
			args += " --pchannel " + e.pc(0)
			p.PChannels = []string{e.pc(0)}
		}
		var n atomic.Int64
		e.cli.KV = segmentReads{KV: e.cli.KV, prefix: e.meta(models.SegmentPrefix), n: &n}
		mustOut(t, e, args)
		dry := n.Swap(0)
		r := runOK(t, e, args+" --max-txn-ops 6")
		if v := r.Verify; dry == 0 || n.Load() != dry || v.ReadBack != "proven by revisions" || v.Replanned != 0 || r.Applied.Keys == 0 {
			t.Fatalf("scoped %v: the dry run read segments %d times, the run %d; verify %+v", scoped, dry, n.Load(), v)
		}
		if s := dryPlan(t, e.inst, p); s.TotalKeys != 0 {
			t.Fatalf("scoped %v: a plan after the run: %d keys", scoped, s.TotalKeys)
		}
	}
}

// A write by someone else during the run breaks the proof by revisions:
// the verify plans again and reads back, so a foreign segment on the old
// WAL is found (planned again), and a written key put back to its old
// value is named.
func TestVerifyCatchesForeignWritesDuringTheRun(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		e := newEnv(t, commonpb.WALName_Pulsar)
		v := e.pc(0) + "_100v0"
		var first string
		for key := range e.dump() {
			if strings.HasPrefix(key, e.meta(models.SegmentPrefix)) && (first == "" || key < first) {
				first = key
			}
		}
		old := e.dump()[first]
		e.withTune(func(o *apply.Options) {
			o.AfterTxn = func(n int) error {
				if n != 2 {
					return nil
				}
				if overwrite {
					_, err := e.cli.Put(context.Background(), first, old)
					return err
				}
				foreign := sample.Segment{ID: 99001, Collection: 100, Partition: 101, Channel: v, Rows: 5, State: commonpb.SegmentState_Flushed,
					Start: sample.Position(v, sample.ID(e.sample.WAL, 9), 1, 0)}.Encode()
				_, err := e.cli.Put(context.Background(), e.meta(models.SegmentKey(100, 101, 99001)), string(foreign))
				return err
			}
		})
		out, errs, code := e.reset("--target-wal kafka --max-txn-ops 6 --run --format json")
		r := runJSON(t, out)
		failures := strings.Join(r.Verify.Failures, "\n")
		if code != framework.ExitFailed || r.Verify.OK || !strings.HasPrefix(r.Verify.ReadBack, "keys-only read") {
			t.Fatalf("overwrite %v: exit %d, verify %+v\n%s", overwrite, code, r.Verify, errs)
		}
		if overwrite && (!strings.Contains(failures, first) || r.Verify.Replanned != 1) {
			t.Fatalf("the overwritten key %s is not named: %+v", first, r.Verify)
		}
		if !overwrite && (r.Verify.Replanned != 1 || !strings.Contains(failures, "planned again, the command still finds 1 keys to write")) {
			t.Fatalf("the foreign segment is not planned again: %+v", r.Verify)
		}
	}
}

// settled is the scan's check that a new value converges: a value the
// planner would rewrite again (as a planner that wrote another WAL's
// positions would leave it) is not settled, and counts as a key the
// re-plan finds.
func TestSettledCatchesANonConvergingRewrite(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	woodpecker, err := NewPlanner("woodpecker", nil, Context{})
	if err != nil {
		t.Fatal(err)
	}
	kafka, err := NewPlanner("kafka", nil, Context{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for key, value := range e.dump() {
		rel, ok := e.inst.Layout.Rel(key)
		if !ok {
			continue
		}
		k := models.Classify(rel)
		d, err := woodpecker.Decide(k, []byte(value))
		if err != nil || d.Action != Rewrite {
			continue
		}
		wrong, err := kafka.Decide(k, []byte(value))
		if err != nil {
			t.Fatal(err)
		}
		if !woodpecker.settled(k, d.Value, nil) || woodpecker.settled(k, wrong.Value, nil) {
			t.Fatalf("%s: the woodpecker rewrite settled %v, the kafka one %v", key, woodpecker.settled(k, d.Value, nil), woodpecker.settled(k, wrong.Value, nil))
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("nothing rewritten")
	}
}

// sameAt reads again, scoped, the collections that own a vchannel in
// scope: other collections there, and the kit must plan again. They decide
// nothing for the whole instance.
func TestSameAtReadsTheScopedCollections(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	ctx := context.Background()
	plan := func(pcs ...string) *Plan {
		pl, err := readContext(ctx, e.inst, &Params{TargetWAL: "kafka", PChannels: pcs}, e.rev())
		if err != nil {
			t.Fatal(err)
		}
		if err := pl.scan(ctx, func(int) {}, nil); err != nil {
			t.Fatal(err)
		}
		return pl
	}
	whole, scoped := plan(), plan(e.pc(0))
	if len(scoped.planner.collections) == 0 {
		t.Fatal("no collection owns a vchannel of the scope")
	}
	same := func(pl *Plan) bool {
		ok, err := pl.sameAt(ctx, e.rev())
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !same(whole) || !same(scoped) {
		t.Fatal("the context read again at once differs")
	}
	if _, err := e.cli.Delete(ctx, e.meta(models.CollectionInfoPrefix), clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	if !same(whole) || same(scoped) {
		t.Fatalf("without collection infos: whole %v, scoped %v", same(whole), same(scoped))
	}
}
