package reset

import (
	"fmt"
	"path/filepath"

	"github.com/heron-shell/heron/framework/apply"
)

// backupReminder is the plan's reminder about the backup a run writes: the
// folder it goes to (--backup-dir, made absolute), so that the operator
// knows where to find it before it exists.
func backupReminder(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return fmt.Sprintf("keep the backup file a run writes to %s (heron-backup-*.jsonl; its path is printed): restore --file <that file> --run puts every changed key back as it was", dir)
}

// nameSplitBackup finds, for a plan that found a split state, the backup
// of the interrupted run in --backup-dir, so that the plan names the file
// that rolls it back.
func (pl *Plan) nameSplitBackup() {
	if path, ok := apply.PreviousBackup(pl.params.BackupDir, pl.inst.Layout.RootPath, pl.Revision, "reset checkpoint"); ok {
		pl.splitBackup = path
	}
}
