package reset

import (
	"context"
	"maps"
	"strings"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
)

// scan reads every key the reset may write at the plan's revision, in write
// order, decides each one into a fresh accumulator (pl.acc, what the gates
// and the view read), and hands the ops to sink (nil: the dry run, which
// builds no op).
func (pl *Plan) scan(ctx context.Context, read func(n int), sink func(apply.Op) error) error {
	a := newAccumulator(pl.planner)
	a.dry = sink == nil
	a.limit = apply.NewRequestLimit(pl.params.MaxRequestBytes, pl.inst)
	pl.unsettled, pl.writeBytes = 0, 0
	steps := []struct {
		prefixes []string
		size     int
		filter   models.Kind
		config   bool // the mq.type config keys, outside the meta root
	}{
		{[]string{models.SegmentPrefix}, 0, -1, false},
		{[]string{models.ChannelCPPrefix}, 0, -1, false},
		{collectionPrefixes, collectionPageSize, -1, false},
		{[]string{models.QueryTargetPrefix}, collectionPageSize, -1, false},
		{pl.assignPrefixes, 0, models.KindSegmentAssign, false},
		{nil, 0, -1, true},
		{pl.checkpointPrefixes, 0, models.KindConsumeCheckpoint, false},
	}
	for _, st := range steps {
		if st.config {
			if err := pl.scanConfig(ctx, a, sink); err != nil {
				return err
			}
			continue
		}
		err := walk(ctx, pl.inst, pl.Revision, st.prefixes, st.size, func(e instance.Entry) error {
			read(1)
			if st.filter >= 0 && e.Kind != st.filter {
				return nil
			}
			return pl.scanEntry(a, e, sink)
		})
		if err != nil {
			return err
		}
	}
	pl.acc = a
	return nil
}

// scanEntry is the scan's work on one key it read: decide it into a, count
// the bytes a write adds, and hand sink the op (a dry run's nil sink: none).
// It runs once per key of the instance (BenchmarkDecideSegment).
func (pl *Plan) scanEntry(a *accumulator, e instance.Entry, sink func(apply.Op) error) error {
	d, err := a.decide(e)
	if err == nil && d.Action != Keep {
		pl.writeBytes += gates.WriteCost(e.KV.Key, d.Value)
	}
	if err != nil || sink == nil || d.Action == Keep {
		return err
	}
	if d.Action == Rewrite && !pl.planner.settled(e.Key, d.Value, &a.segments) {
		pl.unsettled++
	}
	return sink(op(e.KV.Key, e.ModRevision, e.Value, d))
}

// scanConfig decides every mq.type override under {root}/config/ (each
// spelling Milvus reads as mq.type); with none, the run creates
// {root}/config/mqtype, as Milvus's own online switch does, so that no
// milvus.yaml left on the old WAL decides (the backup marks it absent:
// restore deletes it).
func (pl *Plan) scanConfig(ctx context.Context, a *accumulator, sink func(apply.Op) error) error {
	layout := pl.inst.Layout
	found := false
	_, err := pl.inst.Scan(ctx, layout.Root(models.ConfigPrefix), pl.Revision, func(page []instance.KV) error {
		for _, kv := range page {
			if !isMQTypeKey(layout, kv.Key) {
				continue
			}
			found = true
			if d := a.decideConfig(kv, false); sink != nil && d.Action != Keep {
				pl.settleConfig(d.Value)
				if err := sink(op(kv.Key, kv.ModRevision, kv.Value, d)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil || found {
		return err
	}
	kv := instance.KV{Key: layout.Root(models.MQTypeConfigKey)}
	if d := a.decideConfig(kv, true); sink != nil {
		pl.settleConfig(d.Value)
		return sink(op(kv.Key, 0, nil, d))
	}
	return nil
}

// settleConfig counts an mq.type override's new value as unsettled when
// the planner would rewrite it again (apply.Replan.Unsettled).
func (pl *Plan) settleConfig(value []byte) {
	if pl.planner.DecideConfig(value).Action != Keep {
		pl.unsettled++
	}
}

// isMQTypeKey reports whether an absolute key is an mq.type override.
func isMQTypeKey(layout models.Layout, abs string) bool {
	rel, ok := strings.CutPrefix(abs, layout.Root(""))
	return ok && models.IsMQTypeConfigKey(rel)
}

func op(key string, modRev int64, original []byte, d Decision) apply.Op {
	return apply.Op{Key: key, ModRevision: modRev, Value: d.Value, Delete: d.Action == Delete, Original: original, Phase: kindPhase[d.Kind]}
}

// sameAt is apply.Replan's Same. At rev, the verify's revision, the run's
// own revisions prove etcd holds the plan's revision plus exactly the run's
// ops; sameAt reports whether a plan there would decide every key the plan
// read as the plan did and read no other key. Why that holds:
//
//   - A decision's action (keep, rewrite, delete) depends on the key, its
//     value, the target and the scope (the same flags) and, scoped, on the
//     collections that own a vchannel in scope (their query targets go).
//     The rest of the context (each consume checkpoint's WAL, which the run
//     rewrites; the gates; the names) decides no action, only examples, the
//     census and gates. So with the same collections every key decides as
//     in the plan: a key the plan kept holds its plan value and stays kept,
//     and each staged new value was decided again during the scan
//     (Planner.settled; apply.Replan.Unsettled counts those that were not).
//   - A plan reads the fixed prefixes, the config keys, and the
//     segment-assign records and consume checkpoints of the pchannels that
//     have them under streamingnode-meta/wal/. The run writes only keys the
//     plan read, and the mq.type override it decided: under
//     streamingnode-meta/wal/ it deletes segment-assign records and
//     rewrites consume checkpoints, and creates nothing. So at rev every
//     pchannel with either is one the plan read, and a plan there reads
//     only keys this one read, each holding what Unsettled decided.
//
// Scoped, the collections that own a vchannel in scope are read again at
// rev (the run rewrote their infos): other collections answer false, and
// the kit plans again. The whole instance needs no read.
func (pl *Plan) sameAt(ctx context.Context, rev int64) (bool, error) {
	if pl.planner.Whole {
		return true, nil
	}
	cols := newCollectionContext()
	if err := walk(ctx, pl.inst, rev, liveCollectionPrefixes, collectionPageSize, cols.add(pl.planner.InScope, true)); err != nil {
		return false, err
	}
	return maps.Equal(cols.owners, pl.planner.collections), nil
}
