package models_test

import (
	"testing"

	"github.com/heron-shell/heron/models"
)

// Issue 27 item 2: the WAL an interrupted reset moved to is the one most
// moved positions name, not the consume checkpoints' (written last), and
// not an "undecodable as" bucket.
func TestInterruptedTarget(t *testing.T) {
	split := []models.PChannelWALs{
		{PChannel: "dml_0", CheckpointWAL: "pulsar", Positions: map[string]int64{"pulsar": 9, "kafka": 2, "undecodable as pulsar": 5}, Split: true},
		{PChannel: "dml_1", CheckpointWAL: "pulsar", Positions: map[string]int64{"pulsar": 9, "kafka": 1, "woodpecker": 2}, Split: true},
	}
	if got := models.InterruptedTarget(split); got != "kafka" {
		t.Fatalf("InterruptedTarget = %q, want kafka", got)
	}
	if got := models.InterruptedTarget([]models.PChannelWALs{{CheckpointWAL: "pulsar", Positions: map[string]int64{"pulsar": 3, "undecodable as pulsar": 2}}}); got != "" {
		t.Fatalf("no moved position: %q", got)
	}
}
