package framework

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	prompt "github.com/c-bata/go-prompt"
)

// Completion kinds the shell completes itself, from the file system: a flag
// whose placeholder is FILE, DIR or BACKUP gets the matching one unless its
// complete tag says otherwise.
const (
	CompleteFiles   = "files"   // any file (TLS certificates and keys)
	CompleteDirs    = "dirs"    // folders only (--backup-dir)
	CompleteBackups = "backups" // heron backup files, newest first, then the rest
)

var placeholderCompletion = map[string]string{
	"FILE":   CompleteFiles,
	"DIR":    CompleteDirs,
	"BACKUP": CompleteBackups,
}

// backupName is how apply names the backups it writes.
const backupName = "heron-backup-"

// maxPathCompletions bounds the entries one folder offers.
const maxPathCompletions = 200

// isPathKind reports whether kind is completed from the file system.
func isPathKind(kind string) bool {
	return kind == CompleteFiles || kind == CompleteDirs || kind == CompleteBackups
}

// pathSuggestions lists the entries of the folder typed names (its part up
// to the last /; "." when none), each as typed plus the entry's name;
// folders end with / so that completion goes on inside them. Backups come
// first, newest first, for CompleteBackups; hidden entries only when typed
// starts their name with a dot. An unreadable folder offers nothing.
func pathSuggestions(kind, prefix, typed string) []prompt.Suggest {
	dirPart := ""
	if i := strings.LastIndexByte(typed, '/'); i >= 0 {
		dirPart = typed[:i+1]
	}
	dir := dirPart
	if dir == "" {
		dir = "."
	}
	if strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, dir[2:])
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type entry struct {
		name   string
		isDir  bool
		backup bool
		mod    int64
	}
	hidden := strings.HasPrefix(typed[len(dirPart):], ".")
	var list []entry
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !hidden {
			continue
		}
		isDir := e.IsDir()
		if !isDir && e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		if kind == CompleteDirs && !isDir {
			continue
		}
		en := entry{name: name, isDir: isDir}
		if kind == CompleteBackups && !isDir && strings.HasPrefix(name, backupName) {
			en.backup = true
			if info, err := e.Info(); err == nil {
				en.mod = info.ModTime().UnixNano()
			}
		}
		list = append(list, en)
	}
	slices.SortStableFunc(list, func(a, b entry) int {
		switch {
		case a.backup != b.backup:
			if a.backup {
				return -1
			}
			return 1
		case a.backup && a.mod != b.mod:
			if a.mod > b.mod {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	var out []prompt.Suggest
	for _, en := range list[:min(len(list), maxPathCompletions)] {
		s := prompt.Suggest{Text: prefix + dirPart + en.name}
		switch {
		case en.isDir:
			s.Text += "/"
		case en.backup:
			s.Description = "heron backup"
		}
		out = append(out, s)
	}
	return out
}
