// Package apply is the generic applier shared by every write command: it takes
// a plan's operations as a stream, writes a backup of every key they touch,
// then applies them in etcd transactions guarded by the mod revisions the plan
// read, with progress on stderr. It knows nothing of Milvus.
//
// A plan never hands over a slice of a million operations: it gives a Source,
// a function that regenerates the same operations, in the same order, every
// time it is called (typically by re-reading etcd at the plan's pinned
// revision, page by page, through the same pure per-key function). Apply
// runs two passes: pass 1 writes and syncs the backup, pass 2 writes etcd
// (rebuilding the ops from the backup with Options.Replay, or calling the
// source again), and checks transaction by transaction that it is writing
// exactly what pass 1 backed up.
//
// Run is the kit every write command's --run goes through: a Job (name,
// backup header, ops, replay, check, verify) run under one stall watchdog,
// with the backup's name, the plan shown and approved before the first
// write, the failpoints of `-tags failpoints` builds, and errors that name
// the backup to roll back from. etcd is reached only through a Store.
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
// *instance.Instance are Stores).
type Store interface {
	Txn(ctx context.Context) clientv3.Txn
}

// Source streams a plan's operations to yield, stopping at the first error
// yield returns (and returning it). Every call must produce the same ops in
// the same order. The stall watchdog hears every etcd answer of a client
// dialed with DialOptions.
type Source func(ctx context.Context, yield func(Op) error) error

// Slice is a Source over a fixed slice of ops (tests, tiny plans).
func Slice(ops []Op) Source {
	return func(ctx context.Context, yield func(Op) error) error {
		for _, op := range ops {
			if err := yield(op); err != nil {
				return err
			}
		}
		return nil
	}
}

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
	DefaultMaxTxnBytes      = 1400 * 1024
	DefaultConcurrency      = 2
	DefaultTxnTimeout       = 30 * time.Second
	DefaultStallTimeout     = 30 * time.Second
	DefaultProgressInterval = 2 * time.Second
)

// Options tune Apply. The zero value of each field means its default.
type Options struct {
	// MaxTxnOps bounds the ops (and so the compares) of one transaction.
	MaxTxnOps int
	// MaxTxnBytes bounds the estimated request size of one transaction; an op
	// larger than that still goes, alone in its transaction.
	MaxTxnBytes int
	// Concurrency is how many transactions of one phase may be in flight.
	Concurrency int
	// TxnTimeout bounds one transaction (and the read that diagnoses a failed one).
	TxnTimeout time.Duration
	// StallTimeout cancels the run when neither the source nor a transaction
	// made progress for that long (etcd gone).
	StallTimeout time.Duration

	// BackupDir is the folder the kit names backups in (BackupPath).
	BackupDir string
	// BackupPath is the file the backup is written to (required). Apply
	// writes it under a temporary name in the same folder, syncs file and
	// folder, and renames it; it never overwrites an existing file.
	BackupPath string
	// Header is written as the backup's first line (Format and Created are set by Apply).
	Header Header

	// Total is the number of ops the plan counted; when set, a source that
	// yields a different number fails pass 1, before anything is written.
	Total int64
	// Progress receives progress lines (nil: none). On a terminal the line is
	// redrawn in place; otherwise one line every ProgressInterval.
	Progress         io.Writer
	ProgressInterval time.Duration
	// Label prefixes progress lines ("reset checkpoint").
	Label string

	// Replay, when set, makes pass 2 read the ops back from the backup file
	// instead of calling the source again: it rebuilds each op from its
	// backup entry (key, value and mod revision as read) with the plan's pure
	// per-key function. Pass 2 then costs no etcd reads. The rebuilt ops must
	// equal pass 1's, which Apply checks transaction by transaction.
	Replay func(e Entry) (Op, error)

	// Check, when set, is called after pass 1 read every op and wrote it to
	// the temporary backup file, before the file is synced and published: an
	// error removes the file and stops the run with nothing written (Apply
	// returns the error as it is). A source that plans while it yields (the
	// plan and the backup from one read) checks its gates here.
	Check func() error
	// Amend, when set, is called once Check passed, with the header, which
	// it may complete with what pass 1 found (Run records the backup chain
	// there); the published file starts with the amended header.
	Amend func(h *Header) error
	// Approve, when set, is called once pass 1 is done and Check passed, with
	// the number of ops, before the backup is published (not when SkipEmpty
	// skipped an empty run): an error removes the file and stops the run with
	// nothing written (Apply returns the error as it is).
	Approve func(ops int64) error
	// SkipEmpty: when pass 1 yields no op, remove the backup file instead of
	// publishing an empty one (Result.Backup stays "").
	SkipEmpty bool

	// AfterBackup is called once the backup is synced and renamed, before the
	// first write to etcd; an error stops the run with nothing written.
	AfterBackup func(path string) error
	// AfterTxn is called after each committed transaction with the number of
	// transactions committed so far (calls are serialized). An error stops the
	// run as an interruption would: nothing more is sent (transactions already
	// in flight finish). Tests, the benchmark and kill tests hook here.
	AfterTxn func(n int) error
}
