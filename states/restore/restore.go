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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// Params are the flags of `restore`.
type Params struct {
	framework.ParamBase `use:"restore" desc:"put back every key of a heron backup file as it was (a plan unless --run)"`
	File                string `name:"file" required:"true" desc:"the backup file a write command (reset checkpoint, ...) wrote"`
	MaxTxnOps           int    `name:"max-txn-ops" default:"128" desc:"at most this many keys per etcd transaction"`
	BackupDir           string `name:"backup-dir" default:"." desc:"folder of the backup of the values the restore overwrites"`
	framework.Output
}

// Validate checks the flags.
func (p *Params) Validate() error {
	if p.MaxTxnOps < 1 {
		return framework.Usagef("restore: --max-txn-ops must be at least 1, got %d", p.MaxTxnOps)
	}
	if strings.TrimSpace(p.File) == "" {
		return framework.Usagef("restore: --file is empty")
	}
	return nil
}

// Commands are the restore command on a connected instance.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{
		framework.Write(inst, Build),
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
	// Tune, when set, adjusts the apply options (tests, kill tests).
	Tune func(*apply.Options)
}

const maxExamples = 5

// Build reads the backup file and the current values of its keys at one
// revision, and plans the restore.
func Build(ctx context.Context, inst *instance.Instance, p *Params) (*Plan, error) {
	ctx, stop := apply.WithStallTimeout(ctx, stallTimeout())
	defer stop()
	pl, err := build(ctx, inst, p)
	return pl, apply.Cause(ctx, err)
}

func stallTimeout() time.Duration {
	opt, err := apply.FromEnv(apply.Options{})
	if err != nil || opt.StallTimeout <= 0 {
		return apply.DefaultStallTimeout
	}
	return opt.StallTimeout
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

	var live []string
	_, err = inst.Scan(ctx, inst.Layout.Meta(models.SessionPrefix), rev, func(page []instance.KV) error {
		apply.Heartbeat(ctx)
		for _, kv := range page {
			rel, _ := inst.Layout.Rel(kv.Key)
			if rel != models.SessionIDKey && kv.Lease != 0 && len(live) < 5 {
				live = append(live, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g = Gate{Name: "no live Milvus component", OK: len(live) == 0, Detail: "no session key has a lease"}
	if len(live) > 0 {
		g.Detail = "session keys hold a lease (stop Milvus first): " + strings.Join(live, ", ")
	}
	pl.Gates = append(pl.Gates, g)
	for _, g := range pl.Gates {
		pl.Refused = pl.Refused || !g.OK
	}
	if pl.Refused {
		return pl, nil
	}

	err = pl.stream(ctx, func(e apply.Entry, op *apply.Op) error {
		pl.Entries++
		if op == nil {
			pl.Unchanged++
			return nil
		}
		action := "put back"
		if op.Delete {
			pl.Deletes++
			action = "delete (absent in the backup)"
		} else {
			pl.Puts++
			if op.ModRevision == 0 {
				action = "create (deleted since)"
			}
		}
		if len(pl.Examples) < maxExamples {
			pl.Examples = append(pl.Examples, Example{Key: e.Key, Action: action})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	pl.TotalKeys = pl.Puts + pl.Deletes
	if header.Target != "" {
		pl.Warnings = append(pl.Warnings, fmt.Sprintf("the backup was taken before %q: after the restore, set mq.type in milvus.yaml back to the WAL the instance used before", header.Command))
	}
	return pl, nil
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
// the others), fetches the current values of each chunk of keys at the
// plan's revision, and calls fn with each entry and its op (nil: the key
// already holds its backed-up state).
func (pl *Plan) stream(ctx context.Context, fn func(e apply.Entry, op *apply.Op) error) error {
	for phase := 0; phase < 2; phase++ {
		br, err := apply.OpenBackup(pl.File)
		if err != nil {
			return err
		}
		err = pl.streamPhase(ctx, br, phase, fn)
		br.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (pl *Plan) streamPhase(ctx context.Context, br *apply.BackupReader, phase int, fn func(e apply.Entry, op *apply.Op) error) error {
	chunk := make([]apply.Entry, 0, pl.params.MaxTxnOps)
	root := pl.inst.Layout.RootPath + "/"
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		cur, err := pl.current(ctx, chunk)
		if err != nil {
			return err
		}
		for i, e := range chunk {
			c := cur[i]
			var op *apply.Op
			switch {
			case e.Absent && c.exists:
				op = &apply.Op{Key: e.Key, ModRevision: c.modRev, Delete: true, Original: c.value, Phase: phase}
			case e.Absent:
			case c.exists && bytes.Equal(c.value, e.Value):
			default:
				op = &apply.Op{Key: e.Key, ModRevision: c.modRev, Value: e.Value, Original: c.value, Phase: phase}
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

type current struct {
	exists bool
	value  []byte
	modRev int64
}

// current reads the keys of a chunk at the plan's revision in one read-only transaction.
func (pl *Plan) current(ctx context.Context, chunk []apply.Entry) ([]current, error) {
	gets := make([]clientv3.Op, len(chunk))
	for i, e := range chunk {
		gets[i] = clientv3.OpGet(e.Key, clientv3.WithRev(pl.Revision))
	}
	resp, err := pl.inst.Client.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return nil, fmt.Errorf("read %d keys from %s at revision %d: %w", len(chunk), chunk[0].Key, pl.Revision, err)
	}
	apply.Heartbeat(ctx)
	out := make([]current, len(chunk))
	for i, r := range resp.Responses {
		if rr := r.GetResponseRange(); rr != nil && len(rr.Kvs) > 0 {
			out[i] = current{exists: true, value: rr.Kvs[0].Value, modRev: rr.Kvs[0].ModRevision}
		}
	}
	return out, nil
}

// Refusal is nil when every gate passed.
func (pl *Plan) Refusal() error { return framework.Refusal("restore", pl.Gates) }

// Ops streams the restore's ops (consume checkpoints first): apply's Source.
func (pl *Plan) Ops() apply.Source {
	return func(ctx context.Context, yield func(apply.Op) error) error {
		return pl.stream(ctx, func(_ apply.Entry, op *apply.Op) error {
			if op == nil {
				return nil
			}
			return yield(*op)
		})
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// BackupPath is where the restore writes the backup of what it overwrites.
func (pl *Plan) BackupPath(now time.Time) string {
	dir := pl.params.BackupDir
	if dir == "" {
		dir = "."
	}
	path := filepath.Join(dir, fmt.Sprintf("heron-backup-%s-restore-rev%d-%s.jsonl",
		unsafeName.ReplaceAllString(pl.inst.Layout.RootPath, "_"), pl.Revision, now.UTC().Format("20060102T150405Z")))
	base := strings.TrimSuffix(path, ".jsonl")
	for i := 2; ; i++ {
		if _, err := os.Lstat(path); err != nil {
			return path
		}
		path = fmt.Sprintf("%s-%d.jsonl", base, i)
	}
}

// Options are the apply options of the run (before Tune).
func (pl *Plan) Options(stderr io.Writer) (apply.Options, error) {
	opt := apply.Options{
		MaxTxnOps:  pl.params.MaxTxnOps,
		BackupPath: pl.BackupPath(time.Now()),
		Header: apply.Header{Command: "restore --file " + pl.File + " --run", Endpoints: pl.inst.Endpoints,
			RootPath: pl.inst.Layout.RootPath, MetaRoot: pl.inst.Layout.MetaRoot(), Revision: pl.Revision},
		Total:    pl.TotalKeys,
		Progress: stderr,
		Label:    "restore",
		AfterBackup: func(path string) error {
			fmt.Fprintf(stderr, "backup of the values the restore overwrites: %s (%d keys, synced)\n", path, pl.TotalKeys)
			return nil
		},
	}
	return apply.FromEnv(opt)
}

// testTune lets this package's tests reach the apply options.
var testTune func(*Plan, *apply.Options)

// Apply writes the plan and reads every key of the file back.
func (pl *Plan) Apply(ctx context.Context) (framework.Result, error) {
	if err := pl.Refusal(); err != nil {
		return nil, err
	}
	res := &RunResult{Plan: &pl.Summary}
	if pl.TotalKeys > 0 {
		opt, err := pl.Options(framework.Stderr(ctx))
		if err != nil {
			return nil, framework.Usagef("restore: %v", err)
		}
		if pl.Tune != nil {
			pl.Tune(&opt)
		}
		if testTune != nil {
			testTune(pl, &opt)
		}
		ar, err := apply.Apply(ctx, pl.inst.Client, pl.Ops(), opt)
		res.Applied = ar
		if err != nil {
			if ar != nil && ar.Backup != "" {
				return res, fmt.Errorf("%w (backup of the overwritten values: %s)", err, ar.Backup)
			}
			return res, err
		}
	}
	if err := pl.verify(ctx, res); err != nil {
		return res, err
	}
	if res.Mismatches > 0 {
		return res, fmt.Errorf("verify: %d keys do not hold their backed-up state, first: %s", res.Mismatches, strings.Join(res.MismatchKeys, ", "))
	}
	return res, nil
}

// verify reads every key of the file back at the current revision.
func (pl *Plan) verify(ctx context.Context, res *RunResult) error {
	ctx, stop := apply.WithStallTimeout(ctx, stallTimeout())
	defer stop()
	rev, err := pl.inst.Revision(ctx)
	if err != nil {
		return err
	}
	check := *pl
	check.Revision = rev
	res.VerifyRevision = rev
	err = check.stream(ctx, func(e apply.Entry, op *apply.Op) error {
		res.Verified++
		if op != nil {
			res.Mismatches++
			if len(res.MismatchKeys) < 5 {
				res.MismatchKeys = append(res.MismatchKeys, e.Key)
			}
		}
		return nil
	})
	return apply.Cause(ctx, err)
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
