//go:build unix

package apply_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/heron-shell/heron/framework/apply"
)

// A plan or backup that is not a regular file (a FIFO, which would block
// the open, a device such as /dev/zero, which never ends) is refused before
// it is read; a line longer than the bound (a file without a newline) is
// refused without reading it whole into memory.
func TestBackupReadersAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "long.jsonl")
	if err := os.WriteFile(long, bytes.Repeat([]byte("x"), 33<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:        "is not a regular file (a FIFO)",
		"/dev/zero": "is not a regular file (a device)",
		dir:         "is not a regular file (a folder)",
		long:        "line 1 is longer than 32 MiB: not a heron backup",
	} {
		if _, err := apply.VerifyBackup(path, false, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
		if _, err := apply.ReadBackupHeader(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("header of %s: %v, want %q", path, err, want)
		}
	}
}
