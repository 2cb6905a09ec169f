// Package rehearse is `heron load-backup FILE`: an embedded etcd (as `heron
// demo` starts one) seeded from a full backup that the backup command wrote,
// with the shell connected to it, so that an operator can rehearse a write
// (reset checkpoint --run, then restore) on an exact copy of an instance's
// metadata before touching the instance.
package rehearse

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/spf13/pflag"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/states/demo"
	"github.com/heron-shell/heron/states/instance"
)

// Main runs `heron load-backup FILE [--rootPath R]`.
func Main(ctx context.Context, args []string, interactive bool, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("load-backup", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	rootPath := fs.String("rootPath", "", "load the keys under this root path instead of the backup's (the shell opens it)")
	force := fs.Bool("force", false, "load although the memory estimate says it does not fit")
	if code, done := framework.ParseMain(fs, args, "load-backup: ", usage, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		if fs.NArg() == 0 {
			fmt.Fprintf(stderr, "error: load-backup: give the backup FILE (written by the backup command)\n")
		} else {
			fmt.Fprintf(stderr, "error: load-backup takes one FILE, got %q\n", fs.Args())
		}
		usage(stderr, fs)
		return framework.ExitUsage
	}
	if fs.Changed("rootPath") && strings.Trim(*rootPath, "/") == "" {
		fmt.Fprintf(stderr, "error: load-backup: --rootPath %q is empty\n", *rootPath)
		return framework.ExitUsage
	}
	framework.HoldGC(loadGCPercent) // for the process: load-backup is its only command
	file := fs.Arg(0)
	header, err := Check(file)
	if err != nil {
		fmt.Fprintf(stderr, "error: load-backup: %v\n", err)
		return framework.ExitFailed
	}
	if code, ok := checkMemory(file, *force, readBudget("/"), stderr); !ok {
		return code
	}
	root := header.RootPath
	if fs.Changed("rootPath") {
		root = strings.Trim(*rootPath, "/")
	}
	sh, cleanup, err := demo.StartSeeded(ctx, "load-backup", root, func(ctx context.Context, inst *instance.Instance) (string, error) {
		n, err := Load(ctx, inst, file, stderr)
		if err != nil {
			return "", fmt.Errorf("load-backup: %w: nothing is kept", err)
		}
		what := fmt.Sprintf("loaded %d keys of %s (root path %s at revision %d, backed up %s)",
			n, file, header.RootPath, header.Revision, header.Created.Format("2006-01-02T15:04:05Z"))
		if header.Prefix != header.RootPath+"/" {
			what += fmt.Sprintf(", only the keys under %s", header.Prefix)
		}
		if root != header.RootPath {
			what += fmt.Sprintf(", moved to root path %s", root)
		}
		return what, nil
	}, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return framework.ExitFailed
	}
	return demo.RunShell(ctx, "load-backup", sh, cleanup, interactive, stdin, stderr)
}

// checkMemory estimates the load's peak memory from the file's key count
// and compares it with b before anything is loaded: a load that cannot fit
// is refused (exit 3) unless force, one that takes most of b is warned
// about. A pod killed for memory halfway through a load of minutes tells
// the operator less, later.
func checkMemory(file string, force bool, b budget, stderr io.Writer) (int, bool) {
	keys, err := apply.BackupEntries(file)
	if err != nil {
		fmt.Fprintf(stderr, "error: load-backup: %v: nothing was loaded\n", err)
		return framework.ExitFailed, false
	}
	est := estimate(keys)
	note := memoryNote(keys, est, b)
	switch decide(est, b) {
	case tooBig:
		if !force {
			fmt.Fprintf(stderr, "error: load-backup: %s: it does not fit, nothing was loaded; give the process more memory, or pass --force to try anyway\n", note)
			return framework.ExitRefused, false
		}
		fmt.Fprintf(stderr, "warning: load-backup: %s: it does not fit; loading anyway (--force)\n", note)
	case tight:
		fmt.Fprintf(stderr, "warning: load-backup: %s: the process may be killed for memory\n", note)
	default:
		fmt.Fprintf(stderr, "load-backup: %s\n", note)
	}
	return 0, true
}

// loadGCPercent is the Go GC target of a load-backup process (Go's default
// is 100, unless $GOGC says otherwise). Most of its heap is the embedded
// etcd's in-memory index of every key, live for the whole session: a heap
// allowed to grow to twice that before a collection made the peak RSS twice
// the live data; at 50 a 100k-segment copy peaks at about 120 MiB instead of
// 150 MiB (bench/run.sh measures it), for a few percent more CPU.
const loadGCPercent = 50

func usage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `Usage:
  heron load-backup FILE [--rootPath STRING] [--force]

Starts an embedded etcd in a temporary folder, loads every key of FILE (a
backup written by the shell's backup command) into it and opens the shell
connected to it (the REPL on a terminal, else one command a line from stdin),
to rehearse a write such as reset checkpoint --run on an exact copy. A file
that is truncated or fails its integrity check is refused. The folder is
removed on exit and on SIGINT, SIGTERM and SIGHUP. The copy's etcd keeps an
index of every key in memory: before loading, the peak is estimated from the
file's key count (about 300 bytes a key) and compared with the cgroup's memory
limit and the available memory: a load that cannot fit is refused (exit 3;
--force loads anyway), one above 70%% of it is warned about. Its folder takes
about 2.5 times the backup file's size.

Flags:
%s`, framework.FlagUsages(fs))
}

// Check opens a backup and refuses one that the backup command did not write
// (a write command's backup holds only the keys it changed: no copy of an
// instance).
func Check(path string) (apply.Header, error) {
	br, err := apply.OpenBackup(path)
	if err != nil {
		return apply.Header{}, err
	}
	defer br.Close()
	h := br.Header
	if w := strings.Fields(h.Command); len(w) == 0 || w[0] != "backup" {
		return h, fmt.Errorf("%s is the backup of %q (the keys that write changed), not a copy of an instance: take one with the backup command", path, h.Command)
	}
	if h.RootPath == "" || h.Prefix == "" || !strings.HasPrefix(h.Prefix, h.RootPath+"/") {
		return h, fmt.Errorf("%s: header: prefix %q is not under root path %q", path, h.Prefix, h.RootPath)
	}
	return h, nil
}

// Load streams every entry of the backup at path into inst's etcd, each key
// moved from the backup's root path to inst's, with progress on progress
// (nil: none), and returns the number of keys. It reads the file to its end line: a truncated file or one that fails
// its integrity check is an error (after some keys were loaded: the caller
// throws the etcd away).
func Load(ctx context.Context, inst *instance.Instance, path string, progress io.Writer) (int64, error) {
	h, err := Check(path)
	if err != nil {
		return 0, err
	}
	br, err := apply.OpenBackup(path)
	if err != nil {
		return 0, err
	}
	defer br.Close()
	from, to := h.RootPath+"/", inst.Layout.RootPath+"/"
	var n int64
	var readErr error
	prog := apply.StartProgress(progress, "load-backup", 0, 0)
	entries := iter.Seq2[string, []byte](func(yield func(string, []byte) bool) {
		for {
			e, ok, err := br.Next()
			if err != nil {
				readErr = err
				return
			}
			if !ok {
				return
			}
			rel, under := strings.CutPrefix(e.Key, from)
			switch {
			case !under || !strings.HasPrefix(e.Key, h.Prefix):
				readErr = fmt.Errorf("backup %s: line %d: key %q is outside the backup's prefix %s", path, e.Line, e.Key, h.Prefix)
				return
			case e.Absent || e.Delete:
				readErr = fmt.Errorf("backup %s: line %d: key %q is not a key as read (absent or deleted): not a full backup", path, e.Line, e.Key)
				return
			}
			n++
			prog.Add(1)
			if !yield(to+rel, e.Value) {
				return
			}
		}
	})
	_, err = inst.Load(ctx, entries)
	if err == nil {
		err = readErr
	}
	prog.Finish(err == nil)
	if err != nil {
		return n, err
	}
	if err := ctx.Err(); err != nil {
		return n, err
	}
	got, err := inst.Count(ctx, to, 0)
	if err != nil {
		return n, err
	}
	if got != n {
		return n, fmt.Errorf("the backup holds %d keys but etcd holds %d under %s after loading it", n, got, to)
	}
	return n, nil
}
