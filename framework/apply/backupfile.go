package apply

import (
	"io"
	"time"
)

// BackupWriter writes a backup file outside Apply (the backup command): in
// the format Apply writes, under a temporary name until Commit publishes it.
type BackupWriter struct{ bw *backupWriter }

// CreateBackup starts a backup at path, which must not exist, and writes h as
// its header (Format and, when zero, Created are set here).
func CreateBackup(path string, h Header) (*BackupWriter, error) {
	bw, err := createBackup(path, h)
	if err != nil {
		return nil, err
	}
	return &BackupWriter{bw: bw}, nil
}

// Add writes one entry: the key, its value and mod revision (0 with Absent:
// the key did not exist) and whether the backed-up op deleted it.
func (w *BackupWriter) Add(e Entry) error {
	return w.bw.add(Op{Key: e.Key, ModRevision: e.ModRevision, Original: e.Value, Delete: e.Delete})
}

// Commit writes the end line, syncs the file and publishes it under its
// final name without overwriting anything; on failure nothing is left.
func (w *BackupWriter) Commit() error { return w.bw.commit() }

// Abort removes the unpublished file.
func (w *BackupWriter) Abort() { w.bw.abort() }

// Progress reports keys done of a total on a writer: redrawn in place on a
// terminal, one line every interval otherwise (the progress of Apply).
type Progress struct{ p *progress }

// StartProgress starts reporting on w (nil: silent) under label; total 0
// means unknown.
func StartProgress(w io.Writer, label string, total int64, interval time.Duration) *Progress {
	return &Progress{p: startProgress(w, label, total, interval)}
}

// Add counts n more keys done.
func (p *Progress) Add(n int) { p.p.add(n) }

// Finish stops the reports; with ok it prints the closing line.
func (p *Progress) Finish(ok bool) { p.p.finish(ok) }
