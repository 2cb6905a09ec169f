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

	clientv3 "go.etcd.io/etcd/client/v3"
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
//	HERON_APPLY_PAUSE_AFTER_TXNS=3   the txn point: after the 3rd committed transaction, not the 1st
//	HERON_APPLY_BREAK=no-revision-compare|no-session-compare|late-backup
//	                                 a deliberately broken build, which the chaos checker
//	                                 (tests/chaos) must catch: transactions without their keys'
//	                                 mod-revision compares, or without the session guard's; or
//	                                 the backup published only after the first transaction
//
// broken is HERON_APPLY_BREAK as the last job read it (failpointsFromEnv
// refuses an unknown value before a run starts).
var broken atomic.Value

// breakage is the breakage in force ("": none).
func breakage() string {
	b, _ := broken.Load().(string)
	return b
}

// txnCompares drops, under HERON_APPLY_BREAK, the compares the breakage
// names; else it is the release build's (nofailpoints.go).
func txnCompares(keys, guards []clientv3.Cmp) []clientv3.Cmp {
	switch breakage() {
	case BreakRevisionCompare:
		return append(keys[:0], guards...)
	case BreakSessionCompare:
		return keys
	}
	return append(keys, guards...)
}

// lateSuffix: where HERON_APPLY_BREAK=late-backup keeps the published
// backup until the first transaction committed.
const lateSuffix = ".late"

// openReplay opens the published backup, or where late-backup hid it.
func openReplay(path string) (*BackupReader, error) {
	if breakage() == BreakLateBackup {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return OpenBackup(path + lateSuffix)
		}
	}
	return OpenBackup(path)
}

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
	switch b := os.Getenv(EnvBreak); b {
	case "", BreakRevisionCompare, BreakSessionCompare, BreakLateBackup:
		broken.Store(b)
	default:
		return opt, fmt.Errorf("$%s=%q is not %s, %s or %s", EnvBreak, b, BreakRevisionCompare, BreakSessionCompare, BreakLateBackup)
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
			after, err := num(EnvPauseAfterTxns)
			if err != nil {
				return opt, err
			}
			prev := opt.AfterTxn
			opt.AfterTxn = func(n int) error {
				if prev != nil {
					if err := prev(n); err != nil {
						return err
					}
				}
				if n >= after && (!pausedOnce.Swap(true) || every) {
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
	if breakage() == BreakLateBackup {
		lateBackup(&opt)
	}
	return opt, nil
}

// lateBackup hides the backup once published and publishes it again only
// after the first transaction's hooks ran (a kill there leaves none).
func lateBackup(opt *Options) {
	var path string
	prevBackup, prevTxn := opt.AfterBackup, opt.AfterTxn
	opt.AfterBackup = func(p string) error {
		if prevBackup != nil {
			if err := prevBackup(p); err != nil {
				return err
			}
		}
		path = p
		return os.Rename(p, p+lateSuffix)
	}
	opt.AfterTxn = func(n int) error {
		if prevTxn != nil {
			if err := prevTxn(n); err != nil {
				return err
			}
		}
		if n == 1 && path != "" {
			return os.Rename(path+lateSuffix, path)
		}
		return nil
	}
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
