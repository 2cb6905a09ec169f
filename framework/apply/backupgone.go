package apply

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// backupGone says what happened to a published backup that no longer
// exists at the end of the run (its file or its folder deleted while heron
// wrote), "" while it exists: messages must not name it as if it did.
func backupGone(path string) string {
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	what := "the backup file " + path + " was deleted during the run"
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
		what = fmt.Sprintf("the backup folder %s was deleted during the run, with the backup file %s in it", filepath.Dir(path), filepath.Base(path))
	}
	return what + ": the original values of the keys written are not kept anywhere (restore cannot roll this run back)"
}

// noteBackupGone marks res when its backup is gone and tells stderr; it
// returns the message ("" when the backup exists).
func noteBackupGone(res *Result, stderr io.Writer) string {
	if res == nil || res.Backup == "" {
		return ""
	}
	gone := backupGone(res.Backup)
	if gone == "" {
		return ""
	}
	res.BackupDeleted = true
	if stderr != nil {
		fmt.Fprintf(stderr, "warning: %s\n", gone)
	}
	return gone
}
