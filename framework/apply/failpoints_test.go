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
}
