package apply

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// BackupListing is one heron backup file found in a folder: its header,
// its key count from its end line, and whether it has one.
type BackupListing struct {
	Path   string `json:"path"`
	Header Header `json:"header"`
	// Keys is the end line's count of entries (-1 without an end line).
	Keys int64 `json:"keys"`
	// Complete: the file has its end line (a backup cut short has none, and
	// restore refuses it).
	Complete bool `json:"complete"`
}

// endLineWindow is how much of a backup's tail is read for its end line
// (the line is under 120 bytes): the key count without reading the file.
const endLineWindow = 4096

// ListBackups lists the heron backups (heron-backup-*.jsonl whose header
// reads) in dirs, each file once, newest first: by the revision their plan
// read, then by creation time. A folder that does not exist lists nothing.
// root, when set, keeps the backups of that root path only.
func ListBackups(dirs []string, root string) []BackupListing {
	seen := map[string]bool{}
	var out []BackupListing
	for _, dir := range dirs {
		if dir == "" {
			dir = "."
		}
		entries, _ := os.ReadDir(dir)
		for _, de := range entries {
			name := de.Name()
			if de.IsDir() || !strings.HasPrefix(name, "heron-backup-") || !strings.HasSuffix(name, ".jsonl") {
				continue
			}
			path := absPath(filepath.Join(dir, name))
			if seen[path] {
				continue
			}
			seen[path] = true
			h, err := ReadBackupHeader(path)
			if err != nil || root != "" && h.RootPath != root {
				continue
			}
			keys, complete := backupKeys(path)
			out = append(out, BackupListing{Path: path, Header: h, Keys: keys, Complete: complete})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Header.Revision != out[j].Header.Revision {
			return out[i].Header.Revision > out[j].Header.Revision
		}
		return out[i].Header.Created.After(out[j].Header.Created)
	})
	return out
}

// backupKeys reads the end line of the backup at path: its entry count.
func backupKeys(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return -1, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return -1, false
	}
	off := max(st.Size()-endLineWindow, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return -1, false
	}
	tail := strings.TrimRight(string(buf), "\n")
	if i := strings.LastIndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	var end backupEnd
	if json.Unmarshal([]byte(tail), &end) != nil || !end.End {
		return -1, false
	}
	return end.Ops, true
}
