package reset

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/woodpecker"
)

// collectionPageSize bounds the first page of collection infos, whose
// schemas can be large; later pages are sized by bytes.
const collectionPageSize = 50

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

// view is the plan shown: the summary of what the scan decided (a pure
// function of the context, the scan's counts and the gates).
func (pl *Plan) view(gs []Gate) *apply.Plan {
	a := pl.acc
	pl.Gates = gs
	pl.Refused = framework.Refused(gs)
	a.finish(&pl.Summary, pl.inst.Layout)
	pl.Warnings = append(append(append([]string{}, pl.growing...), pl.notes...), pl.warnings(a)...)
	if pl.EtcdSpace != nil {
		pl.EtcdSpace.WriteBytes = pl.writeBytes
		if w := pl.EtcdSpace.Warning(); w != "" {
			pl.Warnings = append(pl.Warnings, w)
		}
	}
	return &apply.Plan{Replan: &apply.Replan{Unsettled: pl.unsettled, Same: pl.sameAt}, Command: "reset checkpoint", Title: "reset checkpoint to " + pl.TargetWAL,
		View: &pl.Summary, Keys: pl.TotalKeys, Root: pl.inst.Layout.RootPath, SplitState: len(pl.SplitPChannels) > 0,
		Put: "rewritten", Nothing: "nothing to write (every position in scope is already at the target)", Reminders: pl.runReminders}
}

// header is the backup's header: the rule that derives every new value
// again from the old one (ruleName), the order a restore writes the keys
// back in (consume checkpoints and mq.type overrides first, which decide the
// WAL Milvus opens), and the check after a restore (no split state).
func (pl *Plan) header() (apply.Header, string) {
	layout := pl.inst.Layout
	var scope []string
	if !pl.planner.Whole {
		scope = pl.Scope.PChannels
	}
	params, _ := json.Marshal(ruleParams{Target: pl.TargetWAL, PChannels: pl.params.PChannels, MetaPath: layout.MetaPath,
		CheckpointWAL: pl.planner.checkpointWAL, Collections: pl.planner.collections, KafkaBeginning: pl.planner.kafkaBeginning})
	return apply.Header{Command: pl.commandLine(), Endpoints: pl.inst.Endpoints, RootPath: layout.RootPath,
		MetaRoot: layout.MetaRoot(), Revision: pl.Revision, Target: pl.TargetWAL, Scope: scope,
		Prefixes: []string{layout.MetaRoot(), layout.Root("config/")},
		Rule:     ruleName, RuleParams: params,
		RestoreOrder: [][]int{{phaseConsumeCP, phaseMQType}, {phaseSegment, phaseChannelCP, phaseCollection, phaseQueryTarget, phaseSegmentAssign}},
		AfterRestore: gates.SplitStateCheck}, "reset-" + pl.TargetWAL
}

func readContext(ctx context.Context, inst *instance.Instance, p *Params, rev int64) (*Plan, error) {
	if _, err := msgid.Parse(p.TargetWAL); err != nil {
		return nil, framework.Usagef("reset checkpoint: --target-wal: %v", err)
	}
	layout := inst.Layout
	scope := map[string]bool{}
	for _, pc := range p.PChannels {
		scope[pc] = true
	}
	inScope := func(pc string) bool { return len(scope) == 0 || scope[pc] }
	// The context's reads are independent reads at the one revision rev:
	// they run side by side, each into its own part (merged below in a
	// fixed order, so the plan is the same whatever finishes first).
	var (
		pchannels   = map[string]bool{}
		wal         = walContext{checkpointWAL: map[string]commonpb.WALName{}, known: map[string]bool{}, assigned: map[string]bool{}, checkpointed: map[string]bool{}}
		replicating []string
		cols        = newCollectionContext()
		versions    gates.Versions
	)
	reads := []func() error{
		func() (err error) {
			versions, err = gates.InstanceVersions(ctx, inst, rev, p.Flags.MilvusVersion)
			return err
		},
		func() error {
			err := walk(ctx, inst, rev, []string{models.PChannelPrefix}, 0, func(e instance.Entry) error {
				if e.Kind == models.KindPChannel && !strings.Contains(e.PChannel, "/") {
					pchannels[e.PChannel] = true
				}
				return nil
			})
			if err != nil {
				return err
			}
			read, err := wal.readListed(ctx, inst, rev, pchannels, inScope)
			if err != nil || read {
				return err
			}
			return walk(ctx, inst, rev, []string{models.WALPrefix}, 0, wal.add(inScope))
		},
		func() error {
			return walk(ctx, inst, rev, []string{models.ReplicatingPChannel, models.ReplicateConfiguration}, 0, func(e instance.Entry) error {
				if e.Kind == models.KindReplicatingPChannel || e.Kind == models.KindReplicateConfiguration {
					replicating = append(replicating, e.KV.Key)
				}
				return nil
			})
		},
		func() error {
			return walk(ctx, inst, rev, liveCollectionPrefixes, collectionPageSize, cols.add(inScope, len(scope) > 0))
		},
	}
	errs := make([]error, len(reads))
	var wg sync.WaitGroup
	for i, read := range reads {
		wg.Go(func() { errs[i] = read() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	c := Context{CheckpointWAL: wal.checkpointWAL, Collections: cols.owners, KafkaBeginning: versions.Line3()}
	known := pchannels
	maps.Copy(known, wal.known)
	maps.Copy(known, cols.known)
	assigned, checkpointed, names := wal.assigned, wal.checkpointed, cols.names
	replication := append(wal.replication, replicating...)
	walOther, laterFields := wal.other, wal.laterFields
	if err := gates.KnownPChannels("reset checkpoint", p.PChannels, known); err != nil {
		return nil, err
	}
	planner, err := NewPlanner(p.TargetWAL, p.PChannels, c)
	if err != nil {
		return nil, framework.Usagef("reset checkpoint: --target-wal: %v", err)
	}
	pl := &Plan{inst: inst, planner: planner, params: *p, names: names}
	for pc := range assigned {
		pl.assignPrefixes = append(pl.assignPrefixes, models.SegmentAssignPrefix(pc))
	}
	for pc := range checkpointed {
		pl.checkpointPrefixes = append(pl.checkpointPrefixes, models.ConsumeCheckpointKey(pc))
	}
	slices.Sort(pl.assignPrefixes)
	slices.Sort(pl.checkpointPrefixes)
	if len(replication) > 0 {
		pl.notes = append(pl.notes, "this instance is a replication source ("+listKeys(replication)+"): the reset does not rewrite replication state; set replication up again after the switch")
	}
	if len(walOther) > 0 {
		pl.notes = append(pl.notes, "keys under "+layout.Meta(models.WALPrefix)+"{pchannel}/ that heron does not know, kept as they are (Milvus may still read them): "+listKeys(walOther))
	}
	if len(laterFields) > 0 {
		pl.notes = append(pl.notes, "consume checkpoints with fields heron does not know, kept byte for byte: "+listKeys(laterFields))
	}
	if g, refused := gates.CheckpointLayout(wal.idFields, wal.controls); refused {
		pl.gates = append(pl.gates, g)
	}
	if planner.WAL == commonpb.WALName_Kafka {
		pl.notes = append(pl.notes, gates.KafkaEarliestNote(versions, planner.Target.Human()))
	}
	if err := pl.checkWoodpecker(ctx, rev, known); err != nil {
		return nil, err
	}
	targetReminder, err := pl.checkTarget(ctx, rev, known)
	if err != nil {
		return nil, err
	}
	pl.Command = "reset checkpoint"
	pl.TargetWAL = planner.WALName
	pl.Earliest = Earliest{BytesHex: hex.EncodeToString(planner.Target.Bytes()), Text: planner.Target.Text(), Human: planner.Target.Human()}
	pl.Revision = rev
	pl.MetaRoot = layout.MetaRoot()
	if planner.Whole {
		pl.Scope = Scope{WholeInstance: true, PChannels: models.NaturalKeys(known)}
	} else {
		pl.Scope = Scope{PChannels: models.NaturalKeys(scope)}
	}
	pl.wide = p.Wide
	pl.NotTouched = notTouched(layout)
	pl.EtcdSpace = gates.EtcdSpace(ctx, inst)
	// Two lists: the plan's reminders, and those that close a run (the kit
	// names the backup the run wrote instead of the folder).
	pl.runReminders = append(reminders(planner, pl.wpEffective), targetReminder...)
	pl.Reminders = slices.Insert(slices.Clone(pl.runReminders), min(2, len(pl.runReminders)), backupReminder(p.BackupDir))
	return pl, nil
}

// walContext is what the context read finds under streamingnode-meta/wal/.
type walContext struct {
	checkpointWAL                   map[string]commonpb.WALName
	known, assigned, checkpointed   map[string]bool
	replication, other, laterFields []string
	// idFields are in-scope checkpoints' unknown fields that hold what
	// looks like a message id; controls are in-scope recovery-control
	// records (Milvus master's): both refuse the plan.
	idFields, controls []string
}

func (w *walContext) add(inScope func(string) bool) func(e instance.Entry) error {
	return func(e instance.Entry) error {
		switch e.Kind {
		case models.KindConsumeCheckpoint:
			w.known[e.PChannel] = true
			w.checkpointed[e.PChannel] = true
			if cp, err := models.DecodeWALCheckpoint(e.Value); err == nil {
				w.checkpointWAL[e.PChannel] = cp.WAL
				if cp.HasReplicateConfig {
					w.replication = append(w.replication, e.KV.Key+" (replicate_config)")
				}
				if inScope(e.PChannel) && cp.UnknownFields > 0 {
					w.laterFields = append(w.laterFields, fmt.Sprintf("%s (fields %s)", e.KV.Key, joinInts(cp.UnknownFieldNumbers)))
				}
				if inScope(e.PChannel) {
					for _, f := range cp.IDFields {
						w.idFields = append(w.idFields, e.KV.Key+" "+f.Describe())
					}
				}
			}
		case models.KindSegmentAssign:
			w.known[e.PChannel] = true
			w.assigned[e.PChannel] = true
		case models.KindWALOther:
			if inScope(e.PChannel) {
				w.other = append(w.other, e.KV.Key)
			}
			if inScope(e.PChannel) && models.IsRecoveryControlKey(e.Key) {
				w.controls = append(w.controls, e.KV.Key)
			}
		}
		return nil
	}
}

// maxAssignKeys bounds the segment-assign records readListed reads of one
// pchannel in one request.
const maxAssignKeys = 1000

// readListed reads the consume checkpoint and segment-assign records of
// each listed pchannel into w, without the vchannel metas and schemas beside
// them (two per vchannel: the bulk of streamingnode-meta/wal/, which the
// context does not use). It reports false, having added nothing, unless
// every key under streamingnode-meta/wal/ at rev is one it read or lies
// under a listed pchannel's vchannel prefix (counted, not read): a key of
// another pchannel, or one heron does not know, and the caller walks the
// prefix whole.
func (w *walContext) readListed(ctx context.Context, inst *instance.Instance, rev int64, listed map[string]bool, inScope func(string) bool) (bool, error) {
	if len(listed) == 0 {
		return false, nil
	}
	layout := inst.Layout
	// Key order: each pchannel's keys are contiguous, its consume checkpoint
	// before its segment-assign records.
	pcs := slices.SortedFunc(maps.Keys(listed), func(a, b string) int {
		return strings.Compare(models.WALPrefix+a+"/", models.WALPrefix+b+"/")
	})
	var read, vchannels []string
	for _, pc := range pcs {
		read = append(read, layout.Meta(models.ConsumeCheckpointKey(pc)), layout.Meta(models.SegmentAssignPrefix(pc)))
		vchannels = append(vchannels, layout.Meta(models.VChannelPrefix(pc)))
	}
	counts, err := inst.CountMany(ctx, slices.Concat([]string{layout.Meta(models.WALPrefix)}, read, vchannels), rev)
	if err != nil {
		return false, err
	}
	rest := counts[0]
	for _, n := range counts[1:] {
		rest -= n
	}
	if rest != 0 {
		return false, nil
	}
	pages, more, err := inst.PrefixMany(ctx, read, rev, maxAssignKeys)
	if err != nil || more {
		return false, err
	}
	add := w.add(inScope)
	for _, page := range pages {
		for _, kv := range page {
			rel, _ := layout.Rel(kv.Key)
			if err := add(instance.Entry{KV: kv, Key: models.Classify(rel)}); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// collectionContext is what the context read finds in the live collection
// infos: their names, their pchannels, and (scoped) the collections that
// own a vchannel in scope.
type collectionContext struct {
	names  map[int64]string
	known  map[string]bool
	owners map[int64]bool
}

func newCollectionContext() collectionContext {
	return collectionContext{names: map[int64]string{}, known: map[string]bool{}, owners: map[int64]bool{}}
}

func (c *collectionContext) add(inScope func(string) bool, scoped bool) func(e instance.Entry) error {
	return func(e instance.Entry) error {
		if (e.Kind != models.KindCollectionInfo && e.Kind != models.KindLegacyCollection) || models.IsTombstone(e.Value) {
			return nil
		}
		col, err := models.DecodeCollectionInfo(e.Value)
		if err != nil {
			return nil // the scan names it
		}
		c.names[col.ID] = col.Name
		owns := false
		for _, v := range col.VChannels {
			c.known[models.PChannelOf(v)] = true
			owns = owns || inScope(models.PChannelOf(v))
		}
		for _, pc := range col.PChannels {
			c.known[pc] = true
			owns = owns || inScope(pc)
		}
		if scoped && owns {
			c.owners[col.ID] = true
			if e.Collection != 0 {
				c.owners[e.Collection] = true
			}
		}
		return nil
	}
}

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

// scan reads every key the reset may write at the plan's revision, in write
// order, decides each one into a fresh accumulator (pl.acc, what the gates
// and the view read), and hands the ops to sink (nil: the dry run, which
// builds no op).
func (pl *Plan) scan(ctx context.Context, read func(n int), sink func(apply.Op) error) error {
	a := newAccumulator(pl.planner)
	a.dry = sink == nil
	a.limit.Limit = pl.params.MaxRequestBytes
	pl.unsettled = 0
	var writeBytes int64
	steps := []struct {
		prefixes []string
		size     int
		filter   models.Kind
		config   bool // the mq.type config keys, outside the meta root
	}{
		{[]string{models.SegmentPrefix}, 0, -1, false},
		{[]string{models.ChannelCPPrefix}, 0, -1, false},
		{collectionPrefixes, collectionPageSize, -1, false},
		{[]string{models.QueryTargetPrefix}, collectionPageSize, -1, false},
		{pl.assignPrefixes, 0, models.KindSegmentAssign, false},
		{nil, 0, -1, true},
		{pl.checkpointPrefixes, 0, models.KindConsumeCheckpoint, false},
	}
	for _, st := range steps {
		if st.config {
			if err := pl.scanConfig(ctx, a, sink); err != nil {
				return err
			}
			continue
		}
		err := walk(ctx, pl.inst, pl.Revision, st.prefixes, st.size, func(e instance.Entry) error {
			read(1)
			if st.filter >= 0 && e.Kind != st.filter {
				return nil
			}
			d, err := a.decide(e)
			if err == nil && d.Action != Keep {
				writeBytes += gates.WriteCost(e.KV.Key, d.Value)
			}
			if err != nil || sink == nil || d.Action == Keep {
				return err
			}
			if d.Action == Rewrite && !pl.planner.settled(e.Key, d.Value) {
				pl.unsettled++
			}
			return sink(op(e.KV.Key, e.ModRevision, e.Value, d))
		})
		if err != nil {
			return err
		}
	}
	pl.acc, pl.writeBytes = a, writeBytes
	return nil
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

// scanConfig decides every mq.type override under {root}/config/ (each
// spelling Milvus reads as mq.type); with none, the run creates
// {root}/config/mqtype, as Milvus's own online switch does, so that no
// milvus.yaml left on the old WAL decides (the backup marks it absent:
// restore deletes it).
func (pl *Plan) scanConfig(ctx context.Context, a *accumulator, sink func(apply.Op) error) error {
	layout := pl.inst.Layout
	found := false
	_, err := pl.inst.Scan(ctx, layout.Root(models.ConfigPrefix), pl.Revision, func(page []instance.KV) error {
		for _, kv := range page {
			if !isMQTypeKey(layout, kv.Key) {
				continue
			}
			found = true
			if d := a.decideConfig(kv, false); sink != nil && d.Action != Keep {
				pl.settleConfig(d.Value)
				if err := sink(op(kv.Key, kv.ModRevision, kv.Value, d)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil || found {
		return err
	}
	kv := instance.KV{Key: layout.Root(models.MQTypeConfigKey)}
	if d := a.decideConfig(kv, true); sink != nil {
		pl.settleConfig(d.Value)
		return sink(op(kv.Key, 0, nil, d))
	}
	return nil
}

// settleConfig counts an mq.type override's new value as unsettled when
// the planner would rewrite it again (apply.Replan.Unsettled).
func (pl *Plan) settleConfig(value []byte) {
	if pl.planner.DecideConfig(value).Action != Keep {
		pl.unsettled++
	}
}

// sameAt is apply.Replan's Same. At rev, the verify's revision, the run's
// own revisions prove etcd holds the plan's revision plus exactly the run's
// ops; sameAt reports whether a plan there would decide every key the plan
// read as the plan did and read no other key. Why that holds:
//
//   - A decision's action (keep, rewrite, delete) depends on the key, its
//     value, the target and the scope (the same flags) and, scoped, on the
//     collections that own a vchannel in scope (their query targets go).
//     The rest of the context (each consume checkpoint's WAL, which the run
//     rewrites; the gates; the names) decides no action, only examples, the
//     census and gates. So with the same collections every key decides as
//     in the plan: a key the plan kept holds its plan value and stays kept,
//     and each staged new value was decided again during the scan
//     (Planner.settled; apply.Replan.Unsettled counts those that were not).
//   - A plan reads the fixed prefixes, the config keys, and the
//     segment-assign records and consume checkpoints of the pchannels that
//     have them under streamingnode-meta/wal/. The run writes only keys the
//     plan read, and the mq.type override it decided: under
//     streamingnode-meta/wal/ it deletes segment-assign records and
//     rewrites consume checkpoints, and creates nothing. So at rev every
//     pchannel with either is one the plan read, and a plan there reads
//     only keys this one read, each holding what Unsettled decided.
//
// Scoped, the collections that own a vchannel in scope are read again at
// rev (the run rewrote their infos): other collections answer false, and
// the kit plans again. The whole instance needs no read.
func (pl *Plan) sameAt(ctx context.Context, rev int64) (bool, error) {
	if pl.planner.Whole {
		return true, nil
	}
	cols := newCollectionContext()
	if err := walk(ctx, pl.inst, rev, liveCollectionPrefixes, collectionPageSize, cols.add(pl.planner.InScope, true)); err != nil {
		return false, err
	}
	return maps.Equal(cols.owners, pl.planner.collections), nil
}

// isMQTypeKey reports whether an absolute key is an mq.type override.
func isMQTypeKey(layout models.Layout, abs string) bool {
	rel, ok := strings.CutPrefix(abs, layout.Root(""))
	return ok && models.IsMQTypeConfigKey(rel)
}

func gate(name string, count int64, keys []string, okDetail, failDetail string) Gate {
	g := Gate{Name: name, OK: count == 0, Count: count, Detail: okDetail}
	if count > 0 {
		g.Keys = keys
		g.Detail = failDetail
	}
	return g
}

// walk walks prefixes at rev with windowed pages (firstPage: the keys of
// the first, 0: the instance's).
func walk(ctx context.Context, inst *instance.Instance, rev int64, prefixes []string, firstPage int, fn func(e instance.Entry) error) error {
	_, err := inst.WithFirstPage(firstPage).Walk(ctx, rev, prefixes, fn)
	return err
}

func op(key string, modRev int64, original []byte, d Decision) apply.Op {
	return apply.Op{Key: key, ModRevision: modRev, Value: d.Value, Delete: d.Action == Delete, Original: original, Phase: kindPhase[d.Kind]}
}

// ruleName is the reset's rule (apply.RegisterRule): the new value of every
// staged key derived again from its old one with the same planner, so that
// the staged plan holds old values only and the write pass reads no etcd.
const ruleName = "reset-checkpoint"

// ruleParams are what the rule needs besides the header: the planner's
// target, scope and frozen context, and the meta path.
type ruleParams struct {
	Target         string                      `json:"target"`
	PChannels      []string                    `json:"pchannels,omitempty"`
	MetaPath       string                      `json:"meta_path"`
	CheckpointWAL  map[string]commonpb.WALName `json:"checkpoint_wal,omitempty"`
	Collections    map[int64]bool              `json:"collections,omitempty"`
	KafkaBeginning bool                        `json:"kafka_beginning,omitempty"`
}

func init() { apply.RegisterCommandRule("reset checkpoint", ruleName, rule) }

// rule rebuilds the planner a backup header names and decides each entry
// with it.
func rule(h apply.Header) (func(apply.Entry) (apply.Op, error), error) {
	var rp ruleParams
	if err := json.Unmarshal(h.RuleParams, &rp); err != nil {
		return nil, fmt.Errorf("rule %s: %w", ruleName, err)
	}
	layout := models.NewLayout(h.RootPath, rp.MetaPath)
	planner, err := NewPlanner(rp.Target, rp.PChannels, Context{CheckpointWAL: rp.CheckpointWAL, Collections: rp.Collections, KafkaBeginning: rp.KafkaBeginning})
	if err != nil {
		return nil, fmt.Errorf("rule %s: %w", ruleName, err)
	}
	created := layout.Root(models.MQTypeConfigKey)
	return func(e apply.Entry) (apply.Op, error) {
		if e.Absent && e.Key != created {
			return apply.Op{}, errors.New("the reset creates no key but " + created)
		}
		var d Decision
		if isMQTypeKey(layout, e.Key) {
			d = planner.DecideConfig(e.Value)
		} else {
			rel, ok := layout.Rel(e.Key)
			if !ok {
				return apply.Op{}, fmt.Errorf("not under the meta root %s", layout.MetaRoot())
			}
			var err error
			if d, err = planner.Decide(models.Classify(rel), e.Value); err != nil {
				return apply.Op{}, err
			}
		}
		if d.Action == Keep {
			return apply.Op{}, errors.New("the plan keeps this key now")
		}
		if e.Absent {
			return op(e.Key, 0, nil, d), nil
		}
		return op(e.Key, e.ModRevision, e.Value, d), nil
	}, nil
}

func (pl *Plan) commandLine() string {
	var b strings.Builder
	b.WriteString("reset checkpoint --target-wal " + pl.TargetWAL)
	for _, pc := range pl.params.PChannels {
		b.WriteString(" --pchannel " + pc)
	}
	if pl.params.AllowGrowing {
		b.WriteString(" --allow-growing")
	}
	if pl.params.AllowNonEmptyTarget {
		b.WriteString(" --allow-non-empty-target")
	}
	if pl.params.Flags.MilvusVersion != "" {
		b.WriteString(" --milvus-version " + pl.params.Flags.MilvusVersion)
	}
	b.WriteString(" --run")
	return b.String()
}

// listKeys joins at most maxGateKeys keys in natural order (dml_3 before
// dml_19), saying how many more there are.
func listKeys(keys []string) string {
	keys = slices.SortedFunc(slices.Values(keys), models.NaturalCompare)
	if len(keys) <= maxGateKeys {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:maxGateKeys], ", "), len(keys)-maxGateKeys)
}

func joinInts(ns []int32) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

func notTouched(l models.Layout) []string {
	return []string{
		models.PChannelPrefix + " (the pchannel list: no MQ id)",
		models.WALPrefix + "{pchannel}/vchannel/ and the vchannel schema timeline (must survive)",
		models.ChannelRemovalPrefix + " markers (datacoord's GC guard; nothing rebuilds them)",
		models.ChannelWatchPrefix + " (channel watch info)",
		"replication checkpoints: replicate_checkpoint of consume checkpoints, " + models.ReplicatingPChannel + ", " + models.ReplicateConfiguration,
		models.BroadcastTaskPrefix + " tombstones",
		"dropped-channel markers (channel-cp with no id and timestamp MaxUint64) and collection tombstones",
		l.Root("kv/") + " (ID and TSO allocators)",
	}
}

func reminders(p *Planner, wp *woodpecker.Effective) []string {
	fresh := "the target WAL must be fresh: empty topics"
	if wp != nil {
		fresh = "the target WAL must be fresh: no log of the pchannels in woodpecker's metadata under the effective prefix " + wp.Describe() +
			" (reset wal --target woodpecker empties them); a woodpecker.meta.prefix set in milvus.yaml is not visible to heron: pass --wp-meta-prefix"
	}
	r := []string{
		fmt.Sprintf("set mq.type to %s in milvus.yaml (or your deployment's config) before starting Milvus", p.WALName),
		fresh,
	}
	switch p.WAL {
	case commonpb.WALName_RocksMQ:
		r = append(r, "rocksmq as a target stalls on Milvus 2.6.23 and 3.0.0 (\"Rmq server is nil\": their rocksmq WAL builder needs the server that only starts when rocksmq was the WAL from process start), and master refuses rocksmq outside standalone mode; the metadata written is correct either way")
	case commonpb.WALName_WoodPecker:
		r = append(r, "woodpecker.storage.type local keeps each streamingnode's data on its own disk, and late 2.6 builds panic on it in cluster mode: use minio (Milvus's default) or service in a cluster")
	}
	return r
}
