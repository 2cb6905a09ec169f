package reset

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
)

// keyCountingKV counts, by key, the keys range requests return.
type keyCountingKV struct {
	clientv3.KV
	mu   sync.Mutex
	seen map[string]int
}

func (c *keyCountingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	resp, err := c.KV.Get(ctx, key, opts...)
	if err == nil {
		c.mu.Lock()
		for _, kv := range resp.Kvs {
			c.seen[string(kv.Key)]++
		}
		c.mu.Unlock()
	}
	return resp, err
}

// A plan reads streamingnode-meta/wal/ once in its context read: the scan
// then reads the segment-assign records and consume checkpoints it found
// there, by pchannel, and not the vchannel metas and schemas beside them
// (at 10,000 collections, 40,000 keys that two more reads of the whole
// prefix returned twice more per plan). The plan still rewrites every
// segment-assign record and consume checkpoint.
func TestPlanReadsVChannelKeysOnce(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	assign := e.meta(models.SegmentAssignPrefix(e.pc(1)) + "5001")
	e.put(assign, sample.SegmentAssignment(100, 101, 5001, e.pc(1)+"_100v1"))
	kv := &keyCountingKV{KV: e.cli.KV, seen: map[string]int{}}
	e.cli.KV = kv
	inst := instance.New(e.cli, e.inst.Layout, nil)
	s := dryPlan(t, inst, &Params{TargetWAL: "woodpecker", AllowGrowing: true})

	vchannelKeys, checkpoints := 0, 0
	for key, n := range kv.seen {
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
	if vchannelKeys == 0 || checkpoints != len(e.sample.PChannels)+1 {
		t.Fatalf("the plan read %d vchannel keys and %d checkpoints and segment-assign records, want some and %d", vchannelKeys, checkpoints, len(e.sample.PChannels)+1)
	}
	if kv.seen[assign] == 0 {
		t.Fatalf("the segment-assign record %s was not read", assign)
	}
	if got := s.TotalKeys; got == 0 {
		t.Fatalf("the plan writes nothing")
	}
}
