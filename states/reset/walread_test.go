package reset

import (
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/sampletest"
)

// A plan reads the segment-assign records and consume checkpoints of
// streamingnode-meta/wal/ twice (the context read, the scan), by pchannel,
// and the vchannel metas and schemas beside them (at 10,000 collections,
// 40,000 keys) not at all when the pchannel list names every pchannel
// there: the context read counts them. A key of a pchannel the list does
// not name, or one heron does not know, and it reads the prefix whole once
// (each vchannel key once), still finding every record. The plan rewrites
// every segment-assign record and consume checkpoint.
func TestPlanReadsVChannelKeysOnce(t *testing.T) {
	for _, unlisted := range []bool{false, true} {
		e := newEnv(t, commonpb.WALName_Pulsar)
		assign := e.meta(models.SegmentAssignPrefix(e.pc(1)) + "5001")
		e.put(assign, sampletest.SegmentAssignment(100, 101, 5001, e.pc(1)+"_100v1"))
		want := len(e.sample.PChannels) + 1
		if unlisted {
			e.put(e.meta(models.SegmentAssignPrefix("other-pchannel")+"5002"), sampletest.SegmentAssignment(100, 101, 5002, "other-pchannel_100v1"))
			want++
		}
		kv := etcdtest.NewCountingKV(e.cli.KV)
		e.cli.KV = kv
		inst := instance.New(e.cli, e.inst.Layout, nil)
		s := dryPlan(t, inst, &Params{TargetWAL: "woodpecker", AllowGrowing: true})

		vchannelKeys, checkpoints := 0, 0
		for key, n := range kv.Seen {
			rel, _ := strings.CutPrefix(key, e.inst.Layout.MetaRoot())
			switch models.Classify(rel).Kind {
			case models.KindVChannelMeta, models.KindVChannelSchema:
				vchannelKeys++
				if n != 1 {
					t.Errorf("%s read %d times by one plan, want once (the context read)", key, n)
				}
			case models.KindConsumeCheckpoint, models.KindSegmentAssign:
				checkpoints++
				if n != 2 {
					t.Errorf("%s read %d times by one plan, want twice (context read, scan)", key, n)
				}
			}
		}
		if (vchannelKeys == 0) != !unlisted || checkpoints != want {
			t.Fatalf("unlisted %v: the plan read %d vchannel keys and %d checkpoints and segment-assign records, want %d", unlisted, vchannelKeys, checkpoints, want)
		}
		if kv.Seen[assign] == 0 {
			t.Fatalf("the segment-assign record %s was not read", assign)
		}
		if got := s.TotalKeys; got == 0 {
			t.Fatalf("the plan writes nothing")
		}
	}
}
