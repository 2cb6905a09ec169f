//go:build failpoints

package apply

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Failpoints: environment hooks for the kill and fault tests, which drive the
// built binary and cannot reach Options. They are compiled only into
// `go build -tags failpoints` (make build-failpoints: bin/heron-failpoints),
// the way etcd compiles its gofail failpoints only into failpoint builds; the
// release binary reads none of these variables (nofailpoints.go). Run calls
// fromEnv on the options of every job; unset variables change nothing.
//
//	HERON_APPLY_TXN_DELAY=50ms       sleep after each committed transaction (a throttled run)
//	HERON_APPLY_KILL_AFTER_TXNS=5    SIGKILL heron itself right after the 5th transaction
//	HERON_APPLY_KILL_AFTER_BACKUP=1  SIGKILL heron once the backup is synced, before any write
//	HERON_APPLY_FAIL_AFTER_TXNS=5    stop cleanly (exit 1) after the 5th transaction
//	HERON_APPLY_STALL_TIMEOUT=5s     give up when etcd answers nothing for that long
//	HERON_APPLY_TXN_TIMEOUT=5s       timeout of one transaction
//	HERON_APPLY_PROGRESS_INTERVAL=1s progress line interval when stderr is not a terminal
//	HERON_APPLY_PAUSE=scan:/tmp/p    at the point (scan, read-back, replan: Options.Pause; txn: once a
//	                                 transaction committed), once a process, create the file and wait
//	                                 until it is removed (a test acts on etcd meanwhile)
//	HERON_APPLY_PAUSE_EVERY=1        pause at every time the run reaches the point, not once
const (
	EnvTxnDelay         = "HERON_APPLY_TXN_DELAY"
	EnvKillAfterTxns    = "HERON_APPLY_KILL_AFTER_TXNS"
	EnvKillAfterBackup  = "HERON_APPLY_KILL_AFTER_BACKUP"
	EnvFailAfterTxns    = "HERON_APPLY_FAIL_AFTER_TXNS"
	EnvStallTimeout     = "HERON_APPLY_STALL_TIMEOUT"
	EnvTxnTimeout       = "HERON_APPLY_TXN_TIMEOUT"
	EnvProgressInterval = "HERON_APPLY_PROGRESS_INTERVAL"
	EnvPause            = "HERON_APPLY_PAUSE"
	EnvPauseEvery       = "HERON_APPLY_PAUSE_EVERY"
)

// PauseTxn is the HERON_APPLY_PAUSE point after a committed transaction:
// the pause holds the writer (its AfterTxn hook runs under the writer's
// lock), so with one transaction in flight (--max-inflight 1) no other is
// sent meanwhile, and a test acts on etcd between two transactions instead
// of guessing when a throttled run has written.
const PauseTxn = "txn"

// ErrHookStop is the error of a run stopped by HERON_APPLY_FAIL_AFTER_TXNS.
var ErrHookStop = errors.New("stopped by " + EnvFailAfterTxns)

func fromEnv(opt Options) (Options, error) { return failpointsFromEnv(opt) }

// failpointsFromEnv adds the environment hooks to opt (chaining any AfterTxn
// and AfterBackup already set) and returns it; a malformed value is an error.
func failpointsFromEnv(opt Options) (Options, error) {
	dur := func(name string, dst *time.Duration) error {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("$%s=%q is not a duration", name, v)
			}
			*dst = d
		}
		return nil
	}
	num := func(name string) (int, error) {
		v := os.Getenv(name)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("$%s=%q is not a count", name, v)
		}
		return n, nil
	}
	var delay time.Duration
	if err := dur(EnvTxnDelay, &delay); err != nil {
		return opt, err
	}
	if err := dur(EnvStallTimeout, &opt.StallTimeout); err != nil {
		return opt, err
	}
	if err := dur(EnvTxnTimeout, &opt.TxnTimeout); err != nil {
		return opt, err
	}
	if err := dur(EnvProgressInterval, &opt.ProgressInterval); err != nil {
		return opt, err
	}
	kill, err := num(EnvKillAfterTxns)
	if err != nil {
		return opt, err
	}
	fail, err := num(EnvFailAfterTxns)
	if err != nil {
		return opt, err
	}
	killBackup, err := num(EnvKillAfterBackup)
	if err != nil {
		return opt, err
	}
	if delay > 0 || kill > 0 || fail > 0 {
		prev := opt.AfterTxn
		opt.AfterTxn = func(n int) error {
			if prev != nil {
				if err := prev(n); err != nil {
					return err
				}
			}
			if kill > 0 && n >= kill {
				failpointKillSelf()
			}
			if fail > 0 && n >= fail {
				return ErrHookStop
			}
			if delay > 0 {
				time.Sleep(delay)
			}
			return nil
		}
	}
	if v := os.Getenv(EnvPause); v != "" {
		point, file, ok := strings.Cut(v, ":")
		if !ok || file == "" || (point != PauseScan && point != PauseReadBack && point != PauseReplan && point != PauseTxn) {
			return opt, fmt.Errorf("$%s=%q is not %s:FILE, %s:FILE, %s:FILE or %s:FILE", EnvPause, v, PauseScan, PauseReadBack, PauseReplan, PauseTxn)
		}
		every := os.Getenv(EnvPauseEvery) == "1"
		if point == PauseTxn {
			prev := opt.AfterTxn
			opt.AfterTxn = func(n int) error {
				if prev != nil {
					if err := prev(n); err != nil {
						return err
					}
				}
				if !pausedOnce.Swap(true) || every {
					failpointPause(file)
				}
				return nil
			}
		} else {
			prev := opt.Pause
			opt.Pause = func(at string) {
				if prev != nil {
					prev(at)
				}
				if at == point && (!pausedOnce.Swap(true) || every) {
					failpointPause(file)
				}
			}
		}
	}
	if killBackup > 0 {
		prev := opt.AfterBackup
		opt.AfterBackup = func(path string) error {
			if prev != nil {
				if err := prev(path); err != nil {
					return err
				}
			}
			failpointKillSelf()
			return nil
		}
	}
	return opt, nil
}

// pausedOnce: HERON_APPLY_PAUSE paused this process already (a plan read
// again runs the hooks again).
var pausedOnce atomic.Bool

// failpointPause creates file and waits until it is removed (at most a
// minute, so that a failed test leaves no process behind).
func failpointPause(file string) {
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		return
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			return
		}
	}
}

// failpointKillSelf ends the process as SIGKILL would: no deferred call runs.
func failpointKillSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	time.Sleep(time.Minute)
	os.Exit(137)
}
