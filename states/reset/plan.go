package reset

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// collectionPageSize bounds a page of collection infos, whose schemas can be large.
const collectionPageSize = 50

// Prefixes (relative to the meta root) in the order the reset writes them.
var (
	collectionPrefixes = []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix,
		models.SnapshotCollectionInfo, models.SnapshotLegacyColl}
	liveCollectionPrefixes = []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}
	snapshotPrefixes       = []string{models.SnapshotCollectionInfo, models.SnapshotLegacyColl}
)

// Plan is a reset checkpoint plan: its Summary, and what it needs to
// regenerate its ops by reading etcd again at the same revision.
type Plan struct {
	Summary
	inst      *instance.Instance
	planner   *Planner
	params    Params
	rev       int64
	configs   []string // absolute config keys that exist at rev
	backupDir string

	// deferred: a --run plan whose per-key decisions are left to Apply,
	// which makes them while it writes the backup, from one read (Build
	// only read the context and checked the context gates).
	deferred                 bool
	acc                      *accumulator
	live                     []string
	inflight                 []string
	liveCount, inflightCount int64
	planErr                  error

	// Tune, when set, adjusts the apply options before the run: the
	// benchmark and tests set hooks (AfterTxn, AfterBackup), concurrency,
	// timeouts there.
	Tune func(*apply.Options)
}

// Refusal is nil when every gate passed.
func (pl *Plan) Refusal() error { return framework.Refusal("reset checkpoint", pl.Gates) }

// Planner is the plan's per-key function.
func (pl *Plan) Planner() *Planner { return pl.planner }

// stallTimeout bounds how long a read may see no answer from etcd.
func stallTimeout() time.Duration {
	opt, err := apply.FromEnv(apply.Options{})
	if err != nil || opt.StallTimeout <= 0 {
		return apply.DefaultStallTimeout
	}
	return opt.StallTimeout
}

// Build reads the instance at one revision and plans the reset. It writes nothing.
func Build(ctx context.Context, inst *instance.Instance, p *Params) (*Plan, error) {
	planner, err := NewPlanner(p.TargetWAL, p.PChannels)
	if err != nil {
		return nil, framework.Usagef("reset checkpoint: --target-wal: %v", err)
	}
	ctx, stop := apply.WithStallTimeout(ctx, stallTimeout())
	defer stop()
	pl, err := build(ctx, inst, p, planner, framework.Running(ctx))
	return pl, apply.Cause(ctx, err)
}

// build reads the context (sessions, broadcast tasks, pchannels, WAL meta,
// collections) and, unless deferred, decides every key. A deferred plan
// leaves the decisions to Apply: see Plan.deferred.
func build(ctx context.Context, inst *instance.Instance, p *Params, planner *Planner, deferred bool) (*Plan, error) {
	rev, err := inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	layout := inst.Layout
	pl := &Plan{inst: inst, planner: planner, params: *p, rev: rev, backupDir: p.BackupDir, deferred: deferred}
	pl.Command = "reset checkpoint"
	pl.TargetWAL = planner.WALName
	pl.Earliest = Earliest{BytesHex: hex.EncodeToString(planner.Target.Bytes()), Text: planner.Target.Text(), Human: planner.Target.Human()}
	pl.Revision = rev
	pl.MetaRoot = layout.MetaRoot()
	a := newAccumulator(planner)
	pl.acc = a
	decide := a.decide
	if deferred {
		decide = func(instance.Entry) error { return nil }
	}

	// Gates and context first: sessions, broadcast tasks, pchannels,
	// streamingnode meta (consume checkpoints, segment assignments).
	known := map[string]bool{}
	var live []string
	var inflight []string
	var liveCount, inflightCount int64
	walk := func(prefixes []string, pageSize int, fn func(e instance.Entry) error) error {
		return walkAt(ctx, inst, rev, prefixes, pageSize, fn)
	}
	err = walk([]string{models.SessionPrefix}, 0, func(e instance.Entry) error {
		if e.Rel != models.SessionIDKey && e.Lease != 0 {
			liveCount++
			if len(live) < maxGateKeys {
				live = append(live, fmt.Sprintf("%s (lease %x)", e.Rel, e.Lease))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = walk([]string{models.BroadcastTaskPrefix}, 0, func(e instance.Entry) error {
		t, err := models.DecodeBroadcastTask(e.Value)
		switch {
		case err != nil:
			inflightCount++
			if len(inflight) < maxGateKeys {
				inflight = append(inflight, fmt.Sprintf("%s (does not decode: cannot tell whether it is in flight)", e.Rel))
			}
		case t.State.InFlight():
			inflightCount++
			if len(inflight) < maxGateKeys {
				inflight = append(inflight, fmt.Sprintf("%s (%s)", e.Rel, t.State))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = walk([]string{models.PChannelPrefix}, 0, func(e instance.Entry) error {
		if e.Kind == models.KindPChannel && !strings.Contains(e.PChannel, "/") {
			known[e.PChannel] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = walk([]string{models.WALPrefix}, 0, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindConsumeCheckpoint:
			known[e.PChannel] = true
			if cp, err := models.DecodeWALCheckpoint(e.Value); err == nil {
				planner.CheckpointWAL[e.PChannel] = cp.WAL
			}
		case models.KindSegmentAssign:
			known[e.PChannel] = true
		default:
			return nil
		}
		return decide(e)
	})
	if err != nil {
		return nil, err
	}
	for _, rel := range models.MQTypeConfigKeys {
		kv, ok, err := inst.Get(ctx, layout.Root(rel), rev)
		if err != nil {
			return nil, err
		}
		if ok {
			pl.configs = append(pl.configs, kv.Key)
			if !deferred {
				a.add(kv.Key, kv.ModRevision, planner.DecideConfig(kv.Value))
			}
		}
	}

	// Collection infos: the pchannels and the collections that own the scope.
	err = walk(liveCollectionPrefixes, collectionPageSize, func(e instance.Entry) error {
		if (e.Kind == models.KindCollectionInfo || e.Kind == models.KindLegacyCollection) && !models.IsTombstone(e.Value) {
			if c, err := models.DecodeCollectionInfo(e.Value); err == nil {
				for _, v := range c.VChannels {
					known[models.PChannelOf(v)] = true
				}
				for _, pc := range c.PChannels {
					known[pc] = true
				}
				if !planner.Whole && planner.OwnsScope(c) {
					planner.Collections[c.ID] = true
					if e.Collection != 0 {
						planner.Collections[e.Collection] = true
					}
				}
			}
		}
		return decide(e)
	})
	if err != nil {
		return nil, err
	}
	if !planner.Whole {
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
	}
	pl.liveCount, pl.live, pl.inflightCount, pl.inflight = liveCount, live, inflightCount, inflight
	if planner.Whole {
		pl.Scope = Scope{WholeInstance: true, PChannels: sortedKeys(known)}
	} else {
		pl.Scope = Scope{PChannels: sortedKeys(planner.Scope)}
	}
	if deferred {
		pl.Gates = pl.contextGates()
		for _, g := range pl.Gates {
			pl.Refused = pl.Refused || !g.OK
		}
		return pl, nil
	}
	for _, prefixes := range [][]string{snapshotPrefixes, {models.ChannelCPPrefix}, {models.SegmentPrefix}, {models.QueryTargetPrefix}} {
		size := 0
		if prefixes[0] != models.ChannelCPPrefix && prefixes[0] != models.SegmentPrefix {
			size = collectionPageSize
		}
		if err := walk(prefixes, size, a.decide); err != nil {
			return nil, err
		}
	}
	if err := pl.finish(ctx); err != nil {
		return nil, err
	}
	return pl, nil
}

func (pl *Plan) contextGates() []Gate {
	return []Gate{
		gate("no live Milvus component", pl.liveCount, pl.live,
			"no session key has a lease",
			"%d session keys hold a lease: stop Milvus (every component) and wait for the leases to expire"),
		gate("no in-flight broadcast task", pl.inflightCount, pl.inflight,
			"no broadcast task is Pending, WaitAck or Replicated",
			"%d broadcast tasks are in flight (a half-applied DDL whose callbacks would write old-WAL ids back): start Milvus on the old WAL until they finish"),
	}
}

// finish completes the summary once every key is decided: the gates, the
// counts, the warnings.
func (pl *Plan) finish(ctx context.Context) error {
	a, planner, p, inst, layout, rev := pl.acc, pl.planner, &pl.params, pl.inst, pl.inst.Layout, pl.rev
	pl.Gates = pl.contextGates()
	pl.Refused = false
	unflushed := a.unflushed + a.assigns
	g := gate("no unflushed segment in scope", unflushed, a.unflushedKeys,
		"no Growing, Sealed or Flushing segment and no segment-assign record in scope",
		fmt.Sprintf("%d Growing, Sealed or Flushing segments and %d segment-assign records in scope: their rows exist only in the old MQ; flush them first (or pass --allow-growing to lose them)", a.unflushed, a.assigns))
	if unflushed > 0 && p.AllowGrowing {
		g.OK, g.Overridden = true, true
		g.Detail = fmt.Sprintf("--allow-growing: %d Growing, Sealed or Flushing segments and %d segment-assign records in scope; their unflushed rows are LOST (flushed data survives)", a.unflushed, a.assigns)
		pl.Warnings = append(pl.Warnings, g.Detail)
	}
	pl.Gates = append(pl.Gates, g)
	for _, g := range pl.Gates {
		pl.Refused = pl.Refused || !g.OK
	}
	a.finish(&pl.Summary, layout)
	if pl.Warnings == nil {
		pl.Warnings = []string{}
	}
	pl.NotTouched = notTouched(layout)
	pl.Reminders = reminders(planner, layout)
	if planner.WAL == commonpb.WALName_WoodPecker {
		resp, err := inst.Client.Get(ctx, layout.Root("wp/"), clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithRev(rev))
		if err != nil {
			return fmt.Errorf("read %s: %w", layout.Root("wp/"), err)
		}
		if resp.Count > 0 {
			pl.Warnings = append(pl.Warnings, fmt.Sprintf("%s holds %d keys: woodpecker's own metadata must be empty for a fresh WAL", layout.Root("wp/"), resp.Count))
		}
	}
	if len(pl.SplitPChannels) > 0 {
		pl.Warnings = append(pl.Warnings, fmt.Sprintf("split state on %s (positions in more than one WAL, as an interrupted reset leaves them): this run completes it",
			strings.Join(pl.SplitPChannels, ", ")))
	}
	return nil
}

func gate(name string, count int64, keys []string, okDetail, failFormat string) Gate {
	g := Gate{Name: name, OK: count == 0, Count: count, Detail: okDetail}
	if count > 0 {
		g.Keys = keys
		if strings.Contains(failFormat, "%d") {
			g.Detail = fmt.Sprintf(failFormat, count)
		} else {
			g.Detail = failFormat
		}
	}
	return g
}

// walkAt walks prefixes at rev with windowed pages (pageSize 0: the
// instance's), telling the watchdog of ctx about every page.
func walkAt(ctx context.Context, inst *instance.Instance, rev int64, prefixes []string, pageSize int, fn func(e instance.Entry) error) error {
	in := *inst
	if pageSize > 0 {
		in.PageSize = pageSize
	}
	for _, prefix := range prefixes {
		_, err := in.Scan(ctx, in.Layout.Meta(prefix), rev, func(page []instance.KV) error {
			apply.Heartbeat(ctx)
			for _, kv := range page {
				rel, _ := in.Layout.Rel(kv.Key)
				if err := fn(instance.Entry{KV: kv, Key: models.Classify(rel)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// --- the op stream ----------------------------------------------------------

// Ops streams the plan's ops in write order by reading etcd again at the
// plan's revision: the Source of apply's first pass when the plan was built
// in full (not deferred).
func (pl *Plan) Ops() apply.Source {
	quiet := *pl.planner
	quiet.Quiet = true
	p := &quiet
	return func(ctx context.Context, yield func(apply.Op) error) error {
		return pl.walkWriteOrder(ctx, func(e instance.Entry) error {
			d, err := p.Decide(e.Key, e.Value)
			if err != nil {
				return err
			}
			if d.Action == Keep {
				return nil
			}
			return yield(op(e.KV.Key, e.ModRevision, e.Value, d))
		}, func(kv instance.KV) error {
			if d := p.DecideConfig(kv.Value); d.Action != Keep {
				return yield(op(kv.Key, kv.ModRevision, kv.Value, d))
			}
			return nil
		})
	}
}

// planOps is the Source of a deferred plan's first pass: it decides every
// key into the summary as Build would, and yields the ops, from one read.
// A key that does not decode stops it with the error Build would return
// (kept in planErr).
func (pl *Plan) planOps() apply.Source {
	a := pl.acc
	return func(ctx context.Context, yield func(apply.Op) error) error {
		return pl.walkWriteOrder(ctx, func(e instance.Entry) error {
			d, err := a.decision(e)
			if err != nil {
				pl.planErr = err
				return err
			}
			if d.Action == Keep {
				return nil
			}
			return yield(op(e.KV.Key, e.ModRevision, e.Value, d))
		}, func(kv instance.KV) error {
			d := pl.planner.DecideConfig(kv.Value)
			a.add(kv.Key, kv.ModRevision, d)
			if d.Action != Keep {
				return yield(op(kv.Key, kv.ModRevision, kv.Value, d))
			}
			return nil
		})
	}
}

// walkWriteOrder reads every key the reset may write at the plan's revision,
// in write order: entry gets the keys under the meta root, config the mq.type
// overrides that exist.
func (pl *Plan) walkWriteOrder(ctx context.Context, entry func(e instance.Entry) error, config func(kv instance.KV) error) error {
	inst := pl.inst
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
			for _, key := range pl.configs {
				kv, ok, err := inst.Get(ctx, key, pl.rev)
				if err != nil {
					return err
				}
				apply.Heartbeat(ctx)
				if !ok {
					continue
				}
				if err := config(kv); err != nil {
					return err
				}
			}
			continue
		}
		err := walkAt(ctx, inst, pl.rev, st.prefixes, st.size, func(e instance.Entry) error {
			if st.filter >= 0 && e.Kind != st.filter {
				return nil
			}
			return entry(e)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func op(key string, modRev int64, original []byte, d Decision) apply.Op {
	return apply.Op{Key: key, ModRevision: modRev, Value: d.Value, Delete: d.Action == Delete, Original: original, Phase: kindPhase[d.Kind]}
}

// Replay rebuilds an op from its backup entry with the same planner: apply's
// second pass reads the backup file instead of etcd.
func (pl *Plan) Replay() func(e apply.Entry) (apply.Op, error) {
	quiet := *pl.planner
	quiet.Quiet = true
	p := &quiet
	configs := map[string]bool{}
	for _, k := range pl.configs {
		configs[k] = true
	}
	return func(e apply.Entry) (apply.Op, error) {
		if e.Absent {
			return apply.Op{}, errors.New("the reset never creates keys")
		}
		var d Decision
		if configs[e.Key] {
			d = p.DecideConfig(e.Value)
		} else {
			rel, ok := pl.inst.Layout.Rel(e.Key)
			if !ok {
				return apply.Op{}, fmt.Errorf("not under the meta root %s", pl.inst.Layout.MetaRoot())
			}
			var err error
			if d, err = p.Decide(models.Classify(rel), e.Value); err != nil {
				return apply.Op{}, err
			}
		}
		if d.Action == Keep {
			return apply.Op{}, errors.New("the plan keeps this key now")
		}
		return op(e.Key, e.ModRevision, e.Value, d), nil
	}
}

// --- apply ------------------------------------------------------------------

// testTune lets this package's tests, which drive the command through a
// shell, reach the plan and its apply options.
var testTune func(*Plan, *apply.Options)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// BackupPath is where the run writes its backup.
func (pl *Plan) BackupPath(now time.Time) string {
	dir := pl.backupDir
	if dir == "" {
		dir = "."
	}
	name := fmt.Sprintf("heron-backup-%s-reset-%s-rev%d-%s.jsonl", unsafeName.ReplaceAllString(pl.inst.Layout.RootPath, "_"),
		pl.TargetWAL, pl.rev, now.UTC().Format("20060102T150405Z"))
	return freeName(filepath.Join(dir, name))
}

// freeName adds -2, -3, ... before the extension while the path exists.
func freeName(path string) string {
	base := strings.TrimSuffix(path, ".jsonl")
	for i := 2; ; i++ {
		if _, err := os.Lstat(path); err != nil {
			return path
		}
		path = fmt.Sprintf("%s-%d.jsonl", base, i)
	}
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
	b.WriteString(" --run")
	return b.String()
}

// Options are the apply options of the run (before Tune).
func (pl *Plan) Options(stderr io.Writer) (apply.Options, error) {
	var scope []string
	if !pl.planner.Whole {
		scope = pl.Scope.PChannels
	}
	opt := apply.Options{
		MaxTxnOps:  pl.params.MaxTxnOps,
		BackupPath: pl.BackupPath(time.Now()),
		Header: apply.Header{Command: pl.commandLine(), Endpoints: pl.inst.Endpoints, RootPath: pl.inst.Layout.RootPath,
			MetaRoot: pl.inst.Layout.MetaRoot(), Revision: pl.rev, Target: pl.TargetWAL, Scope: scope},
		Total:    pl.TotalKeys,
		Progress: stderr,
		Label:    "reset checkpoint",
		Replay:   pl.Replay(),
		AfterBackup: func(path string) error {
			fmt.Fprintf(stderr, "backup: %s (%d keys, synced)\n", path, pl.TotalKeys)
			return nil
		},
	}
	return apply.FromEnv(opt)
}

// Apply backs up and writes the plan, then reads every position in scope back.
func (pl *Plan) Apply(ctx context.Context) (framework.Result, error) {
	if err := pl.Refusal(); err != nil {
		return nil, err
	}
	res := &RunResult{Plan: &pl.Summary}
	stderr := framework.Stderr(ctx)
	if pl.TotalKeys > 0 || pl.deferred {
		opt, err := pl.Options(stderr)
		if err != nil {
			return nil, framework.Usagef("reset checkpoint: %v", err)
		}
		src := pl.Ops()
		var refused error
		if pl.deferred {
			// One read plans and backs up: the gates that need every key
			// are checked once it is done, before the backup is published
			// and before anything is written.
			src = pl.planOps()
			opt.Total, opt.SkipEmpty = 0, true
			opt.Check = func() error {
				if err := pl.finish(ctx); err != nil {
					return err
				}
				pl.deferred = false
				refused = pl.Refusal()
				return refused
			}
		}
		if pl.Tune != nil {
			pl.Tune(&opt)
		}
		if testTune != nil {
			testTune(pl, &opt)
		}
		ar, err := apply.Apply(ctx, pl.inst.Client, src, opt)
		if pl.planErr != nil {
			return nil, pl.planErr
		}
		if refused != nil && err == refused {
			return pl, refused
		}
		res.Applied = ar
		if ar != nil && ar.Keys == 0 && ar.Backup == "" && err == nil {
			res.Applied = nil
		}
		if err != nil {
			if ar != nil && ar.Backup != "" {
				return res, fmt.Errorf("%w (backup of the original values: %s; restore --file %s --run rolls back)", err, ar.Backup, ar.Backup)
			}
			return res, err
		}
	}
	v, err := pl.Verify(ctx)
	res.Verify = &v
	if err != nil {
		return res, fmt.Errorf("verify: %w", err)
	}
	if !v.OK {
		return res, fmt.Errorf("verify: %d problems after the run, first: %s", v.FailuresTotal, strings.Join(v.Failures[:min(3, len(v.Failures))], "; "))
	}
	return res, nil
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
