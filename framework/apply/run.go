package apply

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/heron-shell/heron/framework"
)

// Job is one --run of a write command as Run runs it: what the command knows
// (its plan, its ops, its read-back); Run owns the rest.
type Job struct {
	// Command names the run in progress lines and messages ("reset checkpoint").
	Command string
	// Name goes into the backup's file name:
	// heron-backup-{root}-{Name}-rev{R}-{timestamp}.jsonl.
	Name string
	// Header is the backup's first line; its RootPath and Revision also name
	// the file, its RootPath is the ROOT of the question before the write.
	Header Header
	Flags  framework.WriteFlags
	// Ops yields the plan's ops in write order. Run calls it once, for pass 1
	// (the backup): a plan that decides its keys while they stream completes
	// its summary there.
	Ops Source
	// Replay rebuilds an op from its backup entry, so that pass 2 reads the
	// backup instead of etcd; nil: pass 2 calls Ops again.
	Replay func(Entry) (Op, error)
	// Check is the plan's refusal once Ops yielded every op (nil: none): a
	// refusal stops the run before the backup is published.
	Check func() error
	// Plan is what the run shows before the first write (WriteIO.Approve).
	Plan framework.Result
	// Verify reads back after the writes (also when there was nothing to
	// write); its error fails the run.
	Verify func(ctx context.Context) error
	// Tune adjusts the options last: tests set hooks and limits there.
	Tune func(*Options)
	// Continues reports, once Ops yielded every op, whether the plan found a
	// split state (an interrupted run left it; nil: never). Run then looks
	// for the backup of that run in the backup folder and records the chain
	// in the new backup's header (see Header.Continues), and its messages
	// name the backup of the original values.
	Continues func() bool
}

// Run runs a job under one stall watchdog: pass 1 streams the plan's ops
// into a temporary backup, Check refuses or not, w approves the plan (the
// summary, then on a terminal the question), the backup is published, pass 2
// writes, Verify reads back. It returns what was applied (nil when there was
// nothing to write, and no backup). A failure after the backup was published
// names it and how to roll back; a refusal and framework.ErrNotConfirmed come
// back as they are, with nothing written and no backup left.
func Run(ctx context.Context, store Store, job Job, w framework.WriteIO) (*Result, error) {
	var keys int64
	var published Header // the header of the backup, once amended
	opt := Options{
		MaxTxnOps:  job.Flags.MaxTxnOps,
		BackupPath: BackupPath(job.Flags.BackupDir, job.Header.RootPath, job.Name, job.Header.Revision, time.Now()),
		Header:     job.Header,
		Progress:   w.Stderr,
		Label:      job.Command,
		Replay:     job.Replay,
		Check:      job.Check,
		SkipEmpty:  true,
		Approve: func(n int64) error {
			keys = n
			release := hold(ctx)
			ok, err := w.Approve(ctx, job.Plan, n, job.Header.RootPath)
			release()
			if err == nil && !ok {
				err = framework.ErrNotConfirmed
			}
			return err
		},
		AfterBackup: func(path string) error {
			fmt.Fprintf(w.Stderr, "backup: %s (%d keys, synced)\n", path, keys)
			if published.SplitState {
				fmt.Fprintf(w.Stderr, "%s\n", chainNote(published))
			}
			return nil
		},
		Amend: func(h *Header) error {
			if job.Continues != nil && job.Continues() {
				chainHeader(job.Flags.BackupDir, h, job.Command)
			}
			published = *h
			return nil
		},
	}
	opt, err := fromEnv(opt)
	if err != nil {
		return nil, framework.Usagef("%s: %v", job.Command, err)
	}
	if job.Tune != nil {
		job.Tune(&opt)
	}
	opt = opt.withDefaults()
	ctx, stop := WithStallTimeout(ctx, opt.StallTimeout)
	defer stop()
	res, err := Apply(ctx, store, job.Ops, opt)
	gone := noteBackupGone(res, w.Stderr)
	if err != nil {
		if gone != "" {
			return res, fmt.Errorf("%w (%s)", err, gone)
		}
		if res != nil && res.Backup != "" {
			return res, fmt.Errorf("%w (%s)", err, rollback(res.Backup, published))
		}
		return res, err
	}
	if res.Keys == 0 && res.Backup == "" {
		res = nil
	}
	if job.Verify != nil {
		if err := job.Verify(ctx); err != nil {
			return res, afterWrite(Cause(ctx, fmt.Errorf("verify: %w", err)))
		}
	}
	return res, nil
}

// Watch returns ctx with the stall watchdog a write command's reads run
// under outside Run (building the plan, the dry run); call stop when done,
// and pass errors through Cause.
func Watch(ctx context.Context) (context.Context, func()) {
	opt, err := fromEnv(Options{})
	if err != nil {
		opt = Options{}
	}
	return WithStallTimeout(ctx, opt.withDefaults().StallTimeout)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// BackupPath is the path of a new backup in dir ("": the current folder):
// heron-backup-{root}-{name}-rev{R}-{timestamp}.jsonl, with -2, -3, ...
// before the extension while the name is taken (Apply never overwrites).
func BackupPath(dir, root, name string, rev int64, now time.Time) string {
	if dir == "" {
		dir = "."
	}
	path := filepath.Join(dir, fmt.Sprintf("heron-backup-%s-%s-rev%d-%s.jsonl", unsafeName.ReplaceAllString(root, "_"),
		unsafeName.ReplaceAllString(name, "_"), rev, now.UTC().Format("20060102T150405Z")))
	base := strings.TrimSuffix(path, ".jsonl")
	for i := 2; ; i++ {
		if _, err := os.Lstat(path); err != nil {
			return path
		}
		path = fmt.Sprintf("%s-%d.jsonl", base, i)
	}
}
