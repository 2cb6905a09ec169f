// Package restore is `restore --file BACKUP [--run]`: it puts every key of a
// heron backup file back as it was before the write that made the backup
// (the value, or the key's absence), guarded by the mod revisions read at one
// revision, through framework/apply's kit (so a restore backs up what it
// overwrites, too). It owns no rule of the command that made the backup: it
// writes the keys back in the order the backup's header names and runs the
// check it names. The file is streamed, never loaded whole, and opened once
// for the plan (checked whole, then its entries read again phase by phase
// from the same open file); the keys' values now are read by spans of
// consecutive keys (span.go).
package restore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
)

// Params are the flags of `restore`.
type Params struct {
	framework.ParamBase `use:"restore" desc:"put back every key of a heron backup file as it was (a plan unless --run)" example:"restore --file heron-backup-by-dev-reset-kafka-rev1234-20261203T101500Z.jsonl --run"`
	File                string `name:"file" required:"true" placeholder:"BACKUP" desc:"the backup file a write command (reset checkpoint, ...) wrote"`
	NoChecksum          bool   `name:"no-checksum" desc:"restore a backup written before heron checksummed backups (its changes cannot be detected)"`
	ForceMovedOn        bool   `name:"force-moved-on" desc:"restore although keys changed, were deleted or created since the backed-up write (rolls back what Milvus did since)"`
	framework.WriteFlags
	framework.Output
}

// Complete makes --file absolute: a saved plan (--plan-out) and the
// restore's own backup header record it, and `apply --file` or a restore
// of that backup may run in another folder.
func (p *Params) Complete() error {
	if strings.TrimSpace(p.File) == "" {
		return nil // Validate says so
	}
	abs, err := filepath.Abs(p.File)
	if err != nil {
		return framework.Usagef("restore: --file %q: %v", p.File, err)
	}
	p.File = abs
	return nil
}

// Validate checks the flags.
func (p *Params) Validate() error {
	if strings.TrimSpace(p.File) == "" {
		return framework.Usagef("restore: --file is empty")
	}
	return nil
}

// Commands are the restore command on a connected instance: params + plan
// (Build) + view (Summary), run by the kit.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{apply.Command(inst, Build)}
}

// Summary is the restore plan (its JSON shape is documented in docs/json.md).
type Summary struct {
	Command string `json:"command"`
	File    string `json:"file"`
	// Backup is the header of the file: what wrote it, when, at which revision.
	Backup apply.Header `json:"backup"`
	// Revision is the revision the current values were read at.
	Revision int64  `json:"revision"`
	Gates    []Gate `json:"gates"`
	Refused  bool   `json:"refused"`
	// Entries in the file; Puts and Deletes restore; Unchanged already match.
	Entries   int64     `json:"entries"`
	Puts      int64     `json:"puts"`
	Deletes   int64     `json:"deletes"`
	Unchanged int64     `json:"unchanged"`
	TotalKeys int64     `json:"total_keys"`
	Examples  []Example `json:"examples"`
	Warnings  []string  `json:"warnings"`
	// Checksum is "sha256" when the file's checksum matched, "none" for a
	// backup without one (restored only with --no-checksum).
	Checksum string `json:"checksum"`
	// Prefixes are the key prefixes the backed-up command writes: the file
	// holds no other key.
	Prefixes []string `json:"prefixes"`
	// Chain is the order to restore in, newest first, when the backup was
	// taken of a split state and continues earlier ones (this file first);
	// empty otherwise. OriginalBackup holds the values before the first run.
	Chain          []string `json:"chain"`
	OriginalBackup string   `json:"original_backup,omitempty"`
	// MovedOn lists the keys that changed since the backed-up command wrote
	// them (gate "instance did not move on").
	MovedOn MovedOn `json:"moved_on"`
}

// MovedOn is what happened to the instance since the write that made the
// backup: keys of the backup that no longer hold what that write left
// (changed, deleted, created again), and keys created since under its
// prefixes. Checked: false when the backup does not record what its
// command wrote (a backup of an older heron, a rule this heron lacks).
type MovedOn struct {
	Checked bool     `json:"checked"`
	Changed []string `json:"changed"`
	Deleted []string `json:"deleted"`
	Created []string `json:"created"`
	// Total counts every key (at most maxMovedOnListed are listed a kind).
	Total int64 `json:"total"`
	// Unknown counts entries whose written value the backup does not record.
	Unknown int64 `json:"unknown"`
}

const maxMovedOnListed = 20

func (m *MovedOn) add(list *[]string, key string) {
	m.Total++
	if len(*list) < maxMovedOnListed {
		*list = append(*list, key)
	}
}

// Gate is one safety check.
type Gate = framework.Gate

// Example is one key the restore changes.
type Example struct {
	Key    string `json:"key"`
	Action string `json:"action"`
}

// Plan is a restore plan while it is built.
type Plan struct {
	Summary
	inst   *instance.Instance
	params Params
	// written gives an entry the op its command wrote (nil: unknown);
	// created are the keys created since under the prefixes, not yet seen
	// in the file.
	written func(apply.Entry) (apply.Op, error)
	created map[string]bool
	// beside: the keys created since are read beside the scan (the runs
	// are disjoint: its spans read those in the runs' key ranges), not
	// before it.
	beside bool
	// file is the backup, open from the check to the end of the scan;
	// runs are where each restore phase's entries lie in it.
	file *apply.BackupReader
	runs runs
	// groups: the restore phase of each backed-up phase (Header.RestoreOrder);
	// phases bounds them.
	groups map[int]int
	phases int
	// segments tallies the positions every segment key holds once a run
	// is done, when its scan read them all (census.go; nil: the verify
	// reads them).
	segments *models.PositionTally
	// split: the pchannels a run found in a split state (splitBefore): its
	// backup holds that state, and continues the file restored.
	split []string
}

// Waived: a repair's backup is restored without the gates the repair
// waived (apply.Waiver).
func (pl *Plan) Waived() map[string]string {
	return gates.RepairWaiver(gates.Writer(pl.Backup.Planner, pl.Backup.Command))
}

const maxExamples = 5

// maxRestoreGroups bounds a header's RestoreOrder (reset checkpoint records
// 2 groups): the scan reads the file's entries once per group (a file
// whose phases alternate more than maxRuns times, whole); and its Prefixes,
// each scanned whole.
const maxRestoreGroups = 16

// Build is restore's plan, as the kit's phases (gates.Write): the context
// (the backup file checked whole: checksum, prefixes), the scan of every
// key of the file in the order its header names with the keys created
// since under its prefixes (beside it; before it for a file whose runs
// overlap: readCreated), the gates that need it (the file is this
// instance's, the instance did not move on), and the view.
var Build = gates.Write(apply.Phases[*instance.Instance, Params, *Plan]{
	Context: readContext, Header: (*Plan).headerNamed, Scan: (*Plan).scan, Gates: (*Plan).scanGates, View: (*Plan).view})

// readContext checks the backup file whole, then (readCreated) decides
// how the keys created since under its prefixes are read.
func readContext(ctx context.Context, inst *instance.Instance, p *Params, rev int64) (*Plan, error) {
	pl, err := build(ctx, inst, p, rev)
	if err != nil {
		return nil, err
	}
	if err := pl.readCreated(ctx); err != nil {
		_ = pl.Close()
		return nil, err
	}
	return pl, nil
}

// headerNamed is the header of the restore's own backup, and its name.
func (pl *Plan) headerNamed() (apply.Header, string) { return pl.header(), "restore" }

// scanGates are the file's gate and, from the scan, the moved-on gate.
func (pl *Plan) scanGates(context.Context) ([]Gate, error) {
	return []Gate{gates.FileGate(pl.inst, gates.File{What: "backup", Made: "taken of", RootPath: pl.Backup.RootPath}), pl.gateMovedOn()}, nil
}

// view is the plan shown.
func (pl *Plan) view(gs []Gate) *apply.Plan {
	pl.Gates = gs
	pl.Refused = framework.Refused(gs)
	out := &apply.Plan{Command: "restore", Title: "restore from " + pl.File, View: &pl.Summary, Keys: pl.TotalKeys,
		Root: pl.inst.Layout.RootPath, Put: "put back", Nothing: "nothing to write, every key already holds its backed-up state",
		Replan: &apply.Replan{Same: sameAt, Pending: pl.pending}}
	if len(pl.split) > 0 {
		out.SplitState, out.Continues = true, pl.File
	}
	if check := pl.afterRestore(); check != nil {
		out.After = []apply.Check{*check}
	}
	return out
}

// sameAt is apply.Replan's Same: a restore decides each entry of the file
// from the key's current value alone (an op when it does not hold its
// backed-up state), with no context. At a revision the run's own
// revisions prove (the plan's revision plus exactly the run's ops), every
// key the plan kept still holds its backed-up state and every key it wrote
// holds the staged one, which is that state: planning again writes nothing
// (Unsettled 0), with no read.
func sameAt(context.Context, int64) (bool, error) { return true, nil }

// pending is apply.Replan's Pending: the entries of the file whose key
// does not hold its backed-up state now, read at the current revision in
// one pass over the file (not the whole build again: no checksum pass, no
// scan for created keys, one pass whatever the phases).
func (pl *Plan) pending(ctx context.Context) (int64, error) {
	rev, err := pl.inst.Revision(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	err = pl.scanFile(ctx, rev, []int{anyPhase}, spanned{}, func(_ apply.Entry, _ instance.KV, op *apply.Op, _ derived) error {
		if op != nil {
			n++
		}
		return nil
	})
	return n, err
}

// anyPhase is scanFile's phase for every entry of the file.
const anyPhase = -1

// header is the restore's own backup: its keys come back in the reverse
// order of this restore's phases, with the same check after.
func (pl *Plan) header() apply.Header {
	layout := pl.inst.Layout
	var order [][]int
	for ph := pl.phases - 1; ph >= 0 && pl.phases > 1; ph-- {
		order = append(order, []int{ph})
	}
	return apply.Header{Command: "restore --file " + pl.File + " --run", Endpoints: pl.inst.Endpoints,
		RootPath: layout.RootPath, MetaRoot: layout.MetaRoot(), Revision: pl.Revision, Prefixes: pl.Prefixes,
		RestoreOrder: order, AfterRestore: pl.Backup.AfterRestore}
}

// afterRestore is the check the backup's header names (nil: none).
func (pl *Plan) afterRestore() *apply.Check {
	if pl.Backup.AfterRestore != gates.SplitStateCheck {
		if len(pl.Chain) < 2 {
			return nil
		}
		// A backup that continues another (reset wal's, after an interrupted
		// run): the keys read back, and the rest of the chain is still to
		// restore.
		return &apply.Check{Name: "chain", Run: func(context.Context) (string, error) {
			return fmt.Sprintf("CHAIN, the keys of the backup hold their backed-up state, but this backup continues %s, which holds the keys the interrupted run changed before it: restore next: %s",
				pl.Chain[1], apply.RestoreOrder(pl.Chain[1:])), nil
		}}
	}
	// check reads every position at rev; Proven, the segments' from the
	// scan's tally when it holds them all (census.go).
	check := func(ctx context.Context, rev int64, segments *models.PositionTally) (string, error) {
		var split []string
		var err error
		if segments != nil {
			split, err = gates.SplitPChannelsWith(ctx, pl.inst, rev, segments)
		} else {
			split, err = gates.SplitPChannels(ctx, pl.inst, rev)
		}
		if err != nil || len(split) == 0 {
			return "", err
		}
		return pl.splitAfterRestore(ctx, rev, split)
	}
	return &apply.Check{Name: gates.SplitStateCheck, Run: func(ctx context.Context) (string, error) {
		rev, err := pl.inst.Revision(ctx)
		if err != nil {
			return "", err
		}
		return check(ctx, rev, nil)
	}, Proven: func(ctx context.Context, rev int64) (string, error) {
		return check(ctx, rev, pl.segments)
	}}
}

// splitAfterRestore is the split-state check's answer when split (read at
// rev) names pchannels in a split state.
func (pl *Plan) splitAfterRestore(ctx context.Context, rev int64, split []string) (string, error) {
	if len(pl.Chain) > 1 {
		return fmt.Sprintf("SPLIT STATE, the keys of the backup read back at revision %d hold their backed-up state, but %s still have positions in more than one WAL; this backup continues %s: restore next: restore --file %s --run",
			rev, strings.Join(split, ", "), pl.Chain[1], pl.Chain[1]), nil
	}
	advice := splitAdvice(pl.Backup)
	if !pl.Backup.SplitState {
		if a := pl.movedOnAdvice(ctx, rev, split); a != "" {
			advice = a
		}
	}
	return "", fmt.Errorf("the keys of the backup hold their backed-up state, but the instance is in a split state on %s (positions in more than one WAL): %s",
		strings.Join(split, ", "), advice)
}

func build(ctx context.Context, inst *instance.Instance, p *Params, rev int64) (_ *Plan, err error) {
	// The file is opened once: checked whole here, its entries read again
	// from the same open file by the scan (a file renamed over it meanwhile
	// is not read); the kit closes it after the scan.
	br, err := apply.OpenBackup(p.File)
	if errors.Is(err, fs.ErrNotExist) {
		// A flag naming no file: a usage error (and, recorded in a plan, a
		// flag that does not fit: apply --file refuses it).
		return nil, framework.Usagef("restore: no file %s: --file names no backup", p.File)
	}
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	defer func() {
		if err != nil {
			br.Close()
		}
	}()
	br.AllowNoChecksum = p.NoChecksum
	header := br.Header
	previous := newPreviousWALs(header)
	scope, err := writerScope(p.File, header, inst.Layout)
	if err != nil {
		return nil, err
	}
	prefixes, legacy, err := allowedPrefixes(p.File, header, scope)
	if err != nil {
		return nil, err
	}
	outside := func(e apply.Entry, prefixes []string) error {
		for _, pre := range prefixes {
			if strings.HasPrefix(e.Key, pre) {
				return nil
			}
		}
		return fmt.Errorf("backup %s line %d: key %s is outside the prefixes the backed-up command writes (%s): the file was changed; nothing was restored",
			p.File, e.Line, framework.EscapeText(e.Key), framework.EscapeText(strings.Join(prefixes, ", ")))
	}
	pl := &Plan{inst: inst, params: *p, file: br, groups: map[int]int{}, phases: 1}
	if len(header.RestoreOrder) <= maxRestoreGroups {
		for i, group := range header.RestoreOrder {
			for _, ph := range group {
				pl.groups[ph] = i
			}
			pl.phases = len(header.RestoreOrder) + 1
		}
	}
	// The whole file is checked before anything is planned from it: a
	// changed byte or a key the backed-up command never writes refuses it.
	// Where each phase's entries lie is noted on the way (runs).
	var legacyErr error
	// The check needs the keys, and the values of the consume checkpoints
	// (previousWALs): the scan decodes the rest.
	br.Values = previous.wants
	defer func() { br.Values = nil }()
	for {
		from := br.Offset()
		e, ok, err := br.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		kind := previous.add(e)
		if legacyErr == nil && legacy != nil {
			legacyErr = outside(e, legacy)
		}
		if err := outside(e, prefixes); err != nil {
			return nil, err
		}
		pl.runs.add(pl.phaseOf(e), int(kind), e.Key, from, br.Offset(), e.Line)
	}
	if legacy != nil && !br.Checksummed {
		// Without a checksum nothing vouches for a key: only what the
		// commands that wrote such backups write is put back.
		if legacyErr != nil {
			return nil, legacyErr
		}
		prefixes = legacy
	}
	if len(header.RestoreOrder) > maxRestoreGroups {
		// The file's entries are read once per group: an edited order of a
		// million groups read them a million times.
		return nil, fmt.Errorf("backup %s: its header's restore_order has %d groups, more than the %d a write command records: the header was changed; nothing was restored",
			p.File, len(header.RestoreOrder), maxRestoreGroups)
	}
	pl.Command, pl.File, pl.Backup, pl.Revision = "restore", p.File, header, rev
	pl.Examples, pl.Warnings, pl.Prefixes, pl.Chain = []Example{}, []string{}, prefixes, []string{}
	pl.Checksum = "sha256"
	if !br.Checksummed {
		pl.Checksum = "none"
		pl.Warnings = append(pl.Warnings, "the backup has no checksum (written before heron checksummed backups): --no-checksum restores it unchecked, so a changed value in it would be written back")
	}
	if header.SplitState {
		pl.OriginalBackup = header.OriginalBackup
		pl.Warnings = append(pl.Warnings, chainWarning(p.File, header, &pl.Summary))
	}
	for _, e := range header.External {
		pl.Warnings = append(pl.Warnings, fmt.Sprintf("the run that made this backup also went to %s, outside etcd: restore puts back the etcd keys only, not those", e))
	}

	if header.Target != "" {
		before := "the WAL the instance used before"
		if n := previous.names(); n != "" {
			before = n + ", the WAL the instance used before (its consume checkpoints in the backup name it)"
		}
		pl.Warnings = append(pl.Warnings, fmt.Sprintf("the backup was taken before %q: after the restore, set mq.type in milvus.yaml back to %s", header.Command, before))
	}
	return pl, nil
}

// scan plans every key of the file into the summary and hands the ops, in
// the order the header names, to sink (nil: the dry run).
func (pl *Plan) scan(ctx context.Context, read func(n int), sink func(apply.Op) error) error {
	s := &pl.Summary
	s.Entries, s.Puts, s.Deletes, s.Unchanged, s.Examples = 0, 0, 0, 0, []Example{}
	s.MovedOn = MovedOn{Checked: pl.written != nil, Changed: []string{}, Deleted: []string{}, Created: []string{}}
	created := maps.Clone(pl.created)
	var sp spanned
	var outside func(stop bool) ([]string, error)
	if pl.beside {
		// The keys created since: those the spans read, and beside the
		// scan those under the prefixes outside the file's runs.
		sp.created = func(keys []string) {
			for _, k := range keys {
				created[k] = true
			}
		}
		outside = pl.createdOutsideRuns(ctx)
	}
	segments := pl.tallySegments(sink != nil, &sp)
	// The judge stage tallies the entry and derives what the backed-up
	// command wrote at a key that does not hold its backed-up state: a
	// million rules run beside the staging of the ops, not before it.
	sp.judge = func(e apply.Entry, cur instance.KV, op *apply.Op) derived {
		segments.entry(e, cur)
		if op == nil || pl.written == nil {
			return derived{}
		}
		w, err := pl.written(e)
		return derived{op: w, err: err, checked: true}
	}
	err := pl.stream(ctx, pl.Revision, sp, func(e apply.Entry, cur instance.KV, op *apply.Op, w derived) error {
		s.Entries++
		read(1)
		delete(created, e.Key)
		if op != nil {
			if err := pl.movedOn(e, cur, w); err != nil {
				return err
			}
		}
		if op == nil {
			s.Unchanged++
			return nil
		}
		action := "put back"
		if op.Delete {
			s.Deletes++
			action = "delete (absent in the backup)"
		} else {
			s.Puts++
			if op.ModRevision == 0 {
				action = "create (deleted since)"
			}
		}
		if len(s.Examples) < maxExamples {
			s.Examples = append(s.Examples, Example{Key: e.Key, Action: action})
		}
		if sink == nil {
			return nil
		}
		return sink(*op)
	})
	s.TotalKeys = s.Puts + s.Deletes
	if outside != nil {
		keys, oerr := outside(err != nil)
		if err == nil {
			err = oerr
		}
		for _, k := range keys {
			created[k] = true
		}
	}
	if err == nil {
		err = segments.complete(ctx)
	}
	if err == nil && s.MovedOn.Checked {
		for _, k := range slices.Sorted(maps.Keys(created)) {
			s.MovedOn.add(&s.MovedOn.Created, k)
		}
	}
	// A run that finds a split state rolls it back: its backup holds it.
	// Not when keys were created since: they stay, and so does the split
	// (the moved-on gate and the check after say so).
	if err == nil && sink != nil && s.TotalKeys > 0 && len(s.MovedOn.Created) == 0 {
		pl.split, err = pl.splitBefore(ctx, segments)
		if len(pl.split) > 0 {
			pl.Warnings = append(pl.Warnings, fmt.Sprintf("the instance is in a split state on %s (positions in more than one WAL, as an interrupted run leaves them): "+
				"this restore's backup holds that split state, and continues %s (restoring the backup puts the split state back; restoring %s next rolls it back again)",
				strings.Join(pl.split, ", "), pl.File, pl.File))
		}
	}
	return err
}

// movedOn compares a key that does not hold its backed-up state with what
// the backed-up command wrote there. A backup whose header names a rule
// holds only keys that rule writes (its run wrote each with it): an entry
// the rule does not write (a key the command keeps, or creates never) was
// added to the file, and refuses it; only a backup of another heron, whose
// rule may have decided otherwise, is restored anyway with --force-moved-on.
//
// Whatever the rule, a key that does not hold its backed-up state but has
// not changed since before the backed-up plan read it (its mod revision at
// most the header's revision, in this etcd's history) was not written by
// that command, nor by anyone since: its entry is not what the plan read
// (an entry of a file without a rule may carry any "new" value, the
// current one too), and refuses the file.
func (pl *Plan) movedOn(e apply.Entry, cur instance.KV, wrote derived) error {
	m := &pl.MovedOn
	if !wrote.checked {
		return nil
	}
	w, err := wrote.op, wrote.err
	if err != nil && pl.Backup.Rule != "" {
		if pl.Backup.Heron == apply.HeronBuild() || !pl.params.ForceMovedOn {
			return fmt.Errorf("backup %s line %d: key %s is not one %q writes (its rule %s does not write this value there): the file was changed; nothing was restored%s",
				pl.File, e.Line, framework.EscapeText(e.Key), pl.Backup.Command, pl.Backup.Rule, otherHeron(pl.Backup))
		}
	}
	if h := pl.Backup; pl.Revision >= h.Revision && cur.ModRevision > 0 && cur.ModRevision <= h.Revision {
		return fmt.Errorf("backup %s line %d: key %s does not hold its backed-up state, yet it has not changed since revision %d, before %q read it at revision %d: that command never wrote it; the file was changed; nothing was restored",
			pl.File, e.Line, framework.EscapeText(e.Key), cur.ModRevision, h.Command, h.Revision)
	}
	if err != nil {
		m.Unknown++
		return nil
	}
	exists := cur.ModRevision != 0
	switch {
	case w.Delete && exists:
		m.add(&m.Created, e.Key)
	case !w.Delete && !exists:
		m.add(&m.Deleted, e.Key)
	case !w.Delete && !bytes.Equal(cur.Value, w.Value):
		m.add(&m.Changed, e.Key)
	}
	return nil
}

// otherHeron is what a refusal of an entry adds for a backup of another
// heron (whose rule may have decided that key otherwise).
func otherHeron(h apply.Header) string {
	if h.Heron == apply.HeronBuild() {
		return ""
	}
	heron := h.Heron
	if heron == "" {
		heron = "a heron that did not record its version"
	}
	return fmt.Sprintf(" (or the backup of %s decided that key otherwise: --force-moved-on restores it anyway)", heron)
}

// readCreated reads the keys created under the backup's prefixes since the
// revision its plan was read at (keys only): those not in the file were
// created by someone else after the backed-up write. For a file whose
// runs are disjoint (runs.disjoint) it reads none: the scan finds them
// beside its spans (beside).
func (pl *Plan) readCreated(ctx context.Context) error {
	pl.created = map[string]bool{}
	written, err := apply.Derive(pl.Backup)
	if err != nil || pl.Backup.Revision == 0 {
		return nil // not checked: the plan says so
	}
	pl.written = written
	if pl.beside = pl.runs.disjoint(); pl.beside {
		return nil // read beside the scan
	}
	for _, prefix := range pl.Prefixes {
		_, err := pl.inst.ScanKeys(ctx, prefix, pl.Revision, func(page []instance.KV) error {
			for _, kv := range page {
				if kv.CreateRevision > pl.Backup.Revision {
					pl.created[kv.Key] = true
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

// createdOutsideRuns starts reading, at the plan's revision and without
// values, the keys under the prefixes outside the key ranges of the file's
// runs (those inside, the scan's spans read), and returns the wait for the
// keys created since the backup among them (stop: the scan failed, the
// reading stops).
func (pl *Plan) createdOutsideRuns(ctx context.Context) func(stop bool) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	var keys []string
	done := make(chan error, 1)
	go func() {
		ranges := pl.runs.ranges()
		for _, prefix := range pl.Prefixes {
			for _, gap := range outsideRanges(prefix, instance.PrefixEnd(prefix), ranges) {
				err := pl.inst.RangeKeys(ctx, gap[0], gap[1], pl.Revision, func(page []instance.KV) error {
					for _, kv := range page {
						if kv.CreateRevision > pl.Backup.Revision {
							keys = append(keys, kv.Key)
						}
					}
					return nil
				})
				if err != nil {
					done <- err
					return
				}
			}
		}
		done <- nil
	}()
	return func(stop bool) ([]string, error) {
		if stop {
			cancel()
		}
		defer cancel()
		err := <-done
		return keys, err
	}
}

// gateMovedOn is the gate on what happened since the backed-up write.
func (pl *Plan) gateMovedOn() Gate {
	m := &pl.MovedOn
	g := Gate{Name: "instance did not move on", OK: true, Count: m.Total}
	switch {
	case !m.Checked:
		g.Detail = "not checked: the backup does not record what its command wrote (a backup of an older heron, or a rule this heron does not know)"
	case m.Total == 0 && m.Unknown > 0:
		g.Detail = fmt.Sprintf("every key holds what %q wrote or its backed-up state (%d entries without their written value not checked)", pl.Backup.Command, m.Unknown)
	case m.Total == 0:
		g.Detail = fmt.Sprintf("every key holds what %q wrote or its backed-up state, and no key was created since under %s", pl.Backup.Command, strings.Join(pl.Prefixes, ", "))
	default:
		for _, kind := range []struct {
			what string
			keys []string
		}{{"changed since", m.Changed}, {"deleted since", m.Deleted}, {"created since", m.Created}} {
			for _, k := range kind.keys {
				g.Keys = append(g.Keys, kind.what+": "+k)
			}
		}
		g.OK = false
		first := ""
		if len(m.Created) > 0 {
			first = fmt.Sprintf("restoring leaves a split state: the %d keys created since stay, naming the WAL they were written for. ", len(m.Created))
		}
		g.Detail = fmt.Sprintf("%s%d keys moved on since %q wrote them (%d changed, %d deleted, %d created): Milvus ran on the instance since. "+
			"Restoring rolls back what it did since: keys deleted since (segments garbage-collected, whose data files are gone) are created again, keys changed since (checkpoints that advanced) go back to their backed-up values, "+
			"and keys created since are left as they are, still naming the WAL they were written for (a split state after the restore); "+
			"not restoring keeps the instance as it is now, on what %q wrote. --force-moved-on restores anyway",
			first, m.Total, pl.Backup.Command, len(m.Changed), len(m.Deleted), len(m.Created), pl.Backup.Command)
		if pl.params.ForceMovedOn {
			g.OK, g.Overridden = true, true
			g.Detail = "--force-moved-on: " + g.Detail
			pl.Warnings = append(pl.Warnings, fmt.Sprintf("--force-moved-on: the restore rolls back what Milvus did since %q on %d keys: keys deleted since are created again, changed ones go back, created ones stay", pl.Backup.Command, m.Total))
		} else {
			g.Fix = []framework.Step{{Order: framework.StepRerun, Text: "keep the instance as it is (do not restore), or re-run with --force-moved-on to roll back what Milvus did since"}}
		}
	}
	return g
}

// stream reads the backup file once per restore phase (the groups of the
// header's RestoreOrder, then the phases it does not name), reads the
// current values of its keys at rev by spans (span.go), and calls fn with
// each entry and its op (nil: the key already holds its backed-up state).
func (pl *Plan) stream(ctx context.Context, rev int64, sp spanned, fn func(e apply.Entry, cur instance.KV, op *apply.Op, w derived) error) error {
	phases := make([]int, pl.phases)
	for i := range phases {
		phases[i] = i
	}
	return pl.scanFile(ctx, rev, phases, sp, fn)
}

// spanned is what a scan learns of the keys its spans read besides the
// file's entries (the runs are disjoint: they are keys the file does not
// hold), each called once per chunk, before its entries; and the pure work
// on each entry (judge), which runs in the pipeline's judge stage, as
// others does (the two may share state; created and the scan's fn run in
// its decide stage).
type spanned struct {
	// created: the keys created since the backup (nil: not looked for).
	created func(keys []string)
	// others: every other key, with its value (nil: not kept).
	others func(kvs []instance.KV)
	// judge: what fn receives as w for an entry and its decided op (nil:
	// the zero derived).
	judge func(e apply.Entry, cur instance.KV, op *apply.Op) derived
}

// scanFile reads the entries of phases, in that order, with their keys'
// values at rev, and calls fn with each, and sp with what the spans read.
func (pl *Plan) scanFile(ctx context.Context, rev int64, phases []int, sp spanned, fn func(e apply.Entry, cur instance.KV, op *apply.Op, w derived) error) error {
	// The keys a span leaves are read in transactions of gets: within
	// etcd's default --max-txn-ops whatever --max-txn-ops says (the writes
	// check it).
	r := &reader{inst: pl.inst, rev: rev, gets: min(max(pl.params.MaxTxnOps, 1), apply.DefaultMaxTxnOps)}
	if sp.created != nil {
		r.since, r.under = pl.Backup.Revision, (apply.Header{Prefixes: pl.Prefixes}).Allows
	}
	r.others = sp.others != nil
	read := func(send func(chunk) error) error {
		for _, phase := range phases {
			if err := pl.readPhase(phase, send); err != nil {
				return err
			}
		}
		return nil
	}
	judge := func(f *fetched) {
		if sp.others != nil {
			sp.others(f.others)
		}
		f.ops = make([]*apply.Op, len(f.entries))
		if sp.judge != nil {
			f.wrote = make([]derived, len(f.entries))
		}
		for i, e := range f.entries {
			f.ops[i] = decide(e, f.cur[i], f.phase)
			if sp.judge != nil {
				f.wrote[i] = sp.judge(e, f.cur[i], f.ops[i])
			}
		}
	}
	return r.pipeline(ctx, read, judge, func(f fetched) error {
		if sp.created != nil {
			sp.created(f.created)
		}
		for i, e := range f.entries {
			var w derived
			if f.wrote != nil {
				w = f.wrote[i]
			}
			if err := fn(e, f.cur[i], f.ops[i], w); err != nil {
				return err
			}
		}
		return nil
	})
}

// decide is the op that puts e's key back as backed up, from its value c
// now (nil: it holds its backed-up state).
func decide(e apply.Entry, c instance.KV, phase int) *apply.Op {
	exists := c.ModRevision != 0
	switch {
	case e.Absent && exists:
		return &apply.Op{Key: e.Key, ModRevision: c.ModRevision, Delete: true, Original: c.Value, Phase: phase}
	case e.Absent:
		return nil
	case exists && bytes.Equal(c.Value, e.Value):
		return nil
	}
	return &apply.Op{Key: e.Key, ModRevision: c.ModRevision, Value: e.Value, Original: c.Value, Phase: phase}
}

// readPhase reads the file's entries of phase and sends them in chunks:
// the runs of phase from the file held open since its check (anyPhase:
// every entry, from the file opened again: the verify's, after the scan).
func (pl *Plan) readPhase(phase int, send func(chunk) error) error {
	c := chunk{phase: phase}
	// flush sends the chunk; the next one's span starts just after its
	// last key (the spans of a run cover its keys' range whole).
	flush := func() error {
		if len(c.entries) == 0 {
			return nil
		}
		if err := send(c); err != nil {
			return err
		}
		c = chunk{phase: phase, from: c.entries[len(c.entries)-1].Key + "\x00"}
		return nil
	}
	each := func(br *apply.BackupReader) error {
		for {
			e, ok, err := br.Next()
			if err != nil || !ok {
				return err
			}
			if !(apply.Header{Prefixes: pl.Prefixes}).Allows(e.Key) {
				return fmt.Errorf("backup %s line %d: key %s is outside the prefixes the backed-up command writes (%s): the file changed since it was checked",
					pl.File, e.Line, framework.EscapeText(e.Key), framework.EscapeText(strings.Join(pl.Prefixes, ", ")))
			}
			if phase != anyPhase && pl.phaseOf(e) != phase {
				continue
			}
			c.add(e)
			if c.full() {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if phase == anyPhase {
		br, err := apply.OpenBackup(pl.File)
		if err != nil {
			return err
		}
		defer br.Close()
		br.AllowNoChecksum = pl.params.NoChecksum
		if err := each(br); err != nil {
			return err
		}
		return flush()
	}
	for _, r := range pl.runs.of(phase) {
		part, err := pl.file.Part(r.from, r.to, r.line)
		if err != nil {
			return err
		}
		if err := each(part); err != nil {
			return err
		}
		// A chunk holds one run's entries: its span lies in the run's range.
		if err := flush(); err != nil {
			return err
		}
		c.from = ""
	}
	return nil
}

// Close closes the backup file (the kit does, after the scan).
func (pl *Plan) Close() error { return pl.file.Close() }

// phaseOf is the restore phase of an entry.
func (pl *Plan) phaseOf(e apply.Entry) int {
	if g, ok := pl.groups[e.Phase]; ok {
		return g
	}
	return pl.phases - 1
}

// splitAdvice says where the values of a split state come from.
func splitAdvice(h apply.Header) string {
	switch {
	case h.SplitState && h.Continues != "":
		return "the backup was taken of a split state: restore next the backup it continues, " + h.Continues
	case h.SplitState:
		return "the backup was taken of a split state: restore next the backup of the interrupted run before it"
	}
	return "another write changed the instance since the backup; run reset checkpoint to complete it, or restore its backup"
}

// chainWarning is the plan's warning for a backup taken of a split state,
// with the order to restore in (set into s.Chain).
func chainWarning(file string, h apply.Header, s *Summary) string {
	if h.Continues == "" {
		return "the backup was taken of a split state (a run after an interrupted one): restoring it alone leaves the instance split; no earlier backup was found when it was written: restore the backup of the interrupted run after it"
	}
	chain, missing := apply.BackupChain(h.Continues)
	s.Chain = append([]string{file}, chain...)
	msg := fmt.Sprintf("the backup was taken of a split state and continues %s: restoring it alone leaves the instance split; restore them newest first: %s", h.Continues, apply.RestoreOrder(s.Chain))
	if h.OriginalBackup != "" {
		msg += "; the backup of the original values is " + h.OriginalBackup
	}
	if missing != nil {
		msg += fmt.Sprintf(" (the chain stops there: %v)", missing)
	}
	return msg
}

// writerScope is what the command that wrote the backup may write on this
// instance (gates.WriteScope: from the layout, not from the file), after
// checking the header names a command heron knows with the rule that
// command's files name (a header stripped of its rule would hide what the
// command wrote, which the moved-on gate compares the instance with).
func writerScope(file string, h apply.Header, l models.Layout) ([]string, error) {
	writer := gates.Writer(h.Planner, h.Command)
	// Under the header's root path: a backup of another instance is
	// refused by its gate, which names both.
	l.RootPath = h.RootPath
	scope, ok := gates.WriteScope(l, writer)
	if !ok {
		return nil, fmt.Errorf("backup %s: its header names command %q, which is not a write command this heron knows: nothing was restored", file, h.Command)
	}
	want := apply.CommandRule(writer)
	switch {
	case writer == "apply" && (h.Rule == "" || apply.KnownRule(h.Rule)):
		// An apply --file backup of an older heron keeps its plan's rule.
	case h.Rule != want:
		return nil, fmt.Errorf("backup %s: its header names rule %q, but %s backups name %q: the header was changed; nothing was restored", file, h.Rule, writer, want)
	}
	return scope, nil
}

// allowedPrefixes are the prefixes the keys of a backup must be under: its
// header's, each inside scope (what its command writes on this instance),
// else scope itself. A header without prefixes also gets legacy ones, which
// bind a file without a checksum (written before heron recorded prefixes):
// those of the only commands that wrote backups then (reset checkpoint and
// restore), the meta root and {root}/config/. Every prefix is a folder; the
// header's may lie outside the root path (reset wal backs up woodpecker's
// top-level woodpecker/ keys), never outside scope.
func allowedPrefixes(file string, h apply.Header, scope []string) (prefixes, legacy []string, err error) {
	if h.RootPath == "" {
		return nil, nil, fmt.Errorf("backup %s: its header names no root path", file)
	}
	prefixes = h.Prefixes
	if len(prefixes) > maxRestoreGroups || len(slices.Compact(slices.Sorted(slices.Values(prefixes)))) != len(prefixes) {
		// Each prefix is scanned whole (keys created since): an edited
		// header repeating the meta root thousands of times scanned it
		// thousands of times.
		return nil, nil, fmt.Errorf("backup %s: its header names %d prefixes, some twice or more than the %d a write command records: the header was changed; nothing was restored",
			file, len(prefixes), maxRestoreGroups)
	}
	if len(prefixes) == 0 {
		prefixes = scope
		legacy = []string{h.RootPath + "/config/"}
		if h.MetaRoot != "" {
			legacy = []string{h.MetaRoot, h.RootPath + "/config/"}
		}
	}
	for _, p := range append(append([]string{}, prefixes...), legacy...) {
		if !strings.HasSuffix(p, "/") || strings.HasPrefix(p, "/") {
			return nil, nil, fmt.Errorf("backup %s: prefix %q of its header is not a folder", file, p)
		}
		if !(apply.Header{Prefixes: scope}).Allows(p) {
			return nil, nil, fmt.Errorf("backup %s: prefix %q of its header is outside what %s writes on this instance (%s): the header was changed; nothing was restored",
				file, p, gates.Writer(h.Planner, h.Command), framework.EscapeText(strings.Join(scope, ", ")))
		}
	}
	return prefixes, legacy, nil
}

// JSON is the plan document.
func (s *Summary) JSON() any { return s }

// Table writes the plan for people.
func (s *Summary) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "restore from %s\n", framework.EscapeText(s.File))
	fmt.Fprintf(tw, "backup of %q at revision %d, written %s by %q\n", s.Backup.RootPath, s.Backup.Revision, s.Backup.Created.Format(time.RFC3339), s.Backup.Command)
	check := "checksum (sha256) ok"
	if s.Checksum != "sha256" {
		check = "NO checksum (--no-checksum)"
	}
	fmt.Fprintf(tw, "file checked: %s, every key under %s\n", check, framework.EscapeText(strings.Join(s.Prefixes, ", ")))
	fmt.Fprintf(tw, "current values read at revision %d\n\n", s.Revision)
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := framework.WriteGates(w, s.Gates); err != nil {
		return err
	}
	fmt.Fprintf(tw, "\nentries: %d; to put back: %d; to delete: %d; already as backed up: %d\n", s.Entries, s.Puts, s.Deletes, s.Unchanged)
	for _, e := range s.Examples {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Action, framework.EscapeText(e.Key))
	}
	if more := s.TotalKeys - int64(len(s.Examples)); more > 0 {
		fmt.Fprintf(tw, "  ... and %d more\n", more)
	}
	for _, n := range s.Warnings {
		fmt.Fprintf(tw, "warning: %s\n", framework.EscapeText(n))
	}
	return tw.Flush()
}

// Lines writes the plan as key=value records.
func (s *Summary) Lines(w io.Writer) error {
	if err := framework.WriteLine(w, "plan", "restore", "file", s.File, "revision", s.Revision, "entries", s.Entries, "puts", s.Puts,
		"deletes", s.Deletes, "unchanged", s.Unchanged, "refused", s.Refused, "checksum", s.Checksum); err != nil {
		return err
	}
	if err := framework.GateLines(w, s.Gates); err != nil {
		return err
	}
	for _, e := range s.Examples {
		if err := framework.WriteLine(w, "example", e.Key, "action", e.Action); err != nil {
			return err
		}
	}
	return nil
}
