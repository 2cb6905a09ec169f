package apply

// The names of the failpoints build's environment hooks (failpoints.go,
// `-tags failpoints`), here in every build so that the tests that drive that
// binary (tests/e2e, tests/chaos) name them from one place; the release
// build reads none of them.
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
	EnvPauseAfterTxns   = "HERON_APPLY_PAUSE_AFTER_TXNS"
	EnvBreak            = "HERON_APPLY_BREAK"
)

// The deliberate breakages of HERON_APPLY_BREAK.
const (
	BreakRevisionCompare = "no-revision-compare"
	BreakSessionCompare  = "no-session-compare"
	BreakLateBackup      = "late-backup"
)

// PauseTxn is the HERON_APPLY_PAUSE point after a committed transaction:
// the pause holds the writer (its AfterTxn hook runs under the writer's
// lock), so with one transaction in flight (--max-inflight 1) no other is
// sent meanwhile, and a test acts on etcd between two transactions instead
// of guessing when a throttled run has written.
const PauseTxn = "txn"
