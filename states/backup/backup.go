// Package backup is `backup [--prefix P] [--file F]`: every key and value
// under the root path (or a prefix of it) read at one revision and streamed,
// a page at a time, into a file in framework/apply's backup format. It only
// reads etcd. `heron load-backup F` (states/rehearse) loads such a file into
// an embedded etcd to rehearse a write on an exact copy.
package backup

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/states/instance"
)

// Params are the flags of `backup`.
type Params struct {
	framework.ParamBase `use:"backup" desc:"every key and value under the root path (or --prefix) at one revision, into a backup file (read-only; heron load-backup FILE opens a copy)" example:"backup --file by-dev.jsonl"`
	Prefix              string `name:"prefix" default:"" placeholder:"PREFIX" complete:"-" desc:"only the keys under this prefix, relative to the root path (e.g. meta); default: all of it"`
	File                string `name:"file" default:"" placeholder:"FILE" complete:"-" desc:"the file to write (must not exist); default heron-backup-{root}-full-rev{R}-{time}.jsonl in the current folder"`
	framework.Output
}

// Validate checks the flags.
func (p *Params) Validate() error {
	if p.File != "" && strings.TrimSpace(p.File) == "" {
		return framework.Usagef("backup: --file is blank")
	}
	if strings.ContainsAny(p.Prefix, "\x00") {
		return framework.Usagef("backup: --prefix %q holds a NUL byte", p.Prefix)
	}
	return nil
}

// Commands are the backup command on a connected instance.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{framework.Read(inst, run(Options{}))}
}

// run is the command over base options (tests set a hook there).
func run(base Options) func(ctx context.Context, inst *instance.Instance, p *Params, out framework.IO) (framework.Result, error) {
	return func(ctx context.Context, inst *instance.Instance, p *Params, out framework.IO) (framework.Result, error) {
		o := base
		o.Prefix, o.File, o.Progress = p.Prefix, p.File, out.Stderr
		res, err := Write(ctx, inst, o)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

// Options are what Write backs up, and where.
type Options struct {
	// Prefix is relative to the root path ("" or "/": the whole root path).
	Prefix string
	// File is the backup's path ("": the default name in the current folder).
	File string
	// Progress receives the progress lines and warnings (nil: none).
	Progress io.Writer
	// ProgressInterval is the time between two progress lines (0: apply's default).
	ProgressInterval time.Duration

	afterPage func()
}

// Result is what a backup wrote.
type Result struct {
	File     string `json:"file"`
	RootPath string `json:"root_path"`
	// Prefix is what was backed up, absolute.
	Prefix   string `json:"prefix"`
	Revision int64  `json:"revision"`
	Keys     int64  `json:"keys"`
	Bytes    int64  `json:"bytes"`
	// Leased counts the keys held by a lease (live sessions): the file holds
	// their values, not their leases.
	Leased int64 `json:"leased"`
}

// Write streams every key under the prefix, read at the current revision, to
// a new backup file, and publishes it when complete: a failure or an
// interruption leaves no file.
func Write(ctx context.Context, inst *instance.Instance, o Options) (*Result, error) {
	root := inst.Layout.RootPath
	prefix := inst.Layout.Root(strings.TrimPrefix(o.Prefix, "/"))
	rev, err := inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	total, err := inst.Count(ctx, prefix, rev)
	if err != nil {
		return nil, err
	}
	if total == 0 {
		return nil, fmt.Errorf("backup: no key under %s at revision %d: nothing to back up, no file written (--prefix is relative to the root path %s)", prefix, rev, root)
	}
	path := o.File
	if path == "" {
		name := "full"
		if rel := strings.Trim(o.Prefix, "/"); rel != "" {
			name = "prefix-" + rel
		}
		path = apply.BackupPath("", root, name, rev, time.Now())
	}
	command := "backup"
	if o.Prefix != "" {
		command += " --prefix " + o.Prefix
	}
	bw, err := apply.CreateBackup(path, apply.Header{
		Command:   command,
		Endpoints: inst.Endpoints,
		RootPath:  root,
		MetaRoot:  inst.Layout.MetaRoot(),
		Revision:  rev,
		Prefix:    prefix,
	})
	if err != nil {
		return nil, err
	}
	res := &Result{File: path, RootPath: root, Prefix: prefix, Revision: rev}
	prog := apply.StartProgress(o.Progress, "backup", total, o.ProgressInterval)
	_, err = inst.Scan(ctx, prefix, rev, func(page []instance.KV) error {
		for _, kv := range page {
			if err := bw.Add(apply.Entry{Key: kv.Key, Value: kv.Value, ModRevision: kv.ModRevision}); err != nil {
				return err
			}
			if kv.Lease != 0 {
				res.Leased++
			}
		}
		res.Keys += int64(len(page))
		prog.Add(len(page))
		if o.afterPage != nil {
			o.afterPage()
		}
		return ctx.Err()
	})
	if err == nil && res.Keys != total {
		err = fmt.Errorf("backup: etcd counted %d keys under %s at revision %d but the scan read %d", total, prefix, rev, res.Keys)
	}
	if err != nil {
		bw.Abort()
		prog.Finish(false)
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("backup of %s interrupted after %d keys, no file written: %w", prefix, res.Keys, cerr)
		}
		return nil, fmt.Errorf("backup of %s at revision %d: %w (no file written)", prefix, rev, err)
	}
	if err := bw.Commit(); err != nil {
		prog.Finish(false)
		return nil, err
	}
	prog.Finish(true)
	if st, err := os.Stat(path); err == nil {
		res.Bytes = st.Size()
	}
	if res.Leased > 0 && o.Progress != nil {
		fmt.Fprintf(o.Progress, "warning: %d keys are held by a lease (live sessions): the backup holds their values, not the leases, so a copy loaded from it sees those components as stopped\n", res.Leased)
	}
	return res, nil
}

// JSON implements framework.Result.
func (r *Result) JSON() any { return r }

// Table implements framework.Result.
func (r *Result) Table(w io.Writer) error {
	_, err := fmt.Fprintf(w, "backup: %s\n  keys:     %d under %s\n  revision: %d\n  bytes:    %d\n",
		framework.EscapeText(r.File), r.Keys, framework.EscapeText(r.Prefix), r.Revision, r.Bytes)
	if err == nil && r.Leased > 0 {
		_, err = fmt.Fprintf(w, "  leased:   %d keys held by a lease (the file holds their values only)\n", r.Leased)
	}
	if err == nil {
		_, err = fmt.Fprintf(w, "open a copy: heron load-backup %s\n", framework.EscapeText(r.File))
	}
	return err
}

// Lines implements framework.Result.
func (r *Result) Lines(w io.Writer) error {
	return framework.WriteLine(w, "backup", r.File, "root_path", r.RootPath, "prefix", r.Prefix,
		"revision", r.Revision, "keys", r.Keys, "bytes", r.Bytes, "leased", r.Leased)
}
