// Package restore is `restore --file BACKUP [--run]`: it puts every key of a
// heron backup file back as it was before the write that made the backup
// (the value, or the key's absence), guarded by the mod revisions read at one
// revision, through framework/apply (so a restore backs up what it
// overwrites, too). The file is streamed, never loaded whole.
package restore

import (
	"bytes"
	"context"
	"fmt"
	"io"
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
	framework.WriteFlags
	framework.Output
}

// Validate checks the flags.
func (p *Params) Validate() error {
	if strings.TrimSpace(p.File) == "" {
		return framework.Usagef("restore: --file is empty")
	}
	return nil
}

// Commands are the restore command on a connected instance.
func Commands(inst *instance.Instance) []*framework.Command { return commands(inst, nil) }

// commands are the commands with tune adjusting every run's apply options
// (the tests' constructor).
func commands(inst *instance.Instance, tune func(*apply.Options)) []*framework.Command {
	return []*framework.Command{
		framework.Write(inst, func(ctx context.Context, inst *instance.Instance, p *Params) (*Plan, error) {
			pl, err := Build(ctx, inst, p)
			if pl != nil {
				pl.tune = tune
			}
			return pl, err
		}),
	}
}

// Summary is the restore plan (its JSON shape is documented in README.md).
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
}

// Gate is one safety check.
type Gate = framework.Gate

// Example is one key the restore changes.
type Example struct {
	Key    string `json:"key"`
	Action string `json:"action"`
}

// Plan is a restore plan.
type Plan struct {
	Summary
	inst   *instance.Instance
	params Params
	tune   func(*apply.Options)
}

const maxExamples = 5

// Build reads the backup file's header and the gates at one revision. The
// keys of the file are planned by Preview (the dry run) and Apply.
func Build(ctx context.Context, inst *instance.Instance, p *Params) (*Plan, error) {
	ctx, stop := apply.Watch(ctx)
	defer stop()
	pl, err := build(ctx, inst, p)
	return pl, apply.Cause(ctx, err)
}

func build(ctx context.Context, inst *instance.Instance, p *Params) (*Plan, error) {
	header, err := apply.ReadBackupHeader(p.File)
	if err != nil {
		return nil, err
	}
	prefixes, legacy, err := allowedPrefixes(p.File, header)
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
			p.File, e.Line, e.Key, strings.Join(prefixes, ", "))
	}
	// The whole file is checked before anything is planned from it: a
	// changed byte or a key the backed-up command never writes refuses it.
	var legacyErr error
	info, err := apply.VerifyBackup(p.File, p.NoChecksum, func(e apply.Entry) error {
		apply.Heartbeat(ctx) // reading a large file is progress, not a stall
		if legacyErr == nil && legacy != nil {
			legacyErr = outside(e, legacy)
		}
		return outside(e, prefixes)
	})
	if err != nil {
		return nil, err
	}
	if legacy != nil && !info.Checksummed {
		// Without a checksum nothing vouches for a key: only what the
		// commands that wrote such backups write is put back.
		if legacyErr != nil {
			return nil, legacyErr
		}
		prefixes = legacy
	}
	rev, err := inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	pl := &Plan{inst: inst, params: *p}
	pl.Command, pl.File, pl.Backup, pl.Revision = "restore", p.File, header, rev
	pl.Examples, pl.Warnings, pl.Prefixes, pl.Chain = []Example{}, []string{}, prefixes, []string{}
	pl.Checksum = "sha256"
	if !info.Checksummed {
		pl.Checksum = "none"
		pl.Warnings = append(pl.Warnings, "the backup has no checksum (written before heron checksummed backups): --no-checksum restores it unchecked, so a changed value in it would be written back")
	}
	if header.SplitState {
		pl.OriginalBackup = header.OriginalBackup
		pl.Warnings = append(pl.Warnings, chainWarning(p.File, header, &pl.Summary))
	}

	same := header.RootPath == inst.Layout.RootPath
	g := Gate{Name: "backup of this instance", OK: same,
		Detail: fmt.Sprintf("the backup's root path %q is the instance's", header.RootPath)}
	if !same {
		g.Detail = fmt.Sprintf("the backup was taken of root path %q, this instance is %q", header.RootPath, inst.Layout.RootPath)
	}
	pl.Gates = append(pl.Gates, g)
	alarm, err := gates.NoAlarm(ctx, inst)
	if err != nil {
		return nil, err
	}
	pl.Gates = append(pl.Gates, alarm)
	for _, check := range []func(context.Context, *instance.Instance, int64) (Gate, error){gates.LiveComponents, gates.InFlightBroadcasts} {
		g, err := check(ctx, inst, rev)
		if err != nil {
			return nil, err
		}
		pl.Gates = append(pl.Gates, g)
	}
	for _, g := range pl.Gates {
		pl.Refused = pl.Refused || !g.OK
	}
	if header.Target != "" {
		pl.Warnings = append(pl.Warnings, fmt.Sprintf("the backup was taken before %q: after the restore, set mq.type in milvus.yaml back to the WAL the instance used before", header.Command))
	}
	return pl, nil
}

// Preview plans every key of the file without writing: the dry run. A plan
// refused by its gates is not read further.
func (pl *Plan) Preview(ctx context.Context) error {
	if pl.Refused {
		return nil
	}
	ctx, stop := apply.Watch(ctx)
	defer stop()
	return apply.Cause(ctx, pl.scan(ctx, nil))
}

// scan plans every key of the file into the summary and hands the ops
// (consume checkpoints and mq.type overrides first) to sink (nil: the dry
// run): apply's Source.
func (pl *Plan) scan(ctx context.Context, sink func(apply.Op) error) error {
	s := &pl.Summary
	s.Entries, s.Puts, s.Deletes, s.Unchanged, s.Examples = 0, 0, 0, 0, []Example{}
	err := pl.stream(ctx, pl.Revision, func(e apply.Entry, op *apply.Op) error {
		s.Entries++
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
	return err
}

// first reports the keys a restore writes first: consume
// checkpoints and mq.type overrides, which decide the WAL Milvus opens. An
// interrupted restore then leaves checkpoints on the old WAL beside
// positions still tagged with the reset's target, which the next plan
// reports as a split state.
func (pl *Plan) first(key string) bool {
	for _, rel := range models.MQTypeConfigKeys {
		if key == pl.inst.Layout.Root(rel) {
			return true
		}
	}
	rel, ok := pl.inst.Layout.Rel(key)
	return ok && models.Classify(rel).Kind == models.KindConsumeCheckpoint
}

// stream reads the backup file in two passes (the keys written first, then
// the others), fetches the current values of each chunk of keys at rev, and
// calls fn with each entry and its op (nil: the key already holds its
// backed-up state).
func (pl *Plan) stream(ctx context.Context, rev int64, fn func(e apply.Entry, op *apply.Op) error) error {
	for phase := 0; phase < 2; phase++ {
		br, err := apply.OpenBackup(pl.File)
		if err != nil {
			return err
		}
		br.AllowNoChecksum = pl.params.NoChecksum
		err = pl.streamPhase(ctx, br, rev, phase, fn)
		br.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (pl *Plan) streamPhase(ctx context.Context, br *apply.BackupReader, rev int64, phase int, fn func(e apply.Entry, op *apply.Op) error) error {
	// A chunk is read in one transaction of gets: within etcd's default
	// --max-txn-ops whatever --max-txn-ops says (the writes check it).
	n := min(max(pl.params.MaxTxnOps, 1), apply.DefaultMaxTxnOps)
	chunk := make([]apply.Entry, 0, n)
	keys := make([]string, 0, n)
	root := pl.inst.Layout.RootPath + "/"
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		keys = keys[:0]
		for _, e := range chunk {
			keys = append(keys, e.Key)
		}
		cur, err := pl.inst.GetMany(ctx, keys, rev)
		if err != nil {
			return err
		}
		apply.Heartbeat(ctx)
		for i, e := range chunk {
			c := cur[i]
			exists := c.ModRevision != 0
			var op *apply.Op
			switch {
			case e.Absent && exists:
				op = &apply.Op{Key: e.Key, ModRevision: c.ModRevision, Delete: true, Original: c.Value, Phase: phase}
			case e.Absent:
			case exists && bytes.Equal(c.Value, e.Value):
			default:
				op = &apply.Op{Key: e.Key, ModRevision: c.ModRevision, Value: e.Value, Original: c.Value, Phase: phase}
			}
			if err := fn(e, op); err != nil {
				return err
			}
		}
		chunk = chunk[:0]
		return nil
	}
	for {
		e, ok, err := br.Next()
		if err != nil {
			return err
		}
		if !ok {
			return flush()
		}
		if !strings.HasPrefix(e.Key, root) {
			return fmt.Errorf("backup %s line %d: key %s is not under this instance's root path %s", pl.File, e.Line, e.Key, root)
		}
		if !(apply.Header{Prefixes: pl.Prefixes}).Allows(e.Key) {
			return fmt.Errorf("backup %s line %d: key %s is outside the prefixes the backed-up command writes (%s): the file changed since it was checked",
				pl.File, e.Line, e.Key, strings.Join(pl.Prefixes, ", "))
		}
		if pl.first(e.Key) != (phase == 0) {
			continue
		}
		chunk = append(chunk, e)
		if len(chunk) == cap(chunk) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// Refusal is nil when every gate passed.
func (pl *Plan) Refusal() error { return framework.Refusal("restore", pl.Gates) }

// Apply runs the restore through apply.Run (which backs up what the restore
// overwrites), then reads every key of the file back.
func (pl *Plan) Apply(ctx context.Context, w framework.WriteIO) (framework.Result, error) {
	layout := pl.inst.Layout
	res := &RunResult{Plan: &pl.Summary, SplitPChannels: []string{}}
	ar, err := apply.Run(ctx, pl.inst, apply.Job{
		Command: "restore",
		Name:    "restore",
		Header: apply.Header{Command: "restore --file " + pl.File + " --run", Endpoints: pl.inst.Endpoints,
			RootPath: layout.RootPath, MetaRoot: layout.MetaRoot(), Revision: pl.Revision, Prefixes: pl.Prefixes},
		Flags:  pl.params.WriteFlags,
		Ops:    pl.scan,
		Check:  pl.Refusal,
		Plan:   &pl.Summary,
		Verify: func(ctx context.Context) error { return pl.verify(ctx, res) },
		Tune:   pl.tune,
	}, w)
	res.Applied = ar
	return res, err
}

// verify reads every key of the file back at the current revision.
func (pl *Plan) verify(ctx context.Context, res *RunResult) error {
	rev, err := pl.inst.Revision(ctx)
	if err != nil {
		return err
	}
	res.VerifyRevision = rev
	err = pl.stream(ctx, rev, func(e apply.Entry, op *apply.Op) error {
		res.Verified++
		if op != nil {
			res.Mismatches++
			if len(res.MismatchKeys) < 5 {
				res.MismatchKeys = append(res.MismatchKeys, e.Key)
			}
		}
		return nil
	})
	if err == nil && res.Mismatches > 0 {
		err = fmt.Errorf("%d keys do not hold their backed-up state, first: %s", res.Mismatches, strings.Join(res.MismatchKeys, ", "))
	}
	if err != nil {
		return err
	}
	if res.SplitPChannels, err = splitPChannels(ctx, pl.inst, rev); err != nil {
		return err
	}
	if len(res.SplitPChannels) > 0 {
		if len(pl.Chain) > 1 {
			res.RestoreNext = pl.Chain[1]
			return nil
		}
		return fmt.Errorf("the keys of the backup hold their backed-up state, but the instance is in a split state on %s (positions in more than one WAL): %s",
			strings.Join(res.SplitPChannels, ", "), splitAdvice(pl.Backup))
	}
	return nil
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

// allowedPrefixes are the prefixes the keys of a backup must be under: its
// header's, else its root path. A header without prefixes also gets legacy
// ones, which bind a file without a checksum (written before heron recorded
// prefixes): those of the only commands that wrote backups then (reset
// checkpoint and restore), the meta root and {root}/config/. Every prefix
// is a folder under the root path.
func allowedPrefixes(file string, h apply.Header) (prefixes, legacy []string, err error) {
	if h.RootPath == "" {
		return nil, nil, fmt.Errorf("backup %s: its header names no root path", file)
	}
	prefixes = h.Prefixes
	if len(prefixes) == 0 {
		prefixes = []string{h.RootPath + "/"}
		legacy = []string{h.RootPath + "/config/"}
		if h.MetaRoot != "" {
			legacy = []string{h.MetaRoot, h.RootPath + "/config/"}
		}
	}
	for _, p := range append(append([]string{}, prefixes...), legacy...) {
		if !strings.HasSuffix(p, "/") || !strings.HasPrefix(p, h.RootPath+"/") {
			return nil, nil, fmt.Errorf("backup %s: prefix %q of its header is not a folder under its root path %q", file, p, h.RootPath)
		}
	}
	return prefixes, legacy, nil
}

// splitPChannels reads every position at rev (consume checkpoints first)
// through models' split rule: the pchannels whose positions name more than
// one WAL. Memory: one small map per pchannel.
func splitPChannels(ctx context.Context, inst *instance.Instance, rev int64) ([]string, error) {
	census := models.NewWALCensus(nil)
	prefixes := []string{models.WALPrefix, models.CollectionInfoPrefix, models.LegacyCollectionPrefix, models.ChannelCPPrefix, models.SegmentPrefix}
	_, err := inst.Walk(ctx, rev, prefixes, func(e instance.Entry) error {
		apply.Heartbeat(ctx)
		switch e.Kind {
		case models.KindConsumeCheckpoint:
			if cp, err := models.DecodeWALCheckpoint(e.Value); err == nil && cp.HasMessageID {
				census.AddCheckpoint(e.PChannel, cp.WAL)
			}
		case models.KindCollectionInfo, models.KindLegacyCollection:
			if models.IsTombstone(e.Value) {
				return nil
			}
			if c, err := models.DecodeCollectionInfo(e.Value); err == nil {
				census.AddCollection(c)
			}
		case models.KindChannelCP:
			if pos, err := models.DecodePosition(e.Value); err == nil && !models.IsDroppedChannelCP(pos) {
				census.Add(e.PChannel, pos.GetWALName(), pos.GetMsgID())
			}
		case models.KindSegment:
			if v, err := models.ViewSegment(e.Value); err == nil {
				census.AddSegment(v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return census.Split(), nil
}

// RunResult is what `restore --run` prints.
type RunResult struct {
	Plan    *Summary      `json:"plan"`
	Applied *apply.Result `json:"applied"`
	// Verified keys were read back at VerifyRevision; Mismatches do not hold
	// their backed-up state.
	VerifyRevision int64    `json:"verify_revision"`
	Verified       int64    `json:"verified"`
	Mismatches     int64    `json:"mismatches"`
	MismatchKeys   []string `json:"mismatch_keys,omitempty"`
	// SplitPChannels are the pchannels left in a split state (read back at
	// VerifyRevision); RestoreNext is the backup to restore next (the one
	// this backup continues), when the chain has one.
	SplitPChannels []string `json:"split_pchannels"`
	RestoreNext    string   `json:"restore_next,omitempty"`
}

// JSON is the plan document.
func (s *Summary) JSON() any { return s }

// Table writes the plan for people.
func (s *Summary) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "restore from %s\n", s.File)
	fmt.Fprintf(tw, "backup of %q at revision %d, written %s by %q\n", s.Backup.RootPath, s.Backup.Revision, s.Backup.Created.Format(time.RFC3339), s.Backup.Command)
	check := "checksum (sha256) ok"
	if s.Checksum != "sha256" {
		check = "NO checksum (--no-checksum)"
	}
	fmt.Fprintf(tw, "file checked: %s, every key under %s\n", check, strings.Join(s.Prefixes, ", "))
	fmt.Fprintf(tw, "current values read at revision %d\n\ngates:\n", s.Revision)
	for _, g := range s.Gates {
		v := "ok"
		if !g.OK {
			v = "REFUSED"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", v, g.Name, g.Detail)
	}
	fmt.Fprintf(tw, "\nentries: %d; to put back: %d; to delete: %d; already as backed up: %d\n", s.Entries, s.Puts, s.Deletes, s.Unchanged)
	for _, e := range s.Examples {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Action, e.Key)
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
	for _, g := range s.Gates {
		if err := framework.WriteLine(w, "gate", g.Name, "ok", g.OK, "detail", g.Detail); err != nil {
			return err
		}
	}
	for _, e := range s.Examples {
		if err := framework.WriteLine(w, "example", e.Key, "action", e.Action); err != nil {
			return err
		}
	}
	return nil
}

// JSON is the run document.
func (r *RunResult) JSON() any { return r }

// Table writes the run for people.
func (r *RunResult) Table(w io.Writer) error {
	if r.Applied == nil {
		fmt.Fprintf(w, "restore from %s: nothing to write, every key already holds its backed-up state\n", r.Plan.File)
	} else {
		a := r.Applied
		fmt.Fprintf(w, "restore from %s: wrote %d of %d keys (%d put back, %d deleted) in %d transactions, %.1fs\nbackup of the overwritten values: %s\n",
			r.Plan.File, a.Written, a.Keys, a.Puts, a.Deletes, a.Txns, a.Seconds, a.Backup)
	}
	if r.VerifyRevision == 0 {
		_, err := fmt.Fprintln(w, "verify: not run (the restore stopped early)")
		return err
	}
	if r.Mismatches == 0 && len(r.SplitPChannels) > 0 {
		next := splitAdvice(r.Plan.Backup)
		if r.RestoreNext != "" {
			next = fmt.Sprintf("this backup continues %s: restore next: restore --file %s --run", r.RestoreNext, r.RestoreNext)
		}
		_, err := fmt.Fprintf(w, "verify: SPLIT STATE, the %d keys of the backup read back at revision %d hold their backed-up state, but %s still have positions in more than one WAL; %s\n",
			r.Verified, r.VerifyRevision, strings.Join(r.SplitPChannels, ", "), next)
		return err
	}
	if r.Mismatches == 0 {
		_, err := fmt.Fprintf(w, "verify: ok, the %d keys of the backup read back at revision %d hold their backed-up state\n", r.Verified, r.VerifyRevision)
		return err
	}
	_, err := fmt.Fprintf(w, "verify: FAILED, %d of %d keys differ: %s\n", r.Mismatches, r.Verified, strings.Join(r.MismatchKeys, ", "))
	return err
}

// Lines writes the run as key=value records.
func (r *RunResult) Lines(w io.Writer) error {
	kv := []any{"run", "restore", "file", r.Plan.File, "verified", r.Verified, "mismatches", r.Mismatches, "split", strings.Join(r.SplitPChannels, ",")}
	if r.RestoreNext != "" {
		kv = append(kv, "restore_next", r.RestoreNext)
	}
	if r.Applied != nil {
		kv = append(kv, "backup", r.Applied.Backup, "written", r.Applied.Written, "txns", r.Applied.Txns)
	}
	return framework.WriteLine(w, kv...)
}
