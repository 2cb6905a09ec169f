package restore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// countOpens counts the opens of path until the returned function is
// called, which returns the count (inotify: every open of the file by this
// process or any other).
func countOpens(t *testing.T, path string) func() int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	// Closes are watched too: two opens in a row with no event read
	// between them would be merged into one event.
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_OPEN|syscall.IN_CLOSE_NOWRITE|syscall.IN_CLOSE_WRITE); err != nil {
		_ = syscall.Close(fd)
		t.Fatalf("inotify watch %s: %v", path, err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	var opens int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			for b := buf[:n]; len(b) >= syscall.SizeofInotifyEvent; {
				mask := binary.NativeEndian.Uint32(b[4:8])
				size := syscall.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(b[12:16]))
				if mask&syscall.IN_OPEN != 0 {
					opens++
				}
				b = b[min(size, len(b)):]
			}
		}
	}()
	return func() int {
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			t.Error(err)
		}
		wg.Wait()
		return opens
	}
}

// A restore --run opens its backup once: its check, every phase of its
// scan and its verify (proven by the run's revisions) read that one open
// file; a dry run too. At most twice is the promise (a verify that must
// read the keys again opens it once more).
func TestRestoreOpensItsBackupOnce(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	original := e.dump()
	backup := e.resetRun()

	done := countOpens(t, backup)
	if out, errs, code := e.run("restore --format json --file " + backup); code != 0 {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errs)
	}
	if n := done(); n != 1 {
		t.Errorf("the dry run opened the backup %d times, want 1", n)
	}
	done = countOpens(t, backup)
	out, errs, code := e.run("restore --format json --backup-dir " + e.dir + " --file " + backup + " --run")
	if n := done(); n > 2 || n < 1 {
		t.Errorf("restore --run opened the backup %d times, want at most 2", n)
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var res RunResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Verify.OK || res.Verify.ReadBack != "proven by revisions" || res.Plan.Entries != 18 {
		t.Fatalf("result %+v %+v", res.Verify, res.Plan)
	}
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ after restore: %v", d)
	}
}
