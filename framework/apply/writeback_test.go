package apply

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// The backup is synced early each writebackBytes written, one sync at a
// time, and not before.
func TestBackupSyncsEarlyEachWritebackBytes(t *testing.T) {
	if !earlySyncs {
		t.Skip("early syncs are Linux's")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, wb := newBackupFile(f)
	var syncs atomic.Int32
	hold := make(chan struct{})
	wb.sync = func() error {
		if syncs.Add(1) == 1 {
			<-hold
		}
		return nil
	}
	mib := bytes.Repeat([]byte{'x'}, 1<<20)
	write := func(n int) {
		t.Helper()
		for range n {
			if _, err := w.Write(mib); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	write(writebackBytes>>20 - 1)
	if n := syncs.Load(); n != 0 {
		t.Fatalf("%d early syncs before %d bytes were written", n, writebackBytes)
	}
	write(1)
	write(writebackBytes >> 20) // the first sync still under way: no second
	close(hold)
	if err := wb.wait(); err != nil {
		t.Fatal(err)
	}
	if n := syncs.Load(); n != 1 {
		t.Fatalf("%d early syncs while the first was under way, want 1", n)
	}
	write(writebackBytes >> 20)
	if err := wb.wait(); err != nil {
		t.Fatal(err)
	}
	if n := syncs.Load(); n != 2 {
		t.Fatalf("%d early syncs after %d MiB, want 2", n, 3*writebackBytes>>20)
	}
}

// failingSyncBackup is a backup at path whose early syncs fail, written
// past its first early sync; it returns the syncs' error.
func failingSyncBackup(t *testing.T, path string) (*BackupWriter, error) {
	t.Helper()
	if !earlySyncs {
		t.Skip("early syncs are Linux's")
	}
	bw, err := CreateBackup(path, Header{Prefixes: []string{"p/"}})
	if err != nil {
		t.Fatal(err)
	}
	errEIO := errors.New("input/output error")
	bw.wb.sync = func() error { return errEIO }
	value := bytes.Repeat([]byte{'v'}, 1<<16)
	for i := 0; bw.wb.written < writebackBytes; i++ {
		if err := bw.Add(Entry{Key: "p/k", Value: value, ModRevision: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	return bw, errEIO
}

// An early sync that failed fails Commit, as it does when the header is
// rewritten (the copy reads back what the failed sync may have lost):
// Linux reports a write-back error to one fsync only, so the final sync
// alone could succeed over lost data. Nothing is published, no temporary
// file stays.
func TestBackupEarlySyncErrorFailsCommit(t *testing.T) {
	for _, amended := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "b.jsonl")
		bw, errEIO := failingSyncBackup(t, path)
		if amended {
			bw.setHeader(Header{Prefixes: []string{"p/"}, Command: "changed after the scan"})
		}
		err := bw.Commit()
		if !errors.Is(err, errEIO) || !strings.Contains(err.Error(), "backup: sync") {
			t.Fatalf("amended %v: Commit after a failed early sync: %v, want the sync's error", amended, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("amended %v: %d files left after a failed sync (%s...)", amended, len(left), left[0].Name())
		}
	}
}
