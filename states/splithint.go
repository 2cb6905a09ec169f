package states

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// splitSample is how many segment and channel checkpoint keys connect
// reads for its split-state hint: a reset writes the segments first and in
// key order, then the channel checkpoints, and the consume checkpoints
// last, so the first keys of each show an interrupted run; show checkpoint
// reads them all.
const splitSample = 256

var errSampled = errors.New("sampled")

// splitHint is connect's one line about a split state ("" when the sample
// shows none): the consume checkpoints, and the first splitSample keys of
// the segments and of the channel checkpoints, counted by the models
// split-state rule. A read error gives no hint: connect does not fail on it.
func splitHint(ctx context.Context, inst *instance.Instance) string {
	rev, err := inst.Revision(ctx)
	if err != nil {
		return ""
	}
	census := models.NewWALCensus(nil)
	sampled := inst.WithPageSize(splitSample)
	read := func(prefix string, each func(e instance.Entry)) error {
		_, err := sampled.ScanMeta(ctx, prefix, rev, func(page []instance.KV) error {
			for _, kv := range page {
				rel, _ := inst.Layout.Rel(kv.Key)
				each(instance.Entry{KV: kv, Key: models.Classify(rel)})
			}
			return errSampled
		})
		if errors.Is(err, errSampled) {
			return nil
		}
		return err
	}
	var pchannels []string
	if err := read(models.PChannelPrefix, func(e instance.Entry) {
		if e.Kind == models.KindPChannel {
			pchannels = append(pchannels, e.PChannel)
		}
	}); err != nil || len(pchannels) == 0 {
		return ""
	}
	keys := make([]string, len(pchannels))
	for i, p := range pchannels {
		keys[i] = inst.Layout.Meta(models.ConsumeCheckpointKey(p))
	}
	cps, err := inst.GetMany(ctx, keys, rev)
	if err != nil {
		return ""
	}
	for _, kv := range cps {
		rel, _ := inst.Layout.Rel(kv.Key)
		k := models.Classify(rel)
		if cp, err := models.DecodeWALCheckpoint(kv.Value); err == nil && cp.HasMessageID {
			census.AddCheckpoint(k.PChannel, cp.WAL)
		}
	}
	if segmentHead(ctx, inst, rev, func(kv instance.KV) {
		if v, err := models.ViewSegment(kv.Value); err == nil {
			census.AddSegment(v)
		}
	}) != nil || read(models.ChannelCPPrefix, func(e instance.Entry) {
		if pos, err := models.DecodePosition(e.Value); err == nil && e.Kind == models.KindChannelCP && !models.IsDroppedChannelCP(pos) {
			census.Add(e.PChannel, pos.GetWALName(), pos.GetMsgID())
		}
	}) != nil {
		return ""
	}
	var split []models.PChannelWALs
	for _, p := range census.Report() {
		if p.Split {
			split = append(split, p)
		}
	}
	if len(split) == 0 {
		return ""
	}
	target := models.InterruptedTarget(split)
	if target == "" {
		target = "another WAL"
	}
	return fmt.Sprintf("instance is SPLIT: an interrupted reset to %s? (%s, in a sample of its keys) show checkpoint names the commands that complete it or roll it back",
		target, framework.Plural(len(split), "pchannel", ""))
}

// segmentHead calls each with the first splitSample segment keys, in key
// order. etcd counts every key of a limited range before it answers, so a
// read of the segment prefix's head costs a count of every segment (a
// quarter of a second at a million, in every connect). It reads windows
// from the prefix's start that each end after one collection's segments
// instead (the ids from the first page of collection keys, sorted as
// segment keys sort), so that each counts about its own keys. The windows
// tile the prefix, the last one its rest: a segment whose collection is
// not in the page falls in the window it sorts in, and the head is exact.
// After an empty window the next spans twice as many collections.
func segmentHead(ctx context.Context, inst *instance.Instance, rev int64, each func(kv instance.KV)) error {
	var ends []string
	for _, prefix := range []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix} {
		if _, err := inst.WithPageSize(splitSample).ScanKeys(ctx, inst.Layout.Meta(prefix), rev, func(page []instance.KV) error {
			for _, kv := range page {
				rel, _ := inst.Layout.Rel(kv.Key)
				if k := models.Classify(rel); k.Kind == models.KindCollectionInfo || k.Kind == models.KindLegacyCollection {
					ends = append(ends, instance.PrefixEnd(inst.Layout.Meta(models.CollectionSegmentPrefix(k.Collection))))
				}
			}
			return errSampled
		}); err != nil && !errors.Is(err, errSampled) {
			return err
		}
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	from := inst.Layout.Meta(models.SegmentPrefix)
	ends = append(ends, instance.PrefixEnd(from))
	left, span := splitSample, 1
	for i := 0; i < len(ends) && left > 0; {
		i = min(i+span, len(ends))
		kvs, _, err := inst.Span(ctx, from, ends[i-1], rev, left)
		if err != nil {
			return err
		}
		for _, kv := range kvs {
			each(kv)
		}
		left -= len(kvs)
		from = ends[i-1]
		span *= 2
		if len(kvs) > 0 {
			span = 1
		}
	}
	return nil
}
