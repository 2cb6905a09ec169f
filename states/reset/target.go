package reset

import (
	"context"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
)

// checkTarget adds the gate on a Kafka or Pulsar target's topics of the
// pchannels in scope (known: every pchannel of the instance) to the plan's
// context, with its warnings, and returns its reminder. It asks the target
// only when --kafka-brokers or --pulsar-admin is given; one that does not
// answer fails the plan before anything is written.
func (pl *Plan) checkTarget(ctx context.Context, rev int64, known map[string]bool) ([]string, error) {
	if pl.planner.WAL != commonpb.WALName_Kafka && pl.planner.WAL != commonpb.WALName_Pulsar {
		return nil, nil
	}
	var scope []string
	for _, pc := range models.NaturalKeys(known) {
		if pl.planner.InScope(pc) {
			scope = append(scope, pc)
		}
	}
	t, err := gates.TargetGate(ctx, pl.inst, rev, pl.planner.WALName, &pl.params.Flags, scope, pl.params.AllowNonEmptyTarget)
	if err != nil {
		return nil, err
	}
	pl.gates = append(pl.gates, t.Gate)
	pl.notes = append(pl.notes, t.Warnings...)
	return []string{t.Reminder}, nil
}
