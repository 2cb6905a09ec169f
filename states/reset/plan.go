package reset

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
)

// collectionPageSize bounds a page of collection infos, whose schemas can be large.
const collectionPageSize = 50

// Prefixes (relative to the meta root) in the order the reset writes them.
var (
	collectionPrefixes = []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix,
		models.SnapshotCollectionInfo, models.SnapshotLegacyColl}
	liveCollectionPrefixes = []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}
)

// Plan is a reset checkpoint plan: its Summary, and what it needs to decide
// every key at its revision (the frozen context in its Planner). Build reads
// the context; Preview (the dry run) and Apply (--run) then run the same
// scan, which decides every key in write order into the Summary.
type Plan struct {
	Summary
	inst    *instance.Instance
	planner *Planner
	params  Params
	configs map[string]bool // absolute mq.type config keys that exist at the revision
	wpKeys  int64           // keys under {root}/wp/ (woodpecker's own metadata)
	gates   []Gate          // the context's gates (sessions, broadcast tasks)
	tune    func(*apply.Options)
}

// Refusal is nil when every gate passed.
func (pl *Plan) Refusal() error { return framework.Refusal("reset checkpoint", pl.Gates) }

// Planner is the plan's per-key function.
func (pl *Plan) Planner() *Planner { return pl.planner }

// Build reads the instance's context at one revision (the gates, the
// pchannels, the consume checkpoints' WALs, the collections that own the
// scope, the mq.type overrides present) and returns the plan with its
// planner. It writes nothing and decides no key yet: see Preview and Apply.
func Build(ctx context.Context, inst *instance.Instance, p *Params) (*Plan, error) {
	return build(ctx, inst, p, nil)
}

func build(ctx context.Context, inst *instance.Instance, p *Params, tune func(*apply.Options)) (*Plan, error) {
	ctx, stop := apply.Watch(ctx)
	defer stop()
	pl, err := readContext(ctx, inst, p)
	if pl != nil {
		pl.tune = tune
	}
	return pl, apply.Cause(ctx, err)
}

func readContext(ctx context.Context, inst *instance.Instance, p *Params) (*Plan, error) {
	if _, err := msgid.Parse(p.TargetWAL); err != nil {
		return nil, framework.Usagef("reset checkpoint: --target-wal: %v", err)
	}
	rev, err := inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	layout := inst.Layout
	live, err := gates.LiveComponents(ctx, inst, rev)
	if err != nil {
		return nil, err
	}
	inflight, err := gates.InFlightBroadcasts(ctx, inst, rev)
	if err != nil {
		return nil, err
	}
	scope := map[string]bool{}
	for _, pc := range p.PChannels {
		scope[pc] = true
	}
	inScope := func(pc string) bool { return len(scope) == 0 || scope[pc] }
	c := Context{CheckpointWAL: map[string]commonpb.WALName{}, Collections: map[int64]bool{}}
	known := map[string]bool{}
	err = walk(ctx, inst, rev, []string{models.PChannelPrefix}, 0, func(e instance.Entry) error {
		if e.Kind == models.KindPChannel && !strings.Contains(e.PChannel, "/") {
			known[e.PChannel] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = walk(ctx, inst, rev, []string{models.WALPrefix}, 0, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindConsumeCheckpoint:
			known[e.PChannel] = true
			if cp, err := models.DecodeWALCheckpoint(e.Value); err == nil {
				c.CheckpointWAL[e.PChannel] = cp.WAL
			}
		case models.KindSegmentAssign:
			known[e.PChannel] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = walk(ctx, inst, rev, liveCollectionPrefixes, collectionPageSize, func(e instance.Entry) error {
		if (e.Kind != models.KindCollectionInfo && e.Kind != models.KindLegacyCollection) || models.IsTombstone(e.Value) {
			return nil
		}
		col, err := models.DecodeCollectionInfo(e.Value)
		if err != nil {
			return nil // the scan names it
		}
		owns := false
		for _, v := range col.VChannels {
			known[models.PChannelOf(v)] = true
			owns = owns || inScope(models.PChannelOf(v))
		}
		for _, pc := range col.PChannels {
			known[pc] = true
			owns = owns || inScope(pc)
		}
		if len(scope) > 0 && owns {
			c.Collections[col.ID] = true
			if e.Collection != 0 {
				c.Collections[e.Collection] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, pc := range p.PChannels {
		if !known[pc] {
			unknown = append(unknown, pc)
		}
	}
	if len(unknown) > 0 {
		return nil, framework.Usagef("reset checkpoint: unknown --pchannel %s: the instance has %s",
			strings.Join(unknown, ", "), strings.Join(sortedKeys(known), ", "))
	}
	planner, err := NewPlanner(p.TargetWAL, p.PChannels, c)
	if err != nil {
		return nil, framework.Usagef("reset checkpoint: --target-wal: %v", err)
	}
	pl := &Plan{inst: inst, planner: planner, params: *p, configs: map[string]bool{}, gates: []Gate{live, inflight}}
	for _, rel := range models.MQTypeConfigKeys {
		_, ok, err := inst.Get(ctx, layout.Root(rel), rev)
		if err != nil {
			return nil, err
		}
		if ok {
			pl.configs[layout.Root(rel)] = true
		}
	}
	if planner.WAL == commonpb.WALName_WoodPecker {
		if pl.wpKeys, err = inst.Count(ctx, layout.Root("wp/"), rev); err != nil {
			return nil, err
		}
	}
	pl.Command = "reset checkpoint"
	pl.TargetWAL = planner.WALName
	pl.Earliest = Earliest{BytesHex: hex.EncodeToString(planner.Target.Bytes()), Text: planner.Target.Text(), Human: planner.Target.Human()}
	pl.Revision = rev
	pl.MetaRoot = layout.MetaRoot()
	if planner.Whole {
		pl.Scope = Scope{WholeInstance: true, PChannels: sortedKeys(known)}
	} else {
		pl.Scope = Scope{PChannels: sortedKeys(scope)}
	}
	newAccumulator(planner).finish(&pl.Summary, layout)
	pl.setGates(nil)
	pl.Warnings = []string{}
	pl.NotTouched = notTouched(layout)
	pl.Reminders = reminders(planner, layout)
	return pl, nil
}

// setGates sets the summary's gates: the context's, then (once a scan
// decided every key) the unflushed-segment gate of a.
func (pl *Plan) setGates(a *accumulator) {
	pl.Gates = append([]Gate{}, pl.gates...)
	if a != nil {
		unflushed := a.unflushed + a.assigns
		g := gate("no unflushed segment in scope", unflushed, a.unflushedKeys,
			"no Growing, Sealed or Flushing segment and no segment-assign record in scope",
			fmt.Sprintf("%d Growing, Sealed or Flushing segments and %d segment-assign records in scope: their rows exist only in the old MQ; flush them first (or pass --allow-growing to lose them)", a.unflushed, a.assigns))
		if unflushed > 0 && pl.params.AllowGrowing {
			g.OK, g.Overridden = true, true
			g.Detail = fmt.Sprintf("--allow-growing: %d Growing, Sealed or Flushing segments and %d segment-assign records in scope; their unflushed rows are LOST (flushed data survives)", a.unflushed, a.assigns)
			pl.Warnings = append(pl.Warnings, g.Detail)
		}
		pl.Gates = append(pl.Gates, g)
	}
	pl.Refused = false
	for _, g := range pl.Gates {
		pl.Refused = pl.Refused || !g.OK
	}
}

// Preview decides every key without writing: the dry run.
func (pl *Plan) Preview(ctx context.Context) error {
	ctx, stop := apply.Watch(ctx)
	defer stop()
	return apply.Cause(ctx, pl.scan(ctx, nil))
}

// scan reads every key the reset may write at the plan's revision, in write
// order, decides each one into a fresh summary, and hands the ops to sink
// (nil: the dry run, which builds no op). The summary is complete when it
// returns nil: apply's pass 1 then checks its refusal.
func (pl *Plan) scan(ctx context.Context, sink func(apply.Op) error) error {
	a := newAccumulator(pl.planner)
	steps := []struct {
		prefixes []string
		size     int
		filter   models.Kind
	}{
		{[]string{models.SegmentPrefix}, 0, -1},
		{[]string{models.ChannelCPPrefix}, 0, -1},
		{collectionPrefixes, collectionPageSize, -1},
		{[]string{models.QueryTargetPrefix}, collectionPageSize, -1},
		{[]string{models.WALPrefix}, 0, models.KindSegmentAssign},
		{nil, 0, -1}, // mq.type config
		{[]string{models.WALPrefix}, 0, models.KindConsumeCheckpoint},
	}
	for _, st := range steps {
		if st.prefixes == nil {
			for _, rel := range models.MQTypeConfigKeys {
				key := pl.inst.Layout.Root(rel)
				if !pl.configs[key] {
					continue
				}
				kv, ok, err := pl.inst.Get(ctx, key, pl.Revision)
				if err != nil {
					return err
				}
				apply.Heartbeat(ctx)
				if !ok {
					continue
				}
				if d := a.decideConfig(kv); sink != nil && d.Action != Keep {
					if err := sink(op(kv.Key, kv.ModRevision, kv.Value, d)); err != nil {
						return err
					}
				}
			}
			continue
		}
		err := walk(ctx, pl.inst, pl.Revision, st.prefixes, st.size, func(e instance.Entry) error {
			if st.filter >= 0 && e.Kind != st.filter {
				return nil
			}
			d, err := a.decide(e)
			if err != nil || sink == nil || d.Action == Keep {
				return err
			}
			return sink(op(e.KV.Key, e.ModRevision, e.Value, d))
		})
		if err != nil {
			return err
		}
	}
	pl.Warnings = []string{}
	pl.setGates(a)
	a.finish(&pl.Summary, pl.inst.Layout)
	if pl.wpKeys > 0 {
		pl.Warnings = append(pl.Warnings, fmt.Sprintf("%s holds %d keys: woodpecker's own metadata must be empty for a fresh WAL", pl.inst.Layout.Root("wp/"), pl.wpKeys))
	}
	if len(pl.SplitPChannels) > 0 {
		pl.Warnings = append(pl.Warnings, fmt.Sprintf("split state on %s (positions in more than one WAL, as an interrupted reset leaves them): this run completes it",
			strings.Join(pl.SplitPChannels, ", ")))
	}
	return nil
}

func gate(name string, count int64, keys []string, okDetail, failDetail string) Gate {
	g := Gate{Name: name, OK: count == 0, Count: count, Detail: okDetail}
	if count > 0 {
		g.Keys = keys
		g.Detail = failDetail
	}
	return g
}

// walk walks prefixes at rev with windowed pages (pageSize 0: the
// instance's), telling the watchdog of ctx about every key.
func walk(ctx context.Context, inst *instance.Instance, rev int64, prefixes []string, pageSize int, fn func(e instance.Entry) error) error {
	_, err := inst.WithPageSize(pageSize).Walk(ctx, rev, prefixes, func(e instance.Entry) error {
		apply.Heartbeat(ctx)
		return fn(e)
	})
	return err
}

func op(key string, modRev int64, original []byte, d Decision) apply.Op {
	return apply.Op{Key: key, ModRevision: modRev, Value: d.Value, Delete: d.Action == Delete, Original: original, Phase: kindPhase[d.Kind]}
}

// replay rebuilds an op from its backup entry with the same planner: apply's
// second pass reads the backup file instead of etcd.
func (pl *Plan) replay(e apply.Entry) (apply.Op, error) {
	if e.Absent {
		return apply.Op{}, errors.New("the reset never creates keys")
	}
	var d Decision
	if pl.configs[e.Key] {
		d = pl.planner.DecideConfig(e.Value)
	} else {
		rel, ok := pl.inst.Layout.Rel(e.Key)
		if !ok {
			return apply.Op{}, fmt.Errorf("not under the meta root %s", pl.inst.Layout.MetaRoot())
		}
		var err error
		if d, err = pl.planner.Decide(models.Classify(rel), e.Value); err != nil {
			return apply.Op{}, err
		}
	}
	if d.Action == Keep {
		return apply.Op{}, errors.New("the plan keeps this key now")
	}
	return op(e.Key, e.ModRevision, e.Value, d), nil
}

// --- apply ------------------------------------------------------------------

func (pl *Plan) commandLine() string {
	var b strings.Builder
	b.WriteString("reset checkpoint --target-wal " + pl.TargetWAL)
	for _, pc := range pl.params.PChannels {
		b.WriteString(" --pchannel " + pc)
	}
	if pl.params.AllowGrowing {
		b.WriteString(" --allow-growing")
	}
	b.WriteString(" --run")
	return b.String()
}

// Apply runs the reset through apply.Run: one scan decides every key and
// writes the backup, the plan is shown (and on a terminal approved) before
// the first write, the ops are replayed from the backup into etcd, and
// every position in scope is read back.
func (pl *Plan) Apply(ctx context.Context, w framework.WriteIO) (framework.Result, error) {
	var scope []string
	if !pl.planner.Whole {
		scope = pl.Scope.PChannels
	}
	layout := pl.inst.Layout
	res := &RunResult{Plan: &pl.Summary}
	ar, err := apply.Run(ctx, pl.inst, apply.Job{
		Command: "reset checkpoint",
		Name:    "reset-" + pl.TargetWAL,
		Header: apply.Header{Command: pl.commandLine(), Endpoints: pl.inst.Endpoints, RootPath: layout.RootPath,
			MetaRoot: layout.MetaRoot(), Revision: pl.Revision, Target: pl.TargetWAL, Scope: scope,
			Prefixes: []string{layout.MetaRoot(), layout.Root("config/")}},
		Flags:  pl.params.WriteFlags,
		Ops:    pl.scan,
		Replay: pl.replay,
		Check:  pl.Refusal,
		Plan:   &pl.Summary,
		Verify: func(ctx context.Context) error {
			v, err := pl.verify(ctx)
			res.Verify = &v
			if err == nil && !v.OK {
				err = fmt.Errorf("%d problems after the run, first: %s", v.FailuresTotal, strings.Join(v.Failures[:min(3, len(v.Failures))], "; "))
			}
			return err
		},
		Tune:      pl.tune,
		Continues: func() bool { return len(pl.SplitPChannels) > 0 },
	}, w)
	res.Applied = ar
	if errors.Is(err, framework.ErrNotConfirmed) || errors.As(err, new(*framework.RefusedError)) {
		return nil, err
	}
	return res, err
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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

func reminders(p *Planner, l models.Layout) []string {
	r := []string{
		fmt.Sprintf("set mq.type to %s in milvus.yaml (or your deployment's config) before starting Milvus", p.WALName),
		fmt.Sprintf("the target WAL must be fresh: empty topics%s", map[bool]string{true: ", and an empty " + l.Root("wp/") + " for woodpecker", false: ""}[p.WAL == commonpb.WALName_WoodPecker]),
		"keep the backup file: restore --file BACKUP --run puts every changed key back as it was",
	}
	if p.WAL == commonpb.WALName_RocksMQ {
		r = append(r, "rocksmq as a target needs a Milvus build that initialises rocksmq lazily (3.0.0 does not); the metadata written is correct either way")
	}
	return r
}
