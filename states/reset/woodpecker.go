package reset

import (
	"context"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/woodpecker"
)

// checkWoodpecker runs, for a woodpecker target, the gate "woodpecker target
// is empty" over woodpecker's metadata at rev (known: the instance's
// pchannels) and keeps the effective prefix for the reminders.
func (pl *Plan) checkWoodpecker(ctx context.Context, rev int64, known map[string]bool) error {
	if pl.planner.WAL != commonpb.WALName_WoodPecker {
		return nil
	}
	inv, err := woodpecker.Find(ctx, pl.inst, rev, woodpecker.Options{MetaPrefix: pl.params.WPMetaPrefix, PChannels: known})
	if err != nil {
		return err
	}
	g := gates.WoodpeckerTarget(inv, pl.planner.InScope, !pl.planner.Whole, pl.params.AllowNonEmptyTarget)
	if g.Overridden {
		pl.notes = append(pl.notes, g.Detail)
	}
	pl.gates = append(pl.gates, g)
	pl.wpEffective = &inv.Effective
	return nil
}
