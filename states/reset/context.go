package reset

import (
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
)

// collectionPageSize bounds the first page of collection infos, whose
// schemas can be large; later pages are sized by bytes.
const collectionPageSize = 50

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

// walk walks prefixes at rev with windowed pages (firstPage: the keys of
// the first, 0: the instance's).
func walk(ctx context.Context, inst *instance.Instance, rev int64, prefixes []string, firstPage int, fn func(e instance.Entry) error) error {
	_, err := inst.WithFirstPage(firstPage).Walk(ctx, rev, prefixes, fn)
	return err
}
