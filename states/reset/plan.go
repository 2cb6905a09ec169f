package reset

import (
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/woodpecker"
)

// Prefixes (relative to the meta root) in the order the reset writes them.
var (
	collectionPrefixes = []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix,
		models.SnapshotCollectionInfo, models.SnapshotLegacyColl}
	liveCollectionPrefixes = []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}
)

// Plan is a reset checkpoint plan while it is built: its Summary, and what
// it needs to decide every key at its revision (the frozen context in its
// Planner). Build turns it into the apply.Plan value the kit runs.
type Plan struct {
	Summary
	inst    *instance.Instance
	planner *Planner
	params  Params
	gates   []Gate   // the context's gates (sessions, broadcast tasks, woodpecker target)
	notes   []string // the context's warnings (replication, unknown keys and fields, woodpecker)
	// wpEffective is woodpecker's effective metadata prefix (woodpecker targets).
	wpEffective *woodpecker.Effective
	// names are the live collections' names by id, for the unflushed-segment
	// gate's fix (which collections to flush).
	names map[int64]string
	// assignPrefixes and checkpointPrefixes are the per-pchannel prefixes
	// the scan reads under streamingnode-meta/wal/ (sorted: key order): the
	// context read found every segment-assign record and consume checkpoint
	// at the plan's revision, so the scan reads those keys alone, not the
	// vchannel metas and schemas beside them (two per vchannel, read once).
	assignPrefixes, checkpointPrefixes []string
	// unsettled counts the staged puts whose new value the planner would
	// rewrite again (apply.Replan).
	unsettled int64
	// acc is what the scan decided; writeBytes the bytes it writes.
	acc        *accumulator
	writeBytes int64
	// growing is the --allow-growing warning of the scan's gate; runReminders
	// the reminders that close a run (Reminders, the plan's, also name the
	// backup folder).
	growing      []string
	runReminders []string
}

// Build is reset checkpoint's plan, as the kit's phases (gates.Write):
// the context at the plan's revision (the pchannels, the consume
// checkpoints' WALs, the collections that own the scope, the target's and
// woodpecker's gates), the scan of every key it may write, in write order,
// deciding each one, the gates that need the scan, and the view: the same
// plan with and without --run.
var Build = gates.Write(apply.Phases[*instance.Instance, Params, *Plan]{
	Context: readContext, Header: (*Plan).header, Scan: (*Plan).scan, Gates: (*Plan).scanGates, View: (*Plan).view})
