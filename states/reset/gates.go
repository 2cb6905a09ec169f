package reset

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
)

// scanGates are the context's gates, then the scan's (the
// unflushed-segment gate, scoped the one-WAL gate, the request limit),
// after the instance's; for a split state it reads the backup folder (the
// interrupted run's backup the view names).
func (pl *Plan) scanGates(context.Context) ([]Gate, error) {
	a := pl.acc
	out := append([]Gate{}, pl.gates...)
	pl.growing = nil
	{
		unflushed := a.unflushed + a.assigns
		g := gate("no unflushed segment in scope", unflushed, a.unflushedKeys,
			"no Growing, Sealed or Flushing segment and no segment-assign record in scope",
			fmt.Sprintf("%s and %s in scope: their rows exist only in the old MQ; flush them first",
				framework.Plural(a.unflushed, "Growing, Sealed or Flushing segment", ""), framework.Plural(a.assigns, "segment-assign record", "")))
		if !g.OK {
			g.Fix = append([]framework.Step{{Order: framework.StepOnOldWAL, Text: pl.flushStep(a)}}, gates.StopSteps()...)
		}
		if unflushed > 0 && pl.params.AllowGrowing {
			g.OK, g.Overridden, g.Fix = true, true, nil
			g.Detail = fmt.Sprintf("--allow-growing: %d Growing, Sealed or Flushing segments and %d segment-assign records in scope; their unflushed rows are LOST (flushed data survives)", a.unflushed, a.assigns)
			pl.growing = append(pl.growing, g.Detail)
		}
		out = append(out, g)
		if !pl.planner.Whole {
			out = append(out, pl.oneWALGate(a))
		}
		if g, ok := a.limit.Gate(); ok {
			out = append(out, g)
		}
	}
	if a.split() {
		pl.nameSplitBackup()
	}
	return out, nil
}

func gate(name string, count int64, keys []string, okDetail, failDetail string) Gate {
	g := Gate{Name: name, OK: count == 0, Count: count, Detail: okDetail}
	if count > 0 {
		g.Keys = keys
		g.Detail = failDetail
	}
	return g
}

// warnings are what the scan found that the operator must know: each one a
// rule of its own, listing its keys.
func (pl *Plan) warnings(a *accumulator) []string {
	var w []string
	if len(pl.SplitPChannels) > 0 {
		w = append(w, fmt.Sprintf("split state on %s (positions in more than one WAL, as an interrupted reset leaves them): this run completes it",
			strings.Join(pl.SplitPChannels, ", ")))
	}
	var alter []string
	for _, pc := range models.NaturalKeys((a.alter)) {
		if pl.planner.InScope(pc) {
			alter = append(alter, fmt.Sprintf("%s (%s)", pc, a.alter[pc].Describe()))
		}
	}
	if len(alter) > 0 {
		w = append(w, "an online WAL switch of Milvus is recorded in the consume checkpoint (alter_wal_state) of "+strings.Join(alter, ", ")+
			": Milvus would resume it toward that target on start; the run removes it")
	}
	if len(a.empty) > 0 {
		w = append(w, fmt.Sprintf("empty values rewritten with %s's earliest position: %s", pl.TargetWAL, listKeys(a.empty)))
	}
	if on := pl.allOnTarget(a); on {
		w = append(w, fmt.Sprintf("every position in scope already names %s (--target-wal is the WAL in use): the plan only moves positions to its earliest id, which needs fresh topics", pl.TargetWAL))
	}
	return w
}

// allOnTarget reports whether every position in scope already names the
// target WAL (and there is at least one).
func (pl *Plan) allOnTarget(a *accumulator) bool {
	some := false
	for _, c := range a.census.Report() {
		if !pl.planner.InScope(c.PChannel) {
			continue
		}
		if !a.census.OnlyOn(c.PChannel, pl.planner.WAL) {
			return false
		}
		some = some || len(c.Positions) > 0
	}
	return some
}

// oneWALGate is the rule that Milvus 2.6 decodes every position with the one
// configured WAL (its querynode ignores a position's WAL_name;
// shared/milvus-metadata.md section 4): after a scoped run every pchannel
// out of scope must already be on the target, its consume checkpoint and
// every position, with no online switch recorded.
func (pl *Plan) oneWALGate(a *accumulator) Gate {
	var off []string
	for _, pc := range pl.knownOutOfScope(a) {
		c := a.census.PChannel(pc)
		switch {
		case !a.census.OnlyOn(pc, pl.planner.WAL):
			off = append(off, fmt.Sprintf("%s (%s)", pc, walCounts(c.Positions)))
		case a.alter[pc] != nil:
			off = append(off, fmt.Sprintf("%s (%s)", pc, a.alter[pc].Describe()))
		}
	}
	name := "one WAL for the whole instance"
	if len(off) == 0 {
		return Gate{Name: name, OK: true, Detail: fmt.Sprintf("every pchannel out of scope is already on %s", pl.TargetWAL)}
	}
	return Gate{Name: name, Count: int64(len(off)), Keys: off[:min(len(off), maxGateKeys)],
		Fix: []framework.Step{{Order: framework.StepRerun, Text: "re-run without --pchannel (the whole instance)"}},
		Detail: fmt.Sprintf("after this run %s would still be on another WAL than %s, and Milvus decodes every position with one WAL: run without --pchannel",
			strings.Join(off, ", "), pl.TargetWAL)}
}

// flushStep names the collections whose segments are unflushed (by name
// and id), or the pchannels of segment-assign records, to flush with
// Milvus on its old WAL.
func (pl *Plan) flushStep(a *accumulator) string {
	ids := slices.Sorted(maps.Keys(a.unflushedColls))
	var named []string
	for _, id := range ids {
		if n, ok := pl.names[id]; ok && n != "" {
			named = append(named, fmt.Sprintf("%s (id %d)", n, id))
		} else {
			named = append(named, fmt.Sprintf("id %d", id))
		}
	}
	what := "the collection " + listKeys(named)
	if len(named) > 1 {
		what = fmt.Sprintf("the %d collections %s", len(named), listKeys(named))
	}
	if len(named) == 0 {
		pcs := slices.SortedFunc(maps.Keys(a.assignPCs), models.NaturalCompare)
		what = "the collections on " + listKeys(pcs)
	}
	return "flush " + what + " with Milvus on its old WAL, until no segment of theirs is Growing, Sealed or Flushing"
}

// knownOutOfScope lists the pchannels out of scope the census counted.
func (pl *Plan) knownOutOfScope(a *accumulator) []string {
	var out []string
	for _, c := range a.census.Report() {
		if !pl.planner.InScope(c.PChannel) {
			out = append(out, c.PChannel)
		}
	}
	for pc := range a.alter {
		if !pl.planner.InScope(pc) && len(a.census.PChannel(pc).Positions) == 0 {
			out = append(out, pc)
		}
	}
	slices.SortFunc(out, models.NaturalCompare)
	return out
}
