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
	framework.ParamBase `use:"restore" desc:"put back every key of a heron backup file as it was (a plan unless --run)"`
	File                string `name:"file" required:"true" desc:"the backup file a write command (reset checkpoint, ...) wrote"`
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
	br, err := apply.OpenBackup(p.File)
	if err != nil {
		return nil, err
	}
	header := br.Header
	br.Close()
	rev, err := inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	pl := &Plan{inst: inst, params: *p}
	pl.Command, pl.File, pl.Backup, pl.Revision = "restore", p.File, header, rev
	pl.Examples, pl.Warnings = []Example{}, []string{}

	same := header.RootPath == inst.Layout.RootPath
	g := Gate{Name: "backup of this instance", OK: same,
		Detail: fmt.Sprintf("the backup's root path %q is the instance's", header.RootPath)}
	if !same {
		g.Detail = fmt.Sprintf("the backup was taken of root path %q, this instance is %q", header.RootPath, inst.Layout.RootPath)
	}
	pl.Gates = append(pl.Gates, g)
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
		err = pl.streamPhase(ctx, br, rev, phase, fn)
		br.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (pl *Plan) streamPhase(ctx context.Context, br *apply.BackupReader, rev int64, phase int, fn func(e apply.Entry, op *apply.Op) error) error {
	chunk := make([]apply.Entry, 0, pl.params.MaxTxnOps)
	keys := make([]string, 0, pl.params.MaxTxnOps)
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
	res := &RunResult{Plan: &pl.Summary}
	ar, err := apply.Run(ctx, pl.inst, apply.Job{
		Command: "restore",
		Name:    "restore",
		Header: apply.Header{Command: "restore --file " + pl.File + " --run", Endpoints: pl.inst.Endpoints,
			RootPath: layout.RootPath, MetaRoot: layout.MetaRoot(), Revision: pl.Revision},
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
	return err
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
}

// JSON is the plan document.
func (s *Summary) JSON() any { return s }

// Table writes the plan for people.
func (s *Summary) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "restore from %s\n", s.File)
	fmt.Fprintf(tw, "backup of %q at revision %d, written %s by %q\n", s.Backup.RootPath, s.Backup.Revision, s.Backup.Created.Format(time.RFC3339), s.Backup.Command)
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
		fmt.Fprintf(tw, "warning: %s\n", n)
	}
	return tw.Flush()
}

// Lines writes the plan as key=value records.
func (s *Summary) Lines(w io.Writer) error {
	if err := framework.WriteLine(w, "plan", "restore", "file", s.File, "revision", s.Revision, "entries", s.Entries, "puts", s.Puts,
		"deletes", s.Deletes, "unchanged", s.Unchanged, "refused", s.Refused); err != nil {
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
	if r.Mismatches == 0 {
		_, err := fmt.Fprintf(w, "verify: ok, the %d keys of the backup read back at revision %d hold their backed-up state\n", r.Verified, r.VerifyRevision)
		return err
	}
	_, err := fmt.Fprintf(w, "verify: FAILED, %d of %d keys differ: %s\n", r.Mismatches, r.Verified, strings.Join(r.MismatchKeys, ", "))
	return err
}

// Lines writes the run as key=value records.
func (r *RunResult) Lines(w io.Writer) error {
	kv := []any{"run", "restore", "file", r.Plan.File, "verified", r.Verified, "mismatches", r.Mismatches}
	if r.Applied != nil {
		kv = append(kv, "backup", r.Applied.Backup, "written", r.Applied.Written, "txns", r.Applied.Txns)
	}
	return framework.WriteLine(w, kv...)
}
