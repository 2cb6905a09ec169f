//go:build failpoints

package apply

import (
	"errors"
	"os"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestFromEnv(t *testing.T) {
	t.Setenv(EnvFailAfterTxns, "2")
	t.Setenv(EnvTxnDelay, "1ms")
	opt, err := fromEnv(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opt.AfterTxn(1) != nil || !errors.Is(opt.AfterTxn(2), ErrHookStop) {
		t.Fatal("hook")
	}
	t.Setenv(EnvTxnDelay, "soon")
	if _, err := fromEnv(Options{}); err == nil {
		t.Fatal("bad duration accepted")
	}
	t.Setenv(EnvTxnDelay, "")
	for _, bad := range []string{"scan", "verify:/tmp/x", "scan:"} {
		t.Setenv(EnvPause, bad)
		if _, err := fromEnv(Options{}); err == nil {
			t.Fatalf("%s=%q accepted", EnvPause, bad)
		}
	}
	t.Setenv(EnvPause, PauseReadBack+":"+t.TempDir()+"/pause")
	if opt, err := fromEnv(Options{}); err != nil || opt.Pause == nil {
		t.Fatalf("%s: %v", EnvPause, err)
	}
}

// waitPaused waits (10 s at most, else fails with why) for a pause hook to
// create its file.
func waitPaused(t *testing.T, file, why string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(file); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
	}
}

// HERON_APPLY_PAUSE=txn:FILE holds the AfterTxn hook of the first committed
// transaction until FILE is removed, and only the first: the e2e scripts act
// on etcd between two transactions with it.
func TestPauseTxn(t *testing.T) {
	pausedOnce.Store(false)
	t.Cleanup(func() { pausedOnce.Store(false) })
	file := t.TempDir() + "/pause"
	t.Setenv(EnvPause, PauseTxn+":"+file)
	opt, err := fromEnv(Options{})
	if err != nil || opt.AfterTxn == nil {
		t.Fatalf("%s: %v", EnvPause, err)
	}
	done := make(chan error, 1)
	go func() { done <- opt.AfterTxn(1) }()
	waitPaused(t, file, "the first transaction's hook did not create the pause file")
	select {
	case err := <-done:
		t.Fatalf("the hook returned (%v) while the pause file exists", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := opt.AfterTxn(2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the second transaction paused again: %v", err)
	}
}

// HERON_APPLY_PAUSE_AFTER_TXNS moves the txn pause to a later transaction.
func TestPauseAfterTxns(t *testing.T) {
	pausedOnce.Store(false)
	t.Cleanup(func() { pausedOnce.Store(false) })
	file := t.TempDir() + "/pause"
	t.Setenv(EnvPause, PauseTxn+":"+file)
	t.Setenv(EnvPauseAfterTxns, "3")
	opt, err := fromEnv(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		if err := opt.AfterTxn(n); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("paused after transaction %d, want 3", n)
		}
	}
	done := make(chan error, 1)
	go func() { done <- opt.AfterTxn(3) }()
	waitPaused(t, file, "no pause after transaction 3")
	_ = os.Remove(file)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// HERON_APPLY_BREAK: each breakage changes what a transaction compares,
// or when the backup is published; an unknown one is refused.
func TestBreakages(t *testing.T) {
	t.Cleanup(func() { broken.Store("") })
	keys := func() []clientv3.Cmp {
		return []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision("k"), "=", 1)}
	}
	guards := []clientv3.Cmp{clientv3.Compare(clientv3.LeaseValue("s"), "=", clientv3.NoLease)}
	for _, c := range []struct {
		breakage string
		want     int
	}{{"", 2}, {BreakRevisionCompare, 1}, {BreakSessionCompare, 1}} {
		t.Setenv(EnvBreak, c.breakage)
		if _, err := fromEnv(Options{}); err != nil {
			t.Fatal(err)
		}
		if got := txnCompares(keys(), guards); len(got) != c.want {
			t.Errorf("%s=%q: %d compares, want %d", EnvBreak, c.breakage, len(got), c.want)
		}
	}
	t.Setenv(EnvBreak, "everything")
	if _, err := fromEnv(Options{}); err == nil {
		t.Fatalf("%s=everything accepted", EnvBreak)
	}

	// late-backup: the published backup is hidden until the first
	// transaction's hooks ran, and the write pass still reads it.
	t.Setenv(EnvBreak, BreakLateBackup)
	opt, err := fromEnv(Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/backup.jsonl"
	bw, err := CreateBackup(path, Header{Command: "test", RootPath: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := opt.AfterBackup(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the backup is still published before the first transaction: %v", err)
	}
	br, err := openReplay(path)
	if err != nil {
		t.Fatalf("the write pass cannot read the hidden backup: %v", err)
	}
	_ = br.Close()
	if err := opt.AfterTxn(1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the backup is not published after the first transaction: %v", err)
	}
}
