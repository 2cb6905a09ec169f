package models_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
)

// A tally of segment positions taken before the consume checkpoints are
// known (restore's scan) counts each position in the bucket the census
// gives it when the checkpoints come first: tagged positions by their
// WAL_name, untagged ones by their pchannel's checkpoint, or "undecodable
// as" it. Positions of every kind: untagged ids of the checkpoint's WAL,
// untagged ids of another WAL (an interrupted reset's), tagged ones.
func TestPositionTallyCountsAsTheCensus(t *testing.T) {
	checkpoints := map[string]commonpb.WALName{"by-dev-rootcoord-dml_0": commonpb.WALName_Pulsar, "by-dev-rootcoord-dml_1": commonpb.WALName_Kafka,
		"by-dev-rootcoord-dml_2": commonpb.WALName_WoodPecker}
	var segments [][]byte
	n := int64(0)
	for _, pc := range []string{"by-dev-rootcoord-dml_0", "by-dev-rootcoord-dml_1", "by-dev-rootcoord-dml_2", "by-dev-rootcoord-dml_3"} {
		// As many segments of each id's WAL as its rank: no two buckets
		// count alike.
		for rank, idWAL := range []commonpb.WALName{commonpb.WALName_Pulsar, commonpb.WALName_Kafka, commonpb.WALName_WoodPecker, commonpb.WALName_RocksMQ} {
			for _, tag := range slices.Repeat([]commonpb.WALName{commonpb.WALName_Unknown, idWAL}, rank+1) {
				n++
				ch := pc + "_1v0"
				segments = append(segments, sample.Segment{ID: n, Collection: 1, Partition: 2, Channel: ch,
					Start: sample.Position(ch, sample.ID(idWAL, n), 10, tag), DML: sample.Position(ch, sample.ID(idWAL, n+1), 11, commonpb.WALName_Unknown)}.Encode())
			}
		}
	}
	segment := models.Classify("datacoord-meta/s/1/2/3")
	if segment.Kind != models.KindSegment {
		t.Fatalf("classify: %+v", segment)
	}

	// The census as a walk counts it: checkpoints first, then the segments.
	want := models.NewWALCensus(nil)
	for pc, w := range checkpoints {
		want.AddCheckpoint(pc, w)
	}
	for _, v := range segments {
		want.AddValue(segment, v)
	}
	// The tally: segments first, the checkpoints read after them.
	tally := models.NewPositionTally()
	for _, v := range segments {
		tally.AddValue(segment, v)
	}
	tally.AddValue(models.Classify("datacoord-meta/channel-cp/x"), segments[0]) // not a segment: counts nowhere
	got := models.NewWALCensus(nil)
	for pc, w := range checkpoints {
		got.AddCheckpoint(pc, w)
	}
	tally.AddTo(got)

	if !reflect.DeepEqual(got.Report(), want.Report()) {
		t.Fatalf("tally counted\n%+v\nthe census\n%+v", got.Report(), want.Report())
	}
	// The sample has what the test means to cover: undecodable buckets and
	// a pchannel without a checkpoint.
	buckets := map[string]bool{}
	for _, r := range want.Report() {
		for b := range r.Positions {
			buckets[r.CheckpointWAL+": "+b] = true
		}
	}
	for _, b := range []string{"pulsar: undecodable as pulsar", "kafka: undecodable as kafka", "woodpecker: undecodable as woodpecker", "none: unknown", "pulsar: kafka"} {
		if !buckets[b] {
			t.Fatalf("the sample lacks the bucket %q: %v", b, buckets)
		}
	}
}
