// Package apply is the write kit shared by every write command (README.md
// beside this file): a command's Build returns a complete Plan, a value, and
// stages its ops through a Stage as it scans (a temporary backup of every
// key it touches: old values, and new ones unless a registered Rule derives
// them). The kit renders the plan, refuses it, asks, publishes the backup,
// writes the ops rebuilt from the backup file in etcd transactions guarded
// by the mod revisions the plan read (checking transaction by transaction
// that it writes exactly what was staged), verifies, and renders the run,
// with no call back into the command. It knows nothing of Milvus; etcd is
// reached only through a Store.
package apply

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Op is one key a plan changes.
type Op struct {
	// Key is the absolute etcd key.
	Key string
	// ModRevision is the key's mod revision as the plan read it; 0 means the
	// key must not exist. The transaction that writes the op compares it.
	ModRevision int64
	// Value is the new value (ignored for deletes).
	Value []byte
	// Delete removes the key instead of putting Value.
	Delete bool
	// Original is the value as read (nil when ModRevision is 0): it goes into
	// the backup.
	Original []byte
	// Phase orders the writes: ops come in nondecreasing Phase, and every op
	// of a phase is committed before any op of a later phase is sent. Within a
	// phase transactions may be in flight concurrently, so a plan puts in one
	// phase only ops whose relative order does not matter.
	Phase int
}

// Store is how Apply reaches etcd: transactions only (*clientv3.Client and
// *instance.Instance are Stores). A Store's Txn keeps nothing of the
// compares and ops it was given once Commit returned (the writer reuses
// them for its next transaction).
type Store interface {
	Txn(ctx context.Context) clientv3.Txn
}

// Source streams a plan's operations to yield, stopping at the first error
// yield returns (and returning it). Every call must produce the same ops in
// the same order. The stall watchdog hears every etcd answer of a client
// dialed with DialOptions.
type Source func(ctx context.Context, yield func(Op) error) error

// Header is the first line of a backup file: what wrote it and against what.
// It never holds credentials.
type Header struct {
	// Format is set by Apply to BackupFormat.
	Format    int       `json:"heron_backup"`
	Command   string    `json:"command"`
	Created   time.Time `json:"created"`
	Endpoints []string  `json:"endpoints,omitempty"`
	RootPath  string    `json:"root_path"`
	MetaRoot  string    `json:"meta_root,omitempty"`
	// Revision is the etcd revision the plan was read at.
	Revision int64    `json:"revision"`
	Target   string   `json:"target,omitempty"`
	Scope    []string `json:"scope,omitempty"`
	// Prefix is what a full backup (the backup command) holds: every key
	// under it, absolute.
	Prefix string `json:"prefix,omitempty"`
	// Prefixes are the key prefixes (absolute, ending in "/") the command
	// writes: the backup writer refuses an entry outside them, and restore
	// refuses a file that holds one. Empty: any key (backups written before
	// heron recorded them).
	Prefixes []string `json:"prefixes,omitempty"`
	// SplitState: the plan found a split state (an interrupted run), so the
	// backup holds the values that run left, not the original ones.
	SplitState bool `json:"split_state,omitempty"`
	// Continues is the backup of the interrupted run this one continues
	// (the latest earlier backup of the root path by the same command);
	// OriginalBackup is the backup of the values before the first run of the
	// chain. Restoring them newest first rolls every run back.
	Continues      string `json:"continues,omitempty"`
	OriginalBackup string `json:"original_backup,omitempty"`
	// Rule names the registered pure rule (RegisterRule) that derives each
	// staged key's new value again from its backed-up old value, with
	// RuleParams; empty: every put entry carries its new value ("new").
	Rule       string          `json:"rule,omitempty"`
	RuleParams json.RawMessage `json:"rule_params,omitempty"`
	// RestoreOrder groups the entries' phases in the order a restore writes
	// them back, one restore phase per group (phases not named go last);
	// empty: in one phase. The command that made the backup says it.
	RestoreOrder [][]int `json:"restore_order,omitempty"`
	// AfterRestore names the check a restore of this backup runs once its
	// keys read back (states/gates registers them): "split-state".
	AfterRestore string `json:"after_restore,omitempty"`
	// External are the command's effects outside etcd (objects it
	// deletes), which the file does not hold: apply --file refuses a plan
	// that names any, and restore does not bring them back.
	External []EffectInfo `json:"external,omitempty"`
	// Heron is the version and build of the heron that planned (Build).
	Heron string `json:"heron,omitempty"`
	// Planner is the registered write command that planned the file's ops
	// ("reset checkpoint") and Params its flags as words
	// (framework.RecordedFlags: never a secret): apply --file plans again
	// with them (Replay) and writes only what that plan writes; restore
	// restores only keys that command writes.
	Planner string   `json:"planner,omitempty"`
	Params  []string `json:"params,omitempty"`
}

// Allows reports whether key is under one of the header's prefixes (any key
// when it records none).
func (h Header) Allows(key string) bool {
	if len(h.Prefixes) == 0 {
		return true
	}
	for _, p := range h.Prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// BackupFormat is the version of the backup file format.
const BackupFormat = 1

// Defaults of Options.
const (
	DefaultMaxTxnOps = 128
	// DefaultMaxTxnBytes keeps a transaction under etcd's default request
	// limit of 1.5 MiB with room for the compares and the framing.
	DefaultMaxTxnBytes = 1400 * 1024
	// DefaultConcurrency is --max-inflight's default (framework.WriteFlags
	// says it again, as a tag): etcd batches the proposals in flight into
	// one raft entry and one WAL fsync, so on a disk-backed member several
	// transactions in flight write more keys a second than one at a time
	// (bench/run.sh, etcd 3.5, 100k segments: docs/benchmark.md), while on
	// tmpfs, where etcd is bound by CPU, more in flight gain little; each
	// one in flight holds its request (up to DefaultMaxTxnBytes).
	DefaultConcurrency      = 4
	DefaultTxnTimeout       = 30 * time.Second
	DefaultStallTimeout     = 30 * time.Second
	DefaultProgressInterval = 2 * time.Second
)

// Options tune Apply. The zero value of each field means its default.
type Options struct {
	// MaxTxnOps bounds the ops (and so the compares) of one transaction.
	MaxTxnOps int
	// MaxTxnBytes bounds the bytes of ops of one transaction (their share of
	// etcd's request, opBytes), below what MaxRequestBytes leaves them; an op
	// larger than that still goes, alone in its transaction.
	MaxTxnBytes int
	// MaxRequestBytes is the etcd server's --max-request-bytes (0: its
	// default): a staged put that does not fit in one request refuses the
	// plan (RequestLimitName), and MaxTxnBytes defaults to a share of it.
	MaxRequestBytes int
	// Concurrency is how many transactions of one phase may be in flight
	// (--max-inflight; 1: one at a time, in order). Phases are barriers:
	// every transaction of a phase has committed before the next phase's
	// first is sent, and a failure stops the sending (those in flight
	// finish, their outcome known).
	Concurrency int
	// TxnTimeout bounds one transaction (and the read that diagnoses a failed one).
	TxnTimeout time.Duration
	// StallTimeout cancels the run when neither the source nor a transaction
	// made progress for that long (etcd gone).
	StallTimeout time.Duration

	// BackupDir is the folder the kit names backups in (BackupPath).
	BackupDir string
	// BackupPath is the file the backup is written to (the kit names it). It
	// writes it under a temporary name in the same folder, syncs file and
	// folder, and renames it; it never overwrites an existing file.
	BackupPath string
	// Header is written as the backup's first line (Format and Created are set).
	Header Header

	// Progress receives progress lines (nil: none). On a terminal the line is
	// redrawn in place; otherwise one line every ProgressInterval.
	Progress         io.Writer
	ProgressInterval time.Duration
	// Label prefixes progress lines ("reset checkpoint").
	Label string

	// AfterBackup is called once the backup is synced and renamed, before the
	// plan's effects outside etcd and the first write to etcd; an error stops
	// the run with nothing written. Tests and failpoints hook here.
	AfterBackup func(path string) error
	// AfterTxn is called after each committed transaction with the number of
	// transactions committed so far (calls are serialized). An error stops the
	// run as an interruption would: nothing more is sent (transactions already
	// in flight finish). Tests, the benchmark and kill tests hook here.
	AfterTxn func(n int) error
	// Pause is called at the points of a run where etcd compacting its
	// history matters: PauseScan once the plan staged its first op (it has
	// read at its revision and reads on), PauseReadBack once the verify
	// fixed the revision it reads the keys back at, PauseReplan once the
	// verify's re-plan read its first key. Failpoints hook here.
	Pause func(point string)
	// guards are the store's (Guarded.Guards): compared by every
	// transaction (a live key fails it, named from its own Else), so known
	// when the ops are staged: their compares take room in every
	// transaction (opsPerTxn).
	guards []Guard
	// user is the store's etcd user (its name is in every request etcd
	// measures; "": counted as maxUserNameBytes).
	user string
}

// opsPerTxn is how many ops a transaction holds: MaxTxnOps (etcd's
// --max-txn-ops, which counts the compares too) less the guards' compares.
func (o Options) opsPerTxn() int { return o.MaxTxnOps - guardCompares(o.guards) }
