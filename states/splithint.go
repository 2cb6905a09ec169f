package states

import (
	"context"
	"errors"
	"fmt"

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
		n := 0
		_, err := sampled.ScanMeta(ctx, prefix, rev, func(page []instance.KV) error {
			for _, kv := range page[:min(len(page), splitSample-n)] {
				rel, _ := inst.Layout.Rel(kv.Key)
				each(instance.Entry{KV: kv, Key: models.Classify(rel)})
			}
			// A page may hold fewer (a segment scan's first window ends
			// after a few collections' segments): read on to the sample.
			if n += len(page); n >= splitSample {
				return errSampled
			}
			return nil
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
	if read(models.SegmentPrefix, func(e instance.Entry) {
		if v, err := models.ViewSegment(e.Value); err == nil && e.Kind == models.KindSegment {
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
