package reset

import (
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
)

// segmentScan is a scan's state over one segment key as a page hands it
// over (nearly every key of a large instance), and scanKey its per-key work:
// classify the key, decide the value, count it, and stage the op of its
// rewrite (dry: only count it). staged counts the ops.
func segmentScan(tb testing.TB, dry bool) (a *accumulator, scanKey func(), staged *int) {
	layout := models.NewLayout("by-dev", "meta")
	const pc = "by-dev-rootcoord-dml_3"
	const coll, part, seg = 451234567890000017, 451234567890000018, 451234567900000042
	vc := pc + "_451234567890000017v0"
	value := sample.Segment{ID: seg, Collection: coll, Partition: part, Channel: vc, Rows: 1000,
		State: commonpb.SegmentState_Flushed, Start: sample.Position(vc, sample.ID(commonpb.WALName_Pulsar, 7), 1<<40, 0),
		DML: sample.Position(vc, sample.ID(commonpb.WALName_Pulsar, 8), 1<<40+1, 0), Level: 2}.Encode()
	key := layout.Meta(models.SegmentKey(coll, part, seg))
	p, err := NewPlanner("woodpecker", nil, Context{CheckpointWAL: map[string]commonpb.WALName{pc: commonpb.WALName_Pulsar}})
	if err != nil {
		tb.Fatal(err)
	}
	pl := &Plan{planner: p}
	a = newAccumulator(p)
	a.dry = dry
	staged = new(int)
	var sink func(apply.Op) error
	if !dry {
		sink = func(op apply.Op) error {
			if len(op.Value) == 0 || op.Phase != phaseSegment || op.Key != key {
				tb.Fatalf("op %+v", op)
			}
			*staged++
			return nil
		}
	}
	return a, func() {
		rel, _ := layout.Rel(key)
		e := instance.Entry{KV: instance.KV{Key: key, Value: value, ModRevision: 7}, Key: models.Classify(rel)}
		if err := pl.scanEntry(a, e, sink); err != nil {
			tb.Fatal(err)
		}
	}, staged
}

// BenchmarkDecideSegment is the scan's work on one segment key; its
// allocations per op are what a million-segment scan makes a million times:
// go test -run '^$' -bench DecideSegment -benchmem ./states/reset
func BenchmarkDecideSegment(b *testing.B) {
	for _, c := range []struct {
		name string
		dry  bool
	}{{"run", false}, {"dry-run", true}} {
		b.Run(c.name, func(b *testing.B) {
			a, scanKey, staged := segmentScan(b, c.dry)
			b.ReportAllocs()
			for b.Loop() {
				scanKey()
			}
			if k := a.kinds[KindSegment]; k == nil || k.Keys != int64(b.N) || (!c.dry && *staged != b.N) {
				b.Fatalf("decided %+v, staged %d of %d", k, *staged, b.N)
			}
		})
	}
}

// A segment key costs the scan one allocation (its new value) on a run and
// none on a dry run: no copy of its channel name, no id or field encoded
// again, no tag list, no split key (it was 12 and 5).
func TestScanSegmentAllocations(t *testing.T) {
	for _, c := range []struct {
		dry  bool
		most float64
	}{{false, 1}, {true, 0}} {
		a, scanKey, staged := segmentScan(t, c.dry)
		scanKey()
		if allocs := testing.AllocsPerRun(100, scanKey); allocs > c.most {
			t.Errorf("dry run %v: %v allocations per segment key, want at most %v", c.dry, allocs, c.most)
		}
		if k := a.kinds[KindSegment]; k == nil || k.Keys != 102 || k.Positions != 204 || (!c.dry && *staged != 102) {
			t.Errorf("dry run %v: decided %+v, staged %d", c.dry, k, *staged)
		}
	}
}
