package apply

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipeFile is a file whose Sync fails (fsync of a pipe: EINVAL), drained
// so that writes to it never block.
func pipeFile(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	t.Cleanup(func() { _ = w.Close(); _ = r.Close() })
	return w
}

// The backup is synced early, once writebackBytes are written, and not
// before; a failed early sync is kept for Commit.
func TestBackupSyncsEarlyEachWritebackBytes(t *testing.T) {
	w, wb := newBackupFile(pipeFile(t))
	chunk := bytes.Repeat([]byte{'x'}, 1<<20)
	for range writebackBytes>>20 - 1 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := wb.wait(); err != nil {
		t.Fatalf("synced before %d bytes were written: %v", writebackBytes, err)
	}
	if _, err := w.Write(append(chunk, 'x')); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := wb.wait(); err == nil {
		t.Fatalf("no early sync after %d bytes (a pipe's fsync fails)", wb.written)
	}
}

// An early sync that failed fails Commit: Linux reports a write-back error
// to one fsync only, so the final sync alone could succeed over lost data.
// Nothing is published.
func TestBackupEarlySyncErrorFailsCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.jsonl")
	bw, err := CreateBackup(path, Header{Prefixes: []string{"p/"}})
	if err != nil {
		t.Fatal(err)
	}
	bw.w, bw.wb = newBackupFile(pipeFile(t))
	value := bytes.Repeat([]byte{'v'}, 1<<16)
	for i := 0; bw.wb.written < writebackBytes; i++ {
		if err := bw.Add(Entry{Key: "p/k", Value: value, ModRevision: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	err = bw.Commit()
	if err == nil || !strings.Contains(err.Error(), "backup: sync") {
		t.Fatalf("Commit after a failed early sync: %v, want the sync's error", err)
	}
	if _, serr := os.Lstat(path); !os.IsNotExist(serr) {
		t.Fatalf("a backup was published after a failed sync: %v", serr)
	}
}
