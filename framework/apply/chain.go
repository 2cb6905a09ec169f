package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A run that finds a split state (an interrupted run left it) backs up the
// values of that state, not the original ones: restoring its backup alone
// leaves the split. The kit then records, in the new backup's header, the
// backup it continues (the latest earlier backup of the same root path by
// the same command, in the backup folder) and the backup of the original
// values (the first backup of the chain, taken of a state that was not
// split), and names them in its messages; restore names the order.

// maxChain bounds the backups a chain is followed through (a loop of
// pointers in edited headers must not hang).
const maxChain = 1000

// previousBackup finds, in dir, the latest backup of root path h.RootPath
// written by command at a revision below h.Revision: the run the new one
// continues. ok is false when there is none.
func previousBackup(dir string, h Header, command string) (path string, ph Header, ok bool) {
	if dir == "" {
		dir = "."
	}
	// Names as BackupPath makes them (read with ReadDir: the folder's name
	// may hold glob characters).
	prefix := "heron-backup-" + unsafeName.ReplaceAllString(h.RootPath, "_") + "-"
	entries, _ := os.ReadDir(dir)
	type found struct {
		path string
		h    Header
	}
	var cands []found
	for _, de := range entries {
		if de.IsDir() || !strings.HasPrefix(de.Name(), prefix) || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		m := filepath.Join(dir, de.Name())
		mh, err := ReadBackupHeader(m)
		if err != nil || mh.RootPath != h.RootPath || mh.Revision >= h.Revision {
			continue
		}
		if mh.Command != command && !strings.HasPrefix(mh.Command, command+" ") {
			continue
		}
		cands = append(cands, found{m, mh})
	}
	if len(cands) == 0 {
		return "", Header{}, false
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].h.Revision != cands[j].h.Revision {
			return cands[i].h.Revision > cands[j].h.Revision
		}
		return cands[i].h.Created.After(cands[j].h.Created)
	})
	return absPath(cands[0].path), cands[0].h, true
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// chainCommand is the command whose backups a run's chain continues: the
// command that planned (apply --file continues the recorded command's, and
// that command's next run continues the apply's), else the run's own.
func chainCommand(h Header, command string) string {
	if h.Planner != "" {
		return h.Planner
	}
	return command
}

// chainHeader completes the header of a run that found a split state: it
// continues named (the backup the plan names, Plan.Continues), else the
// latest earlier backup of command in dir.
func chainHeader(dir string, h *Header, command, named string) {
	h.SplitState = true
	prev, ph, ok := named, Header{}, false
	if named != "" {
		// A named backup unreadable now is still the one continued; the
		// original one is then unknown.
		var err error
		ph, err = ReadBackupHeader(named)
		ok = err == nil
	} else {
		prev, ph, ok = previousBackup(dir, *h, command)
	}
	h.Continues = prev
	if !ok {
		return
	}
	// Follow the pointers back to a backup taken of a state that was not split.
	for p, i := prev, 0; i < maxChain; i++ {
		switch {
		case !ph.SplitState:
			h.OriginalBackup = p
			return
		case ph.OriginalBackup != "":
			h.OriginalBackup = ph.OriginalBackup
			return
		case ph.Continues == "":
			return
		}
		p = ph.Continues
		var err error
		if ph, err = ReadBackupHeader(p); err != nil {
			return
		}
	}
}

// BackupChain is the order to restore a backup and the ones it continues
// in: path first (newest), then the backup its header continues, and so on
// to the first backup of the chain. missing names a backup of the chain
// that could not be read (the chain stops before it).
func BackupChain(path string) (chain []string, missing error) {
	seen := map[string]bool{}
	for p := path; p != "" && len(chain) < maxChain; {
		if seen[p] {
			return chain, fmt.Errorf("backup %s is continued by a backup it continues (a loop of headers)", p)
		}
		seen[p] = true
		h, err := ReadBackupHeader(p)
		if err != nil {
			return chain, err
		}
		chain = append(chain, p)
		p = h.Continues
	}
	return chain, nil
}

// restoreOrder is the rollback instruction of a chain: "restore --file A
// --run, then restore --file B --run".
func restoreOrder(chain []string) string {
	steps := make([]string, len(chain))
	for i, p := range chain {
		steps[i] = "restore --file " + p + " --run"
	}
	return strings.Join(steps, ", then ")
}

// RestoreOrder is restoreOrder for restore's messages.
func RestoreOrder(chain []string) string { return restoreOrder(chain) }

// rollback says which backup holds the original values of a run that
// published path with header h, and how to roll back.
func rollback(path string, h Header) string {
	if !h.SplitState {
		return fmt.Sprintf("backup of the original values: %s; restore --file %s --run rolls back", path, path)
	}
	chain := []string{path}
	var missing error
	if h.Continues != "" {
		var rest []string
		rest, missing = BackupChain(h.Continues)
		chain = append(chain, rest...)
	}
	var b strings.Builder
	if h.OriginalBackup != "" {
		fmt.Fprintf(&b, "backup of the original values: %s; ", h.OriginalBackup)
	} else {
		fmt.Fprintf(&b, "no earlier backup of %s in the backup folder holds the original values (this run continued an interrupted one, whose backup holds them); ", h.RootPath)
	}
	fmt.Fprintf(&b, "this run's backup %s holds the split state it found; roll back newest first: %s", path, restoreOrder(chain))
	if missing != nil {
		fmt.Fprintf(&b, " (the chain stops there: %v)", missing)
	}
	return b.String()
}

// chainNote is the line Run prints once the backup of a run that found a
// split state is published.
func chainNote(h Header) string {
	switch {
	case h.Continues == "":
		return fmt.Sprintf("split state: no earlier heron backup of %s in the backup folder: this backup holds the split values, not the original ones (they are in the backup of the interrupted run)", h.RootPath)
	case h.OriginalBackup == "":
		return fmt.Sprintf("split state: this run continues %s; no backup of the chain holds the original values", h.Continues)
	}
	return fmt.Sprintf("split state: this run continues %s; the backup of the original values is %s", h.Continues, h.OriginalBackup)
}
