package restore

import (
	"context"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
)

// The split-state check after a restore (gates.SplitStateCheck) counts the
// positions of every segment: at a million segments, reading them all
// again after the write costs about what the scan did. A run's scan reads
// them already: its entries, and the other keys its spans read between
// them. So a run tallies the positions each segment key holds once the
// restore is done (an entry's backed-up value, absent when the backup has
// none; any other key its value at the plan's revision) and counts the
// segment keys it read at that revision; when those are every key under
// the segment prefix there (a count-only read, answered from etcd's
// index), the verify whose revisions prove that etcd holds the plan's
// revision plus exactly the run's ops reads only the other positions:
// consume checkpoints, collections, channel checkpoints
// (gates.SplitPChannelsWith). Otherwise it reads them all, as before.
//
// The same scan tallies the positions each segment key holds before the
// restore (an entry's current value): whether the run finds a split state
// (an interrupted run left it), which its own backup then holds
// (splitBefore), is read the same way.

// segmentTally is the tally a run's scan keeps (nil: none).
type segmentTally struct {
	pl *Plan
	// tally: once the restore is done; before: at the plan's revision.
	tally, before *models.PositionTally
	// whole: keys are every segment key at the plan's revision (complete).
	whole bool
	// keys counts the segment-prefix keys the scan read at the plan's
	// revision. The runs being disjoint, no key is read twice: when they
	// are as many as the keys there, the scan read every one (a span that
	// stopped short of its range, or a key outside the runs, makes them
	// fewer).
	keys int64
}

// tallySegments starts the tally of a run (run: the scan stages ops) of a
// backup that asks for the split-state check, whose runs are disjoint (the
// keys its spans read besides its entries are keys the file does not
// hold), and keeps the other keys the spans read (sp.others).
func (pl *Plan) tallySegments(run bool, sp *spanned) *segmentTally {
	pl.segments = nil
	if !run || !pl.beside || pl.Backup.AfterRestore != gates.SplitStateCheck {
		return nil
	}
	t := &segmentTally{pl: pl, tally: models.NewPositionTally(), before: models.NewPositionTally()}
	sp.others = func(kvs []instance.KV) {
		for _, kv := range kvs {
			k, ok := t.segment(kv.Key)
			if !ok {
				continue
			}
			t.keys++
			// The restore leaves it as it is: decoded once, tallied twice.
			if k.Kind != models.KindSegment {
				continue
			}
			if v, err := models.ViewSegment(kv.Value); err == nil {
				t.tally.AddSegment(v)
				t.before.AddSegment(v)
			}
		}
	}
	return t
}

// segment classifies a key under the segment prefix (false: another key).
func (t *segmentTally) segment(key string) (models.Key, bool) {
	rel, ok := t.pl.inst.Layout.Rel(key)
	if !ok || !strings.HasPrefix(rel, models.SegmentPrefix) {
		return models.Key{}, false
	}
	return models.Classify(rel), true
}

// entry tallies an entry of the file, whose key holds cur at the plan's
// revision and its backed-up state once the restore is done.
func (t *segmentTally) entry(e apply.Entry, cur instance.KV) {
	if t == nil {
		return
	}
	k, ok := t.segment(e.Key)
	if !ok {
		return
	}
	if cur.ModRevision != 0 {
		t.keys++
		t.before.AddValue(k, cur.Value)
	}
	if !e.Absent {
		t.tally.AddValue(k, e.Value)
	}
}

// complete keeps the tally for the verify when the scan read every key
// under the segment prefix at the plan's revision.
func (t *segmentTally) complete(ctx context.Context) error {
	if t == nil {
		return nil
	}
	n, err := t.pl.inst.Count(ctx, t.pl.inst.Layout.Meta(models.SegmentPrefix), t.pl.Revision)
	switch {
	case err != nil && framework.IsStaleRead(err):
		// etcd compacted the plan's revision after the scan read it: the
		// plan stands, without a tally (the verify reads every segment).
		return nil
	case err != nil:
		return err
	}
	if n == t.keys {
		t.pl.segments, t.whole = t.tally, true
	}
	return nil
}

// splitBefore are the pchannels in a split state at the plan's revision,
// read on a run of a backup that asks for the split-state check (nil
// otherwise): the segments' positions from the tally t when the scan read
// them all, else every position. When etcd compacted the plan's revision
// since the scan, every position now: the keys the run writes are guarded
// to hold what the scan read.
func (pl *Plan) splitBefore(ctx context.Context, t *segmentTally) ([]string, error) {
	if pl.Backup.AfterRestore != gates.SplitStateCheck {
		return nil, nil
	}
	var split []string
	var err error
	if t != nil && t.whole {
		split, err = gates.SplitPChannelsWith(ctx, pl.inst, pl.Revision, t.before)
	} else {
		split, err = gates.SplitPChannels(ctx, pl.inst, pl.Revision)
	}
	if !framework.IsStaleRead(err) {
		return split, err
	}
	rev, err := pl.inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	return gates.SplitPChannels(ctx, pl.inst, rev)
}
