//go:build failpoints

package apply

import (
	"errors"
	"testing"
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
