package restore

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/applyplan"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// capturing is restore's Build that keeps the plan it builds (its scan's
// tally, pl.segments).
func capturing(plans *[]*Plan) apply.Build[*instance.Instance, Params] {
	return gates.Write(apply.Phases[*instance.Instance, Params, *Plan]{
		Context: func(ctx context.Context, inst *instance.Instance, p *Params, rev int64) (*Plan, error) {
			pl, err := readContext(ctx, inst, p, rev)
			if err == nil {
				*plans = append(*plans, pl)
			}
			return pl, err
		}, Header: (*Plan).headerNamed, Scan: (*Plan).scan, Gates: (*Plan).scanGates, View: (*Plan).view})
}

// censusAt is the census of every position at rev, as the full split-state
// check reads it (segments: nil), or from the non-segment positions and
// the tally (gates.SplitPChannelsWith's).
func censusAt(t *testing.T, inst *instance.Instance, rev int64, segments *models.PositionTally) []models.PChannelWALs {
	t.Helper()
	prefixes := models.CensusPrefixes
	if segments != nil {
		prefixes = slices.DeleteFunc(slices.Clone(prefixes), func(p string) bool { return p == models.SegmentPrefix })
	}
	c := models.NewWALCensus(nil)
	if _, err := inst.Walk(context.Background(), rev, prefixes, func(e instance.Entry) error {
		c.AddValue(e.Key, e.Value)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if segments != nil {
		segments.AddTo(c)
	}
	return c.Report()
}

// The tally a restore's scan keeps stands for reading every segment again
// after the write: at the verify's revision (nothing but the run wrote)
// the census from the tally is the census of a walk of every key, whatever
// the segment values the scan's spans read between the backed-up ones
// (Milvus wrote them after the reset): values that do not parse, a key of
// another shape, no channel, a pchannel without a consume checkpoint,
// untagged ids of another WAL or that decode in several, a tagged
// position, an empty id, unknown fields, an L0 segment; and whatever
// entries already hold their backed-up state (put back by hand).
func TestRestoreTallyIsTheCensusOfAWalk(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, c := range []struct {
		name string
		// between writes keys between the backed-up segments after the reset.
		between bool
		// settled puts back some entries' backed-up values before the restore.
		settled bool
		// again restores the restore's own backup (its phases reversed) after it.
		again bool
		// scoped resets one pchannel only.
		scoped string
	}{
		{name: "plain"},
		{name: "milvus wrote between", between: true},
		{name: "some settled", settled: true, between: true},
		{name: "restore of the restore", between: true, again: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := "by-dev-" + strings.ReplaceAll(c.name, " ", "-")
			s := shelltest.Seed(t, cli, ep, root, commonpb.WALName_Pulsar)
			inst, dir := s.Inst, t.TempDir()
			var plans []*Plan
			run := func(line string) (string, string, int) {
				out, errs, code, _ := shelltest.Run(t, []*framework.Command{apply.Command(inst, capturing(&plans)), apply.Command(inst, reset.Build)}, line)
				return out, errs, code
			}
			ctx := context.Background()
			before := shelltest.Dump(t, cli)
			scope := ""
			if c.scoped != "" {
				scope = " --pchannel " + root + c.scoped
			}
			out, errs, code := run("reset checkpoint --target-wal kafka --run --yes --format json --backup-dir " + dir + scope)
			if code != 0 {
				t.Fatalf("reset: exit %d\n%s\n%s", code, out, errs)
			}
			var r RunResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			backup := r.Applied.Backup
			seg := func(id int64) string { return inst.Layout.Meta(models.SegmentKey(100, 101, id)) }
			put := func(key string, value []byte) {
				if _, err := cli.Put(ctx, key, string(value)); err != nil {
					t.Fatal(err)
				}
			}
			if c.between {
				pc := func(i int) string { return root + "-rootcoord-dml_" + string(rune('0'+i)) }
				ch := pc(0) + "_100v0"
				ts := sample.TSO(sample.Base, 0)
				pos := func(ch string, id []byte, wal commonpb.WALName) []byte {
					b, err := proto.Marshal(&msgpb.MsgPosition{ChannelName: ch, MsgID: id, Timestamp: ts, WALName: wal})
					if err != nil {
						t.Fatal(err)
					}
					return b
				}
				kafka := sample.ID(commonpb.WALName_Kafka, 7).Bytes()
				// An id of 8 bytes decodes as an offset of kafka and rocksmq,
				// and as a pulsar id it does not.
				put(seg(10011), sample.Segment{ID: 10011, Collection: 100, Partition: 101, Channel: ch, Start: pos(ch, kafka, 0), DML: pos(ch, kafka, 0), Extra: []byte{0xa0, 0x06, 0x01}}.Encode())
				put(seg(10012), []byte("not a segment \xff\x00"))
				put(inst.Layout.Meta(models.SegmentPrefix)+"100/101/1001/odd", sample.Segment{ID: 1, Collection: 100, Partition: 101, Channel: pc(1) + "_100v1",
					Start: pos(pc(1)+"_100v1", sample.ID(commonpb.WALName_WoodPecker, 3).Bytes(), commonpb.WALName_WoodPecker)}.Encode())
				put(seg(10013), sample.Segment{ID: 10013, Collection: 100, Partition: 101, Start: pos("", kafka, 0)}.Encode())
				put(seg(10014), sample.Segment{ID: 10014, Collection: 100, Partition: 101, Channel: root + "-rootcoord-dml_9_100v0",
					Start: pos(root+"-rootcoord-dml_9_100v0", kafka, 0), Level: 1}.Encode())
				put(seg(10015), sample.Segment{ID: 10015, Collection: 100, Partition: 101, Channel: pc(2) + "_300v0",
					Start: pos(pc(2)+"_300v0", nil, 0), DML: pos(pc(2)+"_300v0", sample.ID(commonpb.WALName_Pulsar, 9).Bytes(), commonpb.WALName_Pulsar)}.Encode())
				put(inst.Layout.Meta(models.SegmentKey(150, 151, 1)), sample.Segment{ID: 1, Collection: 150, Partition: 151, Channel: pc(1) + "_150v0",
					Start: pos(pc(1)+"_150v0", sample.ID(commonpb.WALName_Pulsar, 2).Bytes(), 0), State: commonpb.SegmentState_Dropped, Level: 1}.Encode())
			}
			if c.settled {
				put(seg(1001), []byte(before[seg(1001)]))
				put(seg(1003), []byte(before[seg(1003)]))
			}

			plans = nil
			out, errs, code = run("restore --force-moved-on --run --yes --format json --backup-dir " + dir + " --file " + backup)
			if code != 0 && code != framework.ExitFailed {
				t.Fatalf("restore: exit %d\n%s\n%s", code, out, errs)
			}
			if c.again {
				var r RunResult
				if err := json.Unmarshal([]byte(out), &r); err != nil || r.Applied == nil {
					t.Fatalf("restore: %v\n%s\n%s", err, out, errs)
				}
				plans = nil
				out, errs, code = run("restore --run --yes --format json --backup-dir " + dir + " --file " + r.Applied.Backup)
				if code != 0 && code != framework.ExitFailed || len(plans) != 1 || plans[0].phases != 4 {
					t.Fatalf("restore of the restore: exit %d, %d plans\n%s\n%s", code, len(plans), out, errs)
				}
			}
			if len(plans) != 1 {
				t.Fatalf("%d plans built", len(plans))
			}
			pl := plans[0]
			rev := shelltest.Revision(t, inst)
			full := censusAt(t, inst, rev, nil)
			split := map[bool]string{}
			for _, r := range full {
				if r.Split {
					split[true] += r.PChannel + " "
				}
			}
			if pl.segments == nil {
				if c.scoped == "" {
					t.Fatalf("the scan kept no tally\n%s", errs)
				}
				return
			}
			t.Logf("exit %d, census %+v\n%s", code, full, errs)
			if got := censusAt(t, inst, rev, pl.segments); !reflect.DeepEqual(got, full) {
				t.Fatalf("the tally's census\n%+v\nthe walk's\n%+v", got, full)
			}
			// The verify said what the walk finds.
			if sp := strings.TrimSpace(split[true]); sp == "" && code != 0 || sp != "" && !strings.Contains(errs, "split state on "+strings.ReplaceAll(sp, " ", ", ")) {
				t.Fatalf("walk: split %q; run: exit %d\n%s", sp, code, errs)
			}
		})
	}
}

// compactBeforeCount compacts etcd past the revision of every count of the
// segment prefix at a revision the client sends, just before etcd answers
// it (another writer and etcd's compactor, between the restore's scan and
// the count that keeps its tally).
type compactBeforeCount struct {
	other  *clientv3.Client
	prefix string
	counts int
}

func (c *compactBeforeCount) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if r, ok := req.(*etcdserverpb.RangeRequest); ok && r.CountOnly && r.Revision > 0 && string(r.Key) == c.prefix {
		c.counts++
		resp, err := c.other.Put(ctx, "unrelated/writer", "x")
		if err != nil {
			return err
		}
		if _, err := c.other.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
			return err
		}
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// The count that keeps the scan's tally reads at the plan's revision once
// the scan is done: when etcd compacted that revision meanwhile, the tally
// is dropped (the verify reads every segment, as without it), not the
// plan: the restore runs, and its verify finds the instance as it is.
func TestRestoreTallyCountCompacted(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	original := e.dump()
	backup := e.resetRun()
	cc := &compactBeforeCount{other: cli, prefix: e.inst.Layout.Meta(models.SegmentPrefix)}
	counted, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 30 * time.Second,
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(cc.intercept)}})
	if err != nil {
		t.Fatal(err)
	}
	defer counted.Close()
	e.inst = instance.New(counted, e.inst.Layout, []string{ep})

	out, errs, code := e.run("restore --file " + backup + " --run --backup-dir " + e.dir)
	if code != 0 || !strings.Contains(out, "verify: ok") || cc.counts == 0 {
		t.Fatalf("exit %d (%d counts compacted)\n%s\n%s", code, cc.counts, out, errs)
	}
	after := e.dump()
	delete(after, "unrelated/writer")
	if d := diff(original, after); len(d) != 0 {
		t.Fatalf("keys differ after restore: %v", d)
	}
}

// Another writer during the restore's write: the run's revisions no longer
// prove the state, so the split-state check reads every segment, and finds
// the segment Milvus created on the reset's WAL, within the backed-up
// segments' key range (where the scan's spans read) or beyond it; a write
// outside the instance leaves it unsplit. A restore stopped after some
// transactions and run again ends "verify: ok" from its tally, byte for
// byte the original.
func TestRestoreSplitCheckWithAWriterDuringTheWrite(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, c := range []struct {
		name string
		// key is the key the writer puts after the second transaction
		// (relative to the segment prefix; absolute when it starts with "/").
		key   string
		split bool
		// stop stops the first run there instead; the run again completes.
		stop bool
	}{
		{name: "within", key: "100/101/10011", split: true},
		{name: "beyond", key: "99999999/1/1", split: true},
		{name: "outside the instance", key: "/unrelated/key"},
		{name: "stopped and run again", stop: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := "by-dev-" + strings.ReplaceAll(c.name, " ", "-")
			e := newEnv(t, cli, ep, root)
			original := e.dump()
			backup := e.resetRun()
			afterReset := e.dump()
			ctx := context.Background()
			key := e.inst.Layout.Meta(models.SegmentPrefix) + c.key
			if strings.HasPrefix(c.key, "/") {
				key = c.key[1:]
			}
			// Milvus on kafka: the value of a reset segment.
			value := afterReset[e.inst.Layout.Meta(models.SegmentKey(100, 101, 1001))]
			e.tune = func(o *apply.Options) {
				o.Concurrency, o.MaxTxnOps = 1, 4
				o.AfterTxn = func(n int) error {
					if n != 2 {
						return nil
					}
					if c.stop {
						return errors.New("simulated crash")
					}
					_, err := cli.Put(ctx, key, value)
					return err
				}
			}
			out, errs, code := e.run("restore --format json --file " + backup + " --run --backup-dir " + e.dir)
			if c.stop {
				if code != framework.ExitFailed {
					t.Fatalf("stopped run: exit %d\n%s\n%s", code, out, errs)
				}
				e.tune = nil
				out, errs, code = e.run("restore --format json --file " + backup + " --run --backup-dir " + e.dir)
			}
			var r RunResult
			_ = json.Unmarshal([]byte(out), &r)
			switch {
			case c.split && (code != framework.ExitFailed || !strings.Contains(errs, "the instance is in a split state on "+root+"-rootcoord-dml_0")):
				t.Fatalf("a segment on kafka left: exit %d\n%s\n%s", code, out, errs)
			case !c.split && (code != 0 || r.Verify == nil || !r.Verify.OK):
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			case c.stop && r.Verify.ReadBack != "proven by revisions":
				t.Fatalf("the run again: %+v", r.Verify)
			}
			if !c.split {
				after := e.dump()
				delete(after, "unrelated/key")
				delete(original, "unrelated/key")
				if d := diff(original, after); len(d) != 0 {
					t.Fatalf("keys differ after the restore: %v", d)
				}
			}
		})
	}
}

// A saved restore plan applied (apply --file plans the restore again, at
// its own revision, through restore's build): its scan's tally stands for
// the segments when the run's revisions prove the state, and a segment
// Milvus created on the reset's WAL after the plan was saved, between the
// backed-up ones, is in it: the verify says split.
func TestRestorePlanAppliedSplitCheck(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, created := range []bool{false, true} {
		name := map[bool]string{false: "nothing created", true: "created after the plan"}[created]
		t.Run(name, func(t *testing.T) {
			root := "by-dev-" + strings.ReplaceAll(name, " ", "-")
			e := newEnv(t, cli, ep, root)
			original := e.dump()
			backup := e.resetRun()
			var plans []*Plan
			run := func(line string) (string, string, int) {
				cmds := append([]*framework.Command{apply.Command(e.inst, capturing(&plans)), apply.Command(e.inst, reset.Build)}, applyplan.Commands(e.inst)...)
				out, errs, code, _ := shelltest.Run(t, cmds, line)
				return out, errs, code
			}
			plan := e.dir + "/restore-plan.jsonl"
			if _, errs, code := run("restore --force-moved-on --file " + backup + " --plan-out " + plan); code != 0 {
				t.Fatalf("restore --plan-out: exit %d\n%s", code, errs)
			}
			if created {
				value := e.dump()[e.inst.Layout.Meta(models.SegmentKey(100, 101, 1001))]
				if _, err := cli.Put(context.Background(), e.inst.Layout.Meta(models.SegmentKey(100, 101, 10011)), value); err != nil {
					t.Fatal(err)
				}
			}
			plans = nil
			out, errs, code := run("apply --file " + plan + " --run --yes --format json --backup-dir " + e.dir)
			if len(plans) == 0 || plans[0].segments == nil {
				t.Fatalf("apply planned the restore again without a tally (%d plans)\n%s\n%s", len(plans), out, errs)
			}
			if created {
				if code != framework.ExitFailed || !strings.Contains(errs, "the instance is in a split state on "+root+"-rootcoord-dml_0") {
					t.Fatalf("a segment on kafka left: exit %d\n%s\n%s", code, out, errs)
				}
				return
			}
			if !strings.Contains(out, `"read_back": "proven by revisions"`) || code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			if d := diff(original, e.dump()); len(d) != 0 {
				t.Fatalf("keys differ after the restore: %v", d)
			}
		})
	}
}
