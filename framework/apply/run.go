package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

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
