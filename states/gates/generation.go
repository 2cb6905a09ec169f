package gates

import (
	"context"
	"fmt"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// GenerationName is the gate every write command runs first: heron's writes
// model Milvus 2.6 and later only.
const GenerationName = "a streaming (2.6 or later) instance"

// DetectGeneration counts, at rev, the keys under each marker prefix of
// models.StreamingMarkers and, when none has a key, of
// models.DatacoordMarkers, and applies the models rule (streaming keys
// decide: the datacoord counts, O(segments) work for etcd, matter only
// without them).
func DetectGeneration(ctx context.Context, inst *instance.Instance, rev int64) (models.Generation, map[string]int64, error) {
	counts := map[string]int64{}
	for _, markers := range [][]string{models.StreamingMarkers, models.DatacoordMarkers} {
		for _, p := range markers {
			n, err := inst.Count(ctx, inst.Layout.Meta(p), rev)
			if err != nil {
				return "", nil, err
			}
			counts[p] = n
		}
		if gen := models.GenerationOf(counts); gen == models.GenerationStreaming {
			return gen, counts, nil
		}
	}
	return models.GenerationOf(counts), counts, nil
}

// Generation is the gate "a streaming (2.6 or later) instance": it refuses a
// pre-streaming (2.5 or older) instance, naming what it found and why.
func Generation(ctx context.Context, inst *instance.Instance, rev int64) (framework.Gate, error) {
	gen, counts, err := DetectGeneration(ctx, inst, rev)
	if err != nil {
		return framework.Gate{}, err
	}
	g := framework.Gate{Name: GenerationName, OK: true}
	switch gen {
	case models.GenerationStreaming:
		g.Detail = "streaming keys found: " + models.DescribeCounts(models.StreamingMarkers, counts)
	case models.GenerationEmpty:
		g.Detail = "no streaming keys and no datacoord positions under " + inst.Layout.MetaRoot() + " (nothing that tells the generation)"
	default:
		found := models.DescribeCounts(models.DatacoordMarkers, counts)
		g.OK, g.Count = false, 1
		g.Fix = []framework.Step{{Order: framework.StepRerun, Text: "do not re-run: upgrade Milvus to 2.6 or later first (its upgrade writes the streaming keys heron's writes need)"}}
		g.Keys = []string{found}
		g.Detail = fmt.Sprintf("%s is a %s Milvus instance: no keys under %sstreamingnode-meta/ or streamingcoord-meta/, but datacoord positions under %s; %s",
			inst.Layout.RootPath, gen, inst.Layout.MetaRoot(), found, models.PreStreamingWhy)
	}
	return g, nil
}
