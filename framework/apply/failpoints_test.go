//go:build failpoints

package apply

import (
	"errors"
	"os"
	"testing"
	"time"
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
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(file); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first transaction's hook did not create the pause file")
		}
	}
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
