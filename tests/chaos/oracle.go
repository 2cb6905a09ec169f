package chaos

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/heron-shell/heron/framework/apply"
	// The reset's rule derives its new values from a plan file's entries.
	_ "github.com/heron-shell/heron/states/reset"
)

// planned is what a fresh plan of a command writes: each key it puts (its
// new value) or deletes (nil).
type planned map[string][]byte

// applyTo is s with the plan written.
func (p planned) applyTo(s state) state {
	out := s.clone()
	for k, v := range p {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// readPlan reads a plan file (--plan-out) as what it writes, each new value
// as the command's own rule derives it from the entry (apply.Derive).
func readPlan(path string) (planned, error) {
	h, err := apply.ReadBackupHeader(path)
	if err != nil {
		return nil, err
	}
	derive, err := apply.Derive(h)
	if err != nil {
		return nil, err
	}
	out := planned{}
	_, err = apply.VerifyBackup(path, false, func(e apply.Entry) error {
		op, err := derive(e)
		if err != nil {
			return err
		}
		if op.Delete {
			out[op.Key] = nil
		} else {
			out[op.Key] = op.Value
		}
		return nil
	})
	return out, err
}

// backupFile is a backup a run published, with its header.
type backupFile struct {
	path   string
	header apply.Header
}

// backupsIn lists the heron backups in dir (not the temporary files),
// newest plan revision first.
func backupsIn(dir string) ([]backupFile, error) {
	names, err := filepath.Glob(filepath.Join(dir, "heron-backup-*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []backupFile
	for _, n := range names {
		h, err := apply.ReadBackupHeader(n)
		if err != nil {
			return nil, fmt.Errorf("backup %s: %w", n, err)
		}
		out = append(out, backupFile{path: n, header: h})
	}
	sortNewestFirst(out)
	return out, nil
}

// sortNewestFirst orders backups by the revision their plan read, newest
// first: the order a chain is restored in.
func sortNewestFirst(files []backupFile) {
	sort.Slice(files, func(i, j int) bool {
		if files[i].header.Revision != files[j].header.Revision {
			return files[i].header.Revision > files[j].header.Revision
		}
		return files[i].header.Created.After(files[j].header.Created)
	})
}

// undo is s with the backup's original values put back (absent keys
// deleted): what restoring it writes.
func undo(s state, path string) (state, error) {
	out := s.clone()
	_, err := apply.VerifyBackup(path, false, func(e apply.Entry) error {
		if e.Absent {
			delete(out, e.Key)
		} else {
			out[e.Key] = e.Value
		}
		return nil
	})
	return out, err
}

// newFiles are the backups in dir not in had.
func newFiles(dir string, had map[string]bool) ([]backupFile, error) {
	all, err := backupsIn(dir)
	if err != nil {
		return nil, err
	}
	var out []backupFile
	for _, b := range all {
		if !had[b.path] {
			out = append(out, b)
		}
	}
	return out, nil
}

func fileSet(dir string) map[string]bool {
	out := map[string]bool{}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		out[n] = true
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// words splits a printed command line (heron's commands quote nothing the
// runner gives them).
func words(line string) []string { return strings.Fields(line) }
