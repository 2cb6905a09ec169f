package reset

import (
	"errors"
	"fmt"
	"sort"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/instance"
)

// accumulator folds the planner's decisions into the plan summary while keys
// stream by: counters and a few examples per kind, one map per pchannel.
type accumulator struct {
	p         *Planner
	kinds     map[string]*KindCount
	deletions map[string]*Deletion
	assignPCs map[string]bool // pchannels with segment-assign records to delete
	kept      map[[2]string]int64
	tags      map[string]map[string]int64
	total     int64

	unflushed, assigns int64
	unflushedKeys      []string
}

func newAccumulator(p *Planner) *accumulator {
	return &accumulator{p: p, kinds: map[string]*KindCount{}, deletions: map[string]*Deletion{},
		assignPCs: map[string]bool{}, kept: map[[2]string]int64{}, tags: map[string]map[string]int64{}}
}

// decide plans one entry under the meta root, adds it, and returns the decision.
func (a *accumulator) decide(e instance.Entry) (Decision, error) {
	d, err := a.p.Decide(e.Key, e.Value)
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			de.Key = e.KV.Key
		}
		return d, err
	}
	if d.Kind == KindSegment && d.Unflushed {
		a.unflushed++
		if len(a.unflushedKeys) < maxGateKeys {
			a.unflushedKeys = append(a.unflushedKeys, fmt.Sprintf("%s (%s)", e.KV.Key, d.State))
		}
	}
	if d.Kind == KindSegmentAssign && d.Action == Delete {
		a.assigns++
		a.assignPCs[e.PChannel] = true
		if len(a.unflushedKeys) < maxGateKeys {
			a.unflushedKeys = append(a.unflushedKeys, e.KV.Key+" (segment-assign)")
		}
	}
	a.add(e.KV.Key, e.Key, e.Value, d)
	return d, nil
}

// decideConfig plans an mq.type override, adds it, and returns the decision.
func (a *accumulator) decideConfig(kv instance.KV) Decision {
	d := a.p.DecideConfig(kv.Value)
	a.add(kv.Key, models.Key{}, kv.Value, d)
	return d
}

// add counts one decision on the absolute key; the planner describes the
// key only while the plan still wants an example of its kind.
func (a *accumulator) add(key string, k0 models.Key, value []byte, d Decision) {
	for _, t := range d.Tags {
		m := a.tags[t.PChannel]
		if m == nil {
			m = map[string]int64{}
			a.tags[t.PChannel] = m
		}
		m[a.bucket(t)]++
	}
	switch d.Action {
	case Keep:
		if d.Kind != "" {
			a.kept[[2]string{d.Kind, d.Reason}]++
		}
	case Rewrite:
		a.total++
		k := a.kinds[d.Kind]
		if k == nil {
			k = &KindCount{Kind: d.Kind, Examples: []Example{}}
			a.kinds[d.Kind] = k
		}
		k.Keys++
		k.Positions += int64(d.Positions)
		if len(k.Examples) < maxExamples {
			before, after := a.p.Describe(k0, value, d)
			k.Examples = append(k.Examples, Example{Key: key, Before: before, After: after})
		}
	case Delete:
		a.total++
		del := a.deletions[d.Kind]
		if del == nil {
			del = &Deletion{Kind: d.Kind}
			a.deletions[d.Kind] = del
		}
		del.Count++
		if len(del.Examples) < maxExamples {
			before, after := a.p.Describe(k0, value, d)
			del.Examples = append(del.Examples, Example{Key: key, Before: before, After: after})
		}
		if !a.p.Whole {
			if len(del.Keys) < maxListedKeys {
				del.Keys = append(del.Keys, key)
			} else {
				del.More++
			}
		}
	}
}

// bucket names the WAL a position counts for in the split-state report: its
// WAL_name; for an untagged one the WAL of its pchannel's consume checkpoint,
// or "undecodable as W" when its id does not decode in that WAL (as the ids
// an interrupted reset wrote into untagged collection start positions).
func (a *accumulator) bucket(t Tag) string {
	if t.WAL != commonpb.WALName_Unknown {
		return msgid.Name(t.WAL)
	}
	cw, _ := a.p.CheckpointWAL(t.PChannel)
	if t.Data != nil {
		if c, err := msgid.For(cw); err == nil {
			if _, err := c.DecodeBytes(t.Data); err != nil {
				return "undecodable as " + msgid.Name(cw)
			}
		}
	}
	return msgid.Name(cw)
}

// finish writes the counts into the summary.
func (a *accumulator) finish(s *Summary, l models.Layout) {
	s.Rewrites = []KindCount{}
	s.Deletions = []Deletion{}
	s.Kept = []Kept{}
	for _, kind := range kindOrder {
		if k := a.kinds[kind]; k != nil {
			s.Rewrites = append(s.Rewrites, *k)
		}
		if d := a.deletions[kind]; d != nil {
			if a.p.Whole {
				d.Unit, d.Keys = "prefix", nil
				switch kind {
				case KindQueryTarget:
					d.Prefixes = []string{l.Meta(models.QueryTargetPrefix)}
				case KindSegmentAssign:
					for _, pc := range sortedKeys(a.assignPCs) {
						d.Prefixes = append(d.Prefixes, l.Meta(models.SegmentAssignPrefix(pc)))
					}
				}
			} else {
				d.Unit = "keys"
			}
			s.Deletions = append(s.Deletions, *d)
		}
	}
	rank := map[string]int{}
	for i, k := range kindOrder {
		rank[k] = i
	}
	for k, n := range a.kept {
		s.Kept = append(s.Kept, Kept{Kind: k[0], Reason: k[1], Keys: n})
	}
	sort.Slice(s.Kept, func(i, j int) bool {
		if s.Kept[i].Kind != s.Kept[j].Kind {
			return rank[s.Kept[i].Kind] < rank[s.Kept[j].Kind]
		}
		return s.Kept[i].Reason < s.Kept[j].Reason
	})
	s.TotalKeys = a.total
	s.SplitState = []PChannelWALs{}
	s.SplitPChannels = []string{}
	pcs := make([]string, 0, len(a.tags))
	for pc := range a.tags {
		pcs = append(pcs, pc)
	}
	sort.Strings(pcs)
	for _, pc := range pcs {
		cw, ok := a.p.CheckpointWAL(pc)
		r := PChannelWALs{PChannel: pc, InScope: a.p.InScope(pc), CheckpointWAL: msgid.Name(cw),
			Positions: a.tags[pc], Split: len(a.tags[pc]) > 1}
		if !ok {
			r.CheckpointWAL = "none"
		}
		s.SplitState = append(s.SplitState, r)
		if r.Split {
			s.SplitPChannels = append(s.SplitPChannels, pc)
		}
	}
}
