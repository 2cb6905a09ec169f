package show

import (
	"context"
	"fmt"
	"io"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
)

// TargetRow says which target show checkpoint asked about its topics.
type TargetRow struct {
	// WAL is kafka or pulsar.
	WAL string `json:"wal"`
	// Endpoint is --kafka-brokers or --pulsar-admin.
	Endpoint string `json:"endpoint"`
}

// addGeneration sets the instance's Milvus generation (the models rule over
// its keys at the result's revision), with what tells it.
func addGeneration(ctx context.Context, inst *instance.Instance, res *CheckpointResult) error {
	gen, counts, err := gates.DetectGeneration(ctx, inst, res.Revision)
	if err != nil {
		return err
	}
	res.Generation = string(gen)
	if gen == models.GenerationPreStreaming {
		res.generationNote = fmt.Sprintf("no keys under streamingnode-meta/ or streamingcoord-meta/, but datacoord positions under %s: %s",
			models.DescribeCounts(models.DatacoordMarkers, counts), models.PreStreamingWhy)
	}
	return nil
}

// addTargetTopics asks the target the flags name about the topic of every
// pchannel reported, at the result's revision (for the Pulsar tenant and
// namespace overrides), and sets each row's target_topic.
func addTargetTopics(ctx context.Context, inst *instance.Instance, f *targetcheck.Flags, res *CheckpointResult) error {
	if !f.Kafka() && !f.Pulsar() {
		return nil
	}
	names := make([]string, len(res.PChannels))
	for i, p := range res.PChannels {
		names[i] = p.Name
	}
	wal, topics, _, err := gates.TargetTopics(ctx, inst, res.Revision, f, names)
	if err != nil {
		return err
	}
	res.Target = &TargetRow{WAL: wal, Endpoint: f.KafkaBrokers + f.PulsarAdmin}
	for i := range res.PChannels {
		t := topics[i]
		res.PChannels[i].TargetTopic = &t
	}
	return nil
}

// generationBlock heads the table of a pre-streaming instance.
func (r *CheckpointResult) generationBlock(w io.Writer) {
	if r.Generation != string(models.GenerationPreStreaming) {
		return
	}
	fmt.Fprintf(w, "!!! MILVUS GENERATION: %s !!!\n%s\n", r.Generation, r.generationNote)
	fmt.Fprintln(w, "heron's write commands refuse this instance; the listing below reads it as a 2.6 instance would be read.")
	fmt.Fprintln(w)
}

// targetTable lists, after the pchannel table, each pchannel's topic on the
// target checked.
func (r *CheckpointResult) targetTable(w io.Writer) error {
	if r.Target == nil {
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "TARGET TOPICS (%s at %s; a reset to %s needs each absent or empty)\n", r.Target.WAL, r.Target.Endpoint, r.Target.WAL)
	t := newTable(w, "PCHANNEL", "TOPIC", "STATE")
	for _, p := range r.PChannels {
		if p.TargetTopic != nil {
			t.row(p.Name, p.TargetTopic.Topic, p.TargetTopic.Short())
		}
	}
	return t.flush()
}

// targetLines are the line format's target_topic lines.
func (r *CheckpointResult) targetLines(w io.Writer) error {
	for _, p := range r.PChannels {
		if t := p.TargetTopic; t != nil {
			var lo, hi, entries string
			if t.LowWatermark != nil {
				lo, hi = i64(*t.LowWatermark), i64(*t.HighWatermark)
			}
			if t.Entries != nil {
				entries = i64(*t.Entries)
			}
			if err := line(w, "target_topic", "pchannel", p.Name, "wal", r.Target.WAL, "topic", t.Topic, "state", t.State,
				"low_watermark", lo, "high_watermark", hi, "partitions", itoa(int(t.Partitions)), "entries", entries); err != nil {
				return err
			}
		}
	}
	return nil
}
