package resetwal

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/objstore"
	"github.com/heron-shell/heron/states/woodpecker"
)

// Phases of the deletes: every per-log key first, the LogMeta last, so that
// an interrupted run leaves each log listed (and found by a re-run).
const (
	phaseKeys    = 0
	phaseLogMeta = 1
)

// Commands is `reset wal` on a connected instance: its phases, run by the
// kit with the instance's gates (gates.Write).
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{apply.Command(inst, Build)}
}

// Build is reset wal's plan: the logs in scope under every woodpecker
// prefix, their objects, the gates, and the ops (one delete per per-log
// key), and the deletion of the logs' objects as the plan's effect outside
// etcd.
var Build = gates.Write(apply.Phases[*instance.Instance, Params, *walPlan]{
	Context: readContext, Header: (*walPlan).header, Scan: (*walPlan).scan, Gates: (*walPlan).gates, View: (*walPlan).view})

// walPlan is reset wal's context: what it read at the plan's revision,
// and what its scan decides into it.
type walPlan struct {
	inst      *instance.Instance
	p         *Params
	rev       int64
	s         *Summary
	pchannels map[string]bool
	planned   map[logKey]bool
	prefixes  map[string]bool
	objects   *logObjects
	storage   framework.Gate
	runRem    []string
	// staged counts the keys the scan decided to delete; logMetas are their
	// LogMeta keys with mod revisions; continues is the interrupted run's
	// backup this one continues ("": none).
	staged    int64
	logMetas  map[string]int64
	continues string
}

type logKey struct{ prefix, name string }

// readContext reads, at rev, the instance's pchannels, woodpecker's
// inventory, its storage type, the logs' objects and logidgens.
func readContext(ctx context.Context, inst *instance.Instance, p *Params, rev int64) (*walPlan, error) {
	pchannels, err := woodpecker.InstancePChannels(ctx, inst, rev)
	if err != nil {
		return nil, err
	}
	if err := gates.KnownPChannels("reset wal", p.PChannels, pchannels); err != nil {
		return nil, err
	}
	scope := map[string]bool{}
	for _, pc := range p.PChannels {
		scope[pc] = true
	}
	inScope := func(pc string) bool { return len(scope) == 0 || scope[pc] }
	inv, err := woodpecker.Find(ctx, inst, rev, woodpecker.Options{MetaPrefix: p.WPMetaPrefix, PChannels: pchannels})
	if err != nil {
		return nil, err
	}
	storage, from, err := storageType(ctx, inst, rev, p.StorageType)
	if err != nil {
		return nil, err
	}
	if p.MinioAddress != "" && storage != StorageMinio {
		return nil, framework.Usagef("reset wal: --minio-address, but woodpecker.storage.type is %s (%s): pass --storage-type minio if that is wrong", storage, from)
	}
	s := &Summary{Command: "reset wal", Target: p.Target, Revision: rev, RootPath: inst.Layout.RootPath,
		Effective: inv.Effective, StorageType: storage, StorageFrom: from, Logs: []LogRow{}, Warnings: []string{}}
	if len(scope) == 0 {
		s.Scope = Scope{WholeInstance: true, PChannels: slices.Sorted(maps.Keys(pchannels))}
	} else {
		s.Scope = Scope{PChannels: slices.Sorted(maps.Keys(scope))}
	}
	logs := inv.InstanceLogs(inScope)
	w := &walPlan{inst: inst, p: p, rev: rev, s: s, pchannels: pchannels, planned: map[logKey]bool{}, prefixes: map[string]bool{}, logMetas: map[string]int64{}}
	for _, l := range logs {
		w.planned[logKey{l.Prefix, l.Name}] = true
		w.prefixes[l.Prefix+"/"] = true
		s.Logs = append(s.Logs, LogRow{Prefix: l.Prefix, Name: l.Name, ID: l.ID, ParkedIDs: l.ParkedIDs, Segments: l.Segments,
			TruncatedSegment: l.TruncatedSegment, TruncatedEntry: l.TruncatedEntry, Keys: l.Keys, Objects: -1, ObjectBytes: -1})
		s.Keys += l.Keys
	}
	for _, pr := range inv.Prefixes {
		if !pr.Readable {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s/ could not be read (%s): logs there are not in this plan", pr.Prefix, pr.Error))
		}
	}
	if inv.Effective.Note != "" {
		s.Warnings = append(s.Warnings, inv.Effective.Note)
	}
	s.Kept = kept(inv)
	if w.objects, err = planObjects(ctx, p, storage, logs, inv, s); err != nil {
		return nil, err
	}
	w.storage = storageGate(p, s)
	w.runRem = runReminders(s)
	s.Reminders = append([]string{backupReminder}, w.runRem...)
	if s.Logidgen, err = logidgens(ctx, inst, rev, slices.Sorted(maps.Keys(w.prefixes))); err != nil {
		return nil, err
	}
	return w, nil
}

// header is the backup's header: the LogMeta phase comes back first.
func (w *walPlan) header() (apply.Header, string) {
	inst := w.inst
	return apply.Header{Command: commandLine(w.p), Endpoints: inst.Endpoints, RootPath: inst.Layout.RootPath,
		MetaRoot: inst.Layout.MetaRoot(), Revision: w.rev, Target: w.p.Target, Scope: w.p.PChannels,
		Prefixes: slices.Sorted(maps.Keys(w.prefixes)), RestoreOrder: [][]int{{phaseLogMeta}, {phaseKeys}}}, "reset-wal"
}

// scan decides every key of the logs in scope at the plan's revision: one
// delete each, the per-log keys before the LogMeta.
func (w *walPlan) scan(ctx context.Context, read func(n int), yield func(apply.Op) error) error {
	w.staged = 0
	clear(w.logMetas)
	var ops []apply.Op
	_, err := woodpecker.Find(ctx, w.inst, w.rev, woodpecker.Options{MetaPrefix: w.p.WPMetaPrefix, PChannels: w.pchannels,
		OnKey: func(k woodpecker.Key) error {
			read(1)
			if !w.planned[logKey{k.Prefix, k.Log}] {
				return nil
			}
			w.staged++
			phase := phaseKeys
			if k.Kind == models.WPLog {
				w.logMetas[k.Key] = k.ModRevision
				phase = phaseLogMeta
			}
			if yield == nil {
				return nil
			}
			ops = append(ops, apply.Op{Key: k.Key, ModRevision: k.ModRevision, Delete: true,
				Original: append([]byte(nil), k.Value...), Phase: phase})
			return nil
		}})
	if err != nil {
		return err
	}
	if w.staged != w.s.Keys {
		return fmt.Errorf("reset wal: the inventory counted %d keys but the scan found %d at revision %d", w.s.Keys, w.staged, w.rev)
	}
	// Ops go in nondecreasing phase; the keys of one log are few.
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Phase < ops[j].Phase })
	for _, op := range ops {
		if err := yield(op); err != nil {
			return err
		}
	}
	return nil
}

// gates are the storage gate, and, from the LogMetas the scan found, the
// interrupted run this one continues (Plan.SplitState).
func (w *walPlan) gates(context.Context) ([]framework.Gate, error) {
	prev, err := continuesInterrupted(w.p.BackupDir, w.inst.Layout.RootPath, w.rev, w.logMetas)
	if err != nil {
		return nil, err
	}
	w.continues = prev
	return []framework.Gate{w.storage}, nil
}

// view is the plan shown, with its effects outside etcd and its checks
// after the run.
func (w *walPlan) view(gs []framework.Gate) *apply.Plan {
	s := w.s
	s.Gates = gs
	if w.continues != "" {
		s.Warnings = append(s.Warnings, fmt.Sprintf("an earlier reset wal stopped inside these logs: its backup %s holds the keys it deleted; this run completes it, and its backup continues that one (restore both, newest first, to roll back)", w.continues))
	}
	pl := &apply.Plan{Command: "reset wal", Title: "reset wal (woodpecker)", View: s, Keys: s.Keys, SplitState: w.continues != "",
		Root: w.inst.Layout.RootPath, Put: "written", Nothing: "nothing to write (no woodpecker log of a pchannel in scope)",
		Reminders: w.runRem, After: []apply.Check{logidgenCheck(w.inst, s.Logidgen)}}
	if w.objects != nil {
		pl.External = []apply.Effect{w.objects.effect(s)}
		pl.After = append(pl.After, w.objects.check(s))
	}
	return pl
}

// continuesInterrupted is the backup of the interrupted reset wal this
// run continues ("": none): the latest earlier reset wal backup of the root in dir
// deleted (or was to delete) a log's LogMeta that is still there, not
// written since that run read it (its mod revision is the backup's). A
// run deletes a log's LogMeta last, so that log is one the earlier run
// stopped inside: some of its keys are gone, and only the earlier backup
// holds them. The kit then chains this run's backup to it (Plan.SplitState:
// restore names both, newest first). logMetas are the LogMeta keys this
// plan deletes, with their mod revisions.
func continuesInterrupted(dir, root string, rev int64, logMetas map[string]int64) (string, error) {
	if len(logMetas) == 0 {
		return "", nil
	}
	prev, ok := apply.PreviousBackup(dir, root, rev, "reset wal")
	if !ok {
		return "", nil
	}
	br, err := apply.OpenBackup(prev)
	if err != nil {
		return "", fmt.Errorf("reset wal: the earlier backup %s: %w", prev, err)
	}
	defer br.Close()
	for {
		e, more, err := br.Next()
		if err != nil {
			return "", fmt.Errorf("reset wal: the earlier backup %s: %w", prev, err)
		}
		if !more {
			return "", nil
		}
		if e.Phase == phaseLogMeta && e.Delete && e.ModRevision != 0 && logMetas[e.Key] == e.ModRevision {
			return prev, nil
		}
	}
}

// logObjects are the objects of woodpecker's layout of the logs in scope,
// in a bucket heron reaches.
type logObjects struct {
	store *objstore.Store
	keys  []string
}

// effect deletes the objects: the kit runs it once the etcd backup is
// published and before the first etcd write (objects first, metadata
// second, so that a failed or interrupted delete leaves every log listed
// and a re-run finds what is left).
func (o *logObjects) effect(s *Summary) apply.Effect {
	return apply.Effect{
		EffectInfo: apply.EffectInfo{Verb: "delete", Past: "deleted", Count: int64(len(o.keys)), Unit: "objects",
			Bytes: s.ObjectBytes, Where: o.store.Config().Describe()},
		Run: func(ctx context.Context, done func(int64)) error { return o.store.Delete(ctx, o.keys, done) },
	}
}

// planObjects lists the objects of every log in scope (with --minio-address)
// or says where they stay (nil).
func planObjects(ctx context.Context, p *Params, storage string, logs []woodpecker.Log, inv *woodpecker.Inventory, s *Summary) (*logObjects, error) {
	cfg, ok := p.objects()
	base := models.WoodpeckerObjectBase(p.MinioRootPath)
	switch {
	case storage == StorageLocal:
		s.Objects = ObjectsInfo{Reachable: false, Location: "each streamingnode's disk: {localStorage.path}/wp/" + base + "/{logId}/{segId}/data.log",
			Note: "heron cannot reach those disks: the data of the logs stays there; log ids are never reused (logidgen is kept), so a new log never reads it; remove it by hand on each node once Milvus runs on the emptied logs"}
		return nil, nil
	case storage == StorageService:
		s.Objects = ObjectsInfo{Reachable: false, Location: "the woodpecker service's nodes",
			Note: "only the woodpecker service deletes its staged data (MarkLogDeleted, POST /admin/log/delete): the data of the logs stays there; log ids are never reused (logidgen is kept), so a new log never reads it"}
		return nil, nil
	case !ok:
		s.Objects = ObjectsInfo{Reachable: false, Location: "object storage: {minio.bucketName}/" + base + "/{logId}/ (ids " + idList(logs) + ")",
			Note: "without --minio-address heron deletes no object: the logs' objects stay behind; that is safe because log ids are never reused (logidgen is kept), so no new log reads them; they only take space (pass --minio-address to delete them too)"}
		return nil, nil
	}
	store, err := objstore.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("reset wal: %w", err)
	}
	s.Objects = ObjectsInfo{Reachable: true, Location: cfg.Describe(),
		Note: "objects are deleted before the etcd keys, and an etcd backup cannot bring them back: restore puts the metadata back, not the data"}
	otherIDs := map[int64]string{}
	for _, l := range inv.Logs {
		in := false
		for _, m := range logs {
			if m.Prefix == l.Prefix && m.Name == l.Name {
				in = true
			}
		}
		if !in {
			for _, id := range l.IDs() {
				otherIDs[id] = l.Prefix + "/logs/" + l.Name
			}
		}
	}
	var keys []string
	for i, l := range logs {
		row := &s.Logs[i]
		row.Objects, row.ObjectBytes = 0, 0
		for _, id := range l.IDs() {
			if other, shared := otherIDs[id]; shared {
				s.Warnings = append(s.Warnings, fmt.Sprintf("log id %d of %s/logs/%s is also the id of %s (another prefix's counter): its objects under %s are kept, as they may be that log's",
					id, l.Prefix, l.Name, other, models.WoodpeckerLogObjectPrefix(cfg.RootPath, id)))
				continue
			}
			lo, err := store.Log(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("reset wal: %w", err)
			}
			row.ObjectPrefixes = append(row.ObjectPrefixes, lo.Prefix)
			row.Objects += int64(lo.Count)
			row.ObjectBytes += lo.Bytes
			for _, o := range lo.Layout {
				keys = append(keys, o.Key)
			}
			for _, o := range lo.Foreign {
				row.Foreign = append(row.Foreign, o.Key)
			}
		}
		s.ObjectsTotal += row.Objects
		s.ObjectBytes += row.ObjectBytes
		if len(row.Foreign) > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("objects not of woodpecker's layout under the folder of %s/logs/%s, kept: %s",
				l.Prefix, l.Name, listKeys(row.Foreign)))
		}
		if l.Segments > 0 && row.Objects == 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s/logs/%s has %d segments in etcd but no object matched under %s: check --minio-bucket and --minio-root-path (Milvus's minio.bucketName and minio.rootPath)",
				l.Prefix, l.Name, l.Segments, strings.Join(row.ObjectPrefixes, ", ")))
		}
	}
	return &logObjects{store: store, keys: keys}, nil
}

// storageType is woodpecker.storage.type: the flag, else Milvus's etcd
// config override (formatKey "woodpeckerstoragetype"), else minio (the
// default); from says which.
func storageType(ctx context.Context, inst *instance.Instance, rev int64, flag string) (string, string, error) {
	if flag != "" {
		return flag, "--storage-type", nil
	}
	l := inst.Layout
	var keys []string
	values := map[string]string{}
	_, err := inst.Scan(ctx, l.Root(models.ConfigPrefix), rev, func(page []instance.KV) error {
		for _, kv := range page {
			rel, ok := strings.CutPrefix(kv.Key, l.Root(""))
			if ok && models.IsWoodpeckerStorageTypeConfigKey(rel) {
				keys = append(keys, rel)
				values[rel] = string(kv.Value)
			}
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	best := models.EffectiveWoodpeckerStorageTypeKey(keys)
	if best == "" {
		return StorageMinio, "default", nil
	}
	v := strings.ToLower(strings.TrimSpace(values[best]))
	switch v {
	case StorageMinio, StorageLocal, StorageService:
		return v, l.Root(best), nil
	}
	return "", "", framework.Usagef("reset wal: %s is %q, not minio, local or service: pass --storage-type", l.Root(best), values[best])
}

// storageGate lets the run go on when heron can delete the data, or the
// operator said the data may stay.
func storageGate(p *Params, s *Summary) framework.Gate {
	g := framework.Gate{Name: "woodpecker data reachable", OK: true}
	switch {
	case s.Objects.Reachable:
		g.Detail = fmt.Sprintf("%d objects (%d bytes) of the logs in %s", s.ObjectsTotal, s.ObjectBytes, s.Objects.Location)
	case s.StorageType == StorageMinio:
		g.Detail = "no --minio-address: the logs' objects stay in object storage (safe: log ids are never reused)"
	case p.AllowDataLeft:
		g.Overridden = true
		g.Detail = fmt.Sprintf("--allow-data-left: storage type %s, the logs' data stays in %s", s.StorageType, s.Objects.Location)
	case len(s.Logs) == 0:
		g.Detail = fmt.Sprintf("storage type %s, but no log to empty", s.StorageType)
	default:
		g.OK, g.Count = false, int64(len(s.Logs))
		g.Detail = fmt.Sprintf("storage type %s (%s): heron cannot delete the logs' data in %s; pass --allow-data-left to empty the metadata and leave the data there", s.StorageType, s.StorageFrom, s.Objects.Location)
		g.Fix = []framework.Step{{Order: framework.StepRerun, Text: "re-run with --allow-data-left (the logs' data stays in " + s.Objects.Location + ")"}}
	}
	return g
}

// logidgens reads every prefix's logidgen at rev: the run must not change
// them (log ids name the data's objects).
func logidgens(ctx context.Context, inst *instance.Instance, rev int64, prefixes []string) (map[string]string, error) {
	out := map[string]string{}
	var keys []string
	for _, p := range prefixes {
		keys = append(keys, p+"logidgen")
	}
	if len(keys) == 0 {
		return out, nil
	}
	kvs, err := inst.GetMany(ctx, keys, rev)
	if err != nil {
		return nil, err
	}
	for i, kv := range kvs {
		if kv.Key == "" {
			out[keys[i]] = ""
		} else {
			out[keys[i]] = string(kv.Value)
		}
	}
	return out, nil
}

func logidgenCheck(inst *instance.Instance, before map[string]string) apply.Check {
	return apply.Check{Name: "logidgen unchanged", Run: func(ctx context.Context) (string, error) {
		var keys []string
		for k := range before {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			return "", nil
		}
		kvs, err := inst.GetMany(ctx, keys, 0)
		if err != nil {
			return "", err
		}
		for i, kv := range kvs {
			now := ""
			if kv.Key != "" {
				now = string(kv.Value)
			}
			if now != before[keys[i]] {
				return "", fmt.Errorf("%s changed from %q to %q during the run", keys[i], before[keys[i]], now)
			}
		}
		return "", nil
	}}
}

// check lists the emptied logs' folders again: no object of woodpecker's
// layout is left.
func (o *logObjects) check(s *Summary) apply.Check {
	store := o.store
	return apply.Check{Name: "objects deleted", Run: func(ctx context.Context) (string, error) {
		for _, row := range s.Logs {
			for _, prefix := range row.ObjectPrefixes {
				objs, err := store.List(ctx, prefix)
				if err != nil {
					return "", err
				}
				if lo := objstore.Classify(prefix, objs); lo.Count > 0 {
					return "", fmt.Errorf("%d objects of woodpecker's layout are left under %s", lo.Count, prefix)
				}
			}
		}
		return fmt.Sprintf("ok; %d objects (%d bytes) of the logs deleted from %s, none left", s.ObjectsTotal, s.ObjectBytes, store.Config().Describe()), nil
	}}
}

// kept names the woodpecker keys the run never touches.
func kept(inv *woodpecker.Inventory) []string {
	p := inv.Effective.Prefix
	out := []string{
		p + "/logidgen (log ids are never reused: they name the objects of a log's data)",
		p + "/instance, version, quorumidgen, conditionwrite, quorums/, logstores/",
		"logs of pchannels out of scope, and every log not named after a pchannel of this instance (other instances' under the shared legacy " + models.WoodpeckerLegacyRoot + "/)",
	}
	return out
}

// backupReminder is the plan's reminder of the backup a run writes; after
// a run the kit gives its own, with the file's path.
const backupReminder = "keep the backup file: restore --file BACKUP --run puts every deleted etcd key back as it was (not the objects)"

// runReminders are the reminders that close a verified run.
func runReminders(s *Summary) []string {
	r := []string{
		"then move the positions: reset checkpoint --target-wal woodpecker",
	}
	if !s.Objects.Reachable && len(s.Logs) > 0 {
		r = append(r, "the logs' data stays in "+s.Objects.Location)
	}
	return r
}

func commandLine(p *Params) string {
	var b strings.Builder
	b.WriteString("reset wal --target " + p.Target)
	for _, pc := range p.PChannels {
		b.WriteString(" --pchannel " + pc)
	}
	if p.WPMetaPrefix != "" {
		b.WriteString(" --wp-meta-prefix " + p.WPMetaPrefix)
	}
	if p.StorageType != "" {
		b.WriteString(" --storage-type " + p.StorageType)
	}
	if p.AllowDataLeft {
		b.WriteString(" --allow-data-left")
	}
	if p.MinioAddress != "" {
		fmt.Fprintf(&b, " --minio-address %s --minio-bucket %s --minio-root-path %s", p.MinioAddress, p.MinioBucket, p.MinioRootPath)
		if p.MinioUseSSL {
			b.WriteString(" --minio-use-ssl")
		}
	}
	b.WriteString(" --run")
	return b.String()
}

func idList(logs []woodpecker.Log) string {
	var ids []string
	for _, l := range logs {
		for _, id := range l.IDs() {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

const maxListed = 20

func listKeys(keys []string) string {
	if len(keys) <= maxListed {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:maxListed], ", "), len(keys)-maxListed)
}
