package reset

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
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
	census    *models.WALCensus
	total     int64
	// dry: the dry run, whose decisions build no new segment value.
	dry bool
	// segments views the segments (their channel names kept, not copied
	// per key).
	segments models.SegmentViewer

	unflushed, assigns int64
	unflushedKeys      []string
	// unflushedColls are the collections of unflushed segments in scope.
	unflushedColls map[int64]bool

	// alter: the alter_wal_state each consume checkpoint carries, by
	// pchannel (in scope: cleared by the run; out of scope: the one-WAL gate).
	alter map[string]*models.AlterWALState
	// empty are the keys whose empty value the run rewrites.
	empty []string
	// limit counts the values the run writes over etcd's request limit.
	limit apply.RequestLimit
}

// maxValueBytes is etcd's default --max-request-bytes (1.5 MiB): a larger
// value fails its transaction on a default etcd.
const maxValueBytes = 3 << 19

func newAccumulator(p *Planner) *accumulator {
	return &accumulator{p: p, kinds: map[string]*KindCount{}, deletions: map[string]*Deletion{},
		assignPCs: map[string]bool{}, kept: map[[2]string]int64{}, census: models.NewWALCensus(p.checkpointWAL),
		alter: map[string]*models.AlterWALState{}, unflushedColls: map[int64]bool{}}
}

// decide plans one entry under the meta root, adds it, and returns the decision.
func (a *accumulator) decide(e instance.Entry) (Decision, error) {
	d, err := a.p.decide(e.Key, e.Value, !a.dry, &a.segments)
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			de.Key = e.KV.Key
		}
		return d, err
	}
	if d.Kind == KindSegment && d.Unflushed {
		a.unflushed++
		a.unflushedColls[e.Collection] = true
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

// decideConfig plans an mq.type override (absent: the key the run
// creates), adds it, and returns the decision.
func (a *accumulator) decideConfig(kv instance.KV, absent bool) Decision {
	d := a.p.DecideConfig(kv.Value)
	a.add(kv.Key, models.Key{}, kv.Value, d)
	if k := a.kinds[KindMQType]; absent && k != nil {
		for i := range k.Examples {
			if k.Examples[i].Key == kv.Key {
				k.Examples[i].Before = "absent"
			}
		}
	}
	return d
}

// add counts one decision on the absolute key; the planner describes the
// key only while the plan still wants an example of its kind.
func (a *accumulator) add(key string, k0 models.Key, value []byte, d Decision) {
	for _, t := range d.tags() {
		if t.Checkpoint {
			a.census.AddCheckpoint(t.PChannel, t.WAL)
		} else {
			a.census.Add(t.PChannel, t.WAL, t.Data)
		}
	}
	if d.AlterWAL != nil {
		a.alter[k0.PChannel] = d.AlterWAL
	}
	if d.Action == Rewrite {
		if d.Empty && len(a.empty) < maxListedKeys {
			a.empty = append(a.empty, key)
		}
		a.limit.Add(key, d.Value)
		if d.AlterWAL != nil && d.Kind == KindConsumeCP {
			// The rewrite moves the id and clears the state: the state
			// is listed as its own kind too (total_keys counts the key once).
			a.count(KindAlterWALState, key, k0, value, Decision{Action: Rewrite, Kind: KindAlterWALState})
		}
	}
	switch d.Action {
	case Keep:
		if d.Kind != "" {
			a.kept[[2]string{d.Kind, d.Reason}]++
		}
	case Rewrite:
		a.total++
		a.count(d.Kind, key, k0, value, d)
	case Delete:
		a.total++
		del := a.deletions[d.Kind]
		if del == nil {
			del = &Deletion{Kind: d.Kind}
			a.deletions[d.Kind] = del
		}
		del.Count++
		del.Examples = a.example(del.Examples, key, k0, value, d)
		if !a.p.Whole {
			if len(del.Keys) < maxListedKeys {
				del.Keys = append(del.Keys, key)
			} else {
				del.More++
			}
		}
	}
}

// count adds one rewritten key to the count of kind.
func (a *accumulator) count(kind, key string, k0 models.Key, value []byte, d Decision) {
	k := a.kinds[kind]
	if k == nil {
		k = &KindCount{Kind: kind, Examples: []Example{}}
		a.kinds[kind] = k
	}
	k.Keys++
	k.Positions += int64(d.Positions)
	k.Examples = a.example(k.Examples, key, k0, value, d)
}

// example adds key to examples if it is among the maxExamples naturally
// first keys of its kind (dml_2 before dml_10: keys come in etcd's text
// order), keeping them in that order; only a key that goes in is described.
func (a *accumulator) example(examples []Example, key string, k0 models.Key, value []byte, d Decision) []Example {
	if len(examples) >= maxExamples && !models.NaturalLess(key, examples[len(examples)-1].Key) {
		return examples
	}
	before, after := a.p.Describe(k0, value, d)
	i := len(examples)
	for i > 0 && models.NaturalLess(key, examples[i-1].Key) {
		i--
	}
	examples = slices.Insert(examples, i, Example{Key: key, Before: before, After: after})
	return examples[:min(len(examples), maxExamples)]
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
					for _, pc := range models.NaturalKeys(a.assignPCs) {
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
	for _, c := range a.census.Report() {
		s.SplitState = append(s.SplitState, PChannelWALs{PChannelWALs: c, InScope: a.p.InScope(c.PChannel)})
		if c.Split {
			s.SplitPChannels = append(s.SplitPChannels, c.PChannel)
		}
	}
}

// split reports whether a pchannel's positions name more than one WAL (an
// interrupted reset left them).
func (a *accumulator) split() bool {
	for _, c := range a.census.Report() {
		if c.Split {
			return true
		}
	}
	return false
}
