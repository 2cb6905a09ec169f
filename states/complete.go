package states

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// Completion kinds the connected state lists (a flag's complete tag, by
// default the flag's name: --pchannel, --collection, --state of show
// segment; a flag named so that means something else tags complete:"-").
const (
	CompletePChannel     = "pchannel"
	CompleteCollection   = "collection"
	CompleteSegmentState = "state"
	// CompleteCollectionName lists collection names (show collections --name).
	CompleteCollectionName = "collection-name"
	// CompleteCollectionState lists the states show collections names.
	CompleteCollectionState = "collection-state"
)

// maxCompletions bounds the values one kind keeps for completion.
const maxCompletions = 1000

// errEnough ends a walk that found maxCompletions values.
var errEnough = errors.New("enough values")

// completionCache holds a connected state's completion values, read at one
// etcd revision: typing a word asks again at every key, and a revision check
// is one small request where a listing is a scan. Each state has its own.
type completionCache struct {
	sync.Mutex
	rev      int64
	values   map[string][]framework.Completion
	failedAt time.Time // a read that failed: no new try for a while, so typing stays fluent
}

// completionRetry is how long completion waits after a failed read.
const completionRetry = 5 * time.Second

// CompleteValues lists the pchannel names or the collection ids (with their
// names) of the connected instance, for the REPL's completion of flags such
// as --pchannel and --collection. Values are cached per etcd revision; an
// error yields no values.
func (c *Connected) CompleteValues(ctx context.Context, kind string) []framework.Completion {
	var prefixes []string
	switch kind {
	case CompleteSegmentState:
		return segmentStates()
	case CompletePChannel:
		prefixes = []string{models.PChannelPrefix, models.WALPrefix}
	case CompleteCollectionState:
		return []framework.Completion{{Value: "Created"}, {Value: "Creating"}, {Value: "Dropping"}, {Value: "Dropped"}, {Value: "dropped-tombstone"}}
	case CompleteCollection, CompleteCollectionName:
		prefixes = []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}
	default:
		return nil
	}
	cache := &c.completions
	cache.Lock()
	defer cache.Unlock()
	if time.Since(cache.failedAt) < completionRetry {
		return nil
	}
	rev, err := c.inst.Revision(ctx)
	if err != nil {
		cache.values, cache.failedAt = nil, time.Now()
		return nil
	}
	if cache.rev != rev || cache.values == nil {
		cache.rev, cache.values, cache.failedAt = rev, map[string][]framework.Completion{}, time.Time{}
	}
	if v, ok := cache.values[kind]; ok {
		return v
	}
	seen := map[string]string{}
	_, err = c.inst.Walk(ctx, rev, prefixes, func(e instance.Entry) error {
		if len(seen) >= maxCompletions {
			return errEnough
		}
		switch e.Kind {
		case models.KindPChannel, models.KindConsumeCheckpoint:
			if kind == CompletePChannel && e.PChannel != "" {
				seen[e.PChannel] = ""
			}
		case models.KindCollectionInfo, models.KindLegacyCollection:
			if kind != CompleteCollection && kind != CompleteCollectionName {
				break
			}
			note := ""
			if ci, err := models.DecodeCollectionInfo(e.Value); err == nil {
				note = ci.Name
			}
			id := strconv.FormatInt(e.Collection, 10)
			switch {
			case kind == CompleteCollection:
				seen[id] = note
			case note != "":
				seen[note] = "id " + id
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		cache.failedAt = time.Now()
		return nil
	}
	out := make([]framework.Completion, 0, len(seen))
	for v, note := range seen {
		out = append(out, framework.Completion{Value: v, Note: note})
	}
	sort.Slice(out, func(i, j int) bool { return lessNatural(out[i].Value, out[j].Value) })
	cache.values[kind] = out
	return out
}

// segmentStates are the states a segment can be shown in (show segment
// --state), in the order of their values; None and NotExist are never stored.
func segmentStates() []framework.Completion {
	var out []framework.Completion
	for v := commonpb.SegmentState_Growing; ; v++ {
		if _, ok := commonpb.SegmentState_name[int32(v)]; !ok {
			return out
		}
		out = append(out, framework.Completion{Value: models.SegmentStateName(v)})
	}
}

// lessNatural orders completed values as the show listings order them: dml_2
// before dml_10, 9 before 10.
var lessNatural = models.NaturalLess
