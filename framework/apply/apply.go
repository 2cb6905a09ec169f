package apply

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"sync"
	"time"
	"unsafe"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Result is what Apply did.
type Result struct {
	// Backup is the path of the backup file ("" when nothing was backed up).
	Backup string `json:"backup"`
	// BackupDeleted: the backup file (or its folder) was deleted during the run.
	BackupDeleted bool `json:"backup_deleted,omitempty"`
	// Keys is the number of ops of the plan; PlannedPuts and PlannedDeletes
	// split it.
	Keys           int64 `json:"keys"`
	PlannedPuts    int64 `json:"planned_puts"`
	PlannedDeletes int64 `json:"planned_deletes"`
	// Written is the number of keys committed (Puts and Deletes split it:
	// a stopped run counts what it wrote), Txns the transactions.
	Written int64 `json:"written"`
	Puts    int64 `json:"puts"`
	Deletes int64 `json:"deletes"`
	Txns    int   `json:"txns"`
	// MaxInflight is how many transactions of one phase were let in flight
	// (--max-inflight).
	MaxInflight int `json:"max_inflight"`
	// SplitState, Continues and OriginalBackup are the header's: the run
	// continued an interrupted one (see Header).
	SplitState     bool   `json:"split_state,omitempty"`
	Continues      string `json:"continues,omitempty"`
	OriginalBackup string `json:"original_backup,omitempty"`
	// Seconds is the whole run but the time spent at the question: the
	// scan (the plan's one read, staging the backup), publishing the backup,
	// the writes and the verify.
	ScanSeconds   float64 `json:"scan_seconds"`
	BackupSeconds float64 `json:"backup_seconds"`
	WriteSeconds  float64 `json:"write_seconds"`
	VerifySeconds float64 `json:"verify_seconds"`
	Seconds       float64 `json:"seconds"`
	// KeysPerSecond is the write throughput of pass 2.
	KeysPerSecond float64 `json:"keys_per_second"`
}

// ConflictError is a transaction whose compare failed: a key changed after
// the plan read it.
type ConflictError struct {
	Key string
	// Revision is the revision the plan was read at.
	Revision int64
	// Read is the key's mod revision as read; Now its mod revision now (0: deleted).
	Read, Now int64
	// Written keys were committed before the run stopped; Later of them by
	// transactions of the same phase sent after the failed one.
	Written, Total int64
	Later          int64
	// Running names the Milvus component live when the compare failed
	// (LiveError.Running; "": none found).
	Running string
}

func (e *ConflictError) Error() string {
	now := fmt.Sprint(e.Now)
	if e.Now == 0 {
		now = "0: deleted"
	}
	after := "nothing after it was written"
	if e.Later > 0 {
		after = fmt.Sprintf("%d keys of the same kind sent alongside it were written", e.Later)
	}
	if e.Running != "" {
		return fmt.Sprintf("key %s changed since the plan was read at revision %d (mod revision %d, now %s): a Milvus component is running: %s; %s (%d of %d keys written in all); stop it (every component), then re-run heron to complete",
			keyText(e.Key), e.Revision, e.Read, now, e.Running, after, e.Written, e.Total)
	}
	if e.Written == 0 {
		return fmt.Sprintf("key %s changed since the plan was read at revision %d (mod revision %d, now %s): another writer (another heron run, or Milvus) moved the instance on; no key of this run was written; read the instance again (the command's dry run) before running anything",
			keyText(e.Key), e.Revision, e.Read, now)
	}
	return fmt.Sprintf("key %s changed since the plan was read at revision %d (mod revision %d, now %s): another writer (another heron run, or Milvus) moved the instance on; %s (%d of %d keys written in all); read the instance (the command's dry run, show checkpoint) before completing or rolling back",
		keyText(e.Key), e.Revision, e.Read, now, after, e.Written, e.Total)
}

// InterruptedError is a run stopped after some transactions: by the AfterTxn
// hook, a cancelled context, or a failed transaction.
type InterruptedError struct {
	Err            error
	Txns           int
	Written, Total int64
}

func (e *InterruptedError) Error() string {
	next := "re-run heron to complete"
	if e.Written == 0 {
		next = "re-run heron to apply the plan"
	}
	var le *LimitError
	if errors.As(e.Err, &le) {
		next = "re-run heron to complete once " + le.Fix
	}
	var re *RefusedTxnError
	if errors.As(e.Err, &re) && re.Once != "" {
		next = "re-run heron to complete once " + re.Once
	}
	why := e.Err.Error()
	if errors.Is(e.Err, context.Canceled) {
		why = "interrupted"
	}
	return fmt.Sprintf("%s: stopped after %d transactions, %d of %d keys written; %s", why, e.Txns, e.Written, e.Total, next)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

func (o Options) withDefaults() Options {
	if o.MaxTxnOps <= 0 {
		o.MaxTxnOps = DefaultMaxTxnOps
	}
	if o.MaxTxnBytes <= 0 {
		o.MaxTxnBytes = DefaultMaxTxnBytes
		if o.MaxRequestBytes > DefaultMaxRequestBytes {
			// The same room for the compares and framing as by default.
			o.MaxTxnBytes = o.MaxRequestBytes - (DefaultMaxRequestBytes - DefaultMaxTxnBytes)
		}
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.TxnTimeout <= 0 {
		o.TxnTimeout = DefaultTxnTimeout
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = DefaultProgressInterval
	}
	if o.Label == "" {
		o.Label = "apply"
	}
	return o
}

// Staged is pass 1 done or under way: the ops counted and hashed
// transaction by transaction, and the backup of their keys written to a
// temporary file; commit publishes it and writes the ops.
type Staged struct {
	ctx   context.Context
	opt   Options
	start time.Time
	// scan is how long pass 1 took.
	scan   time.Duration
	bw     *BackupWriter
	b1     *batcher
	seed   maphash.Seed
	hashes []uint64
	res    Result
	prog   *progress
	// The transaction of the most ops: its size and first key.
	biggestOps int
	// limit counts the staged puts over etcd's request limit.
	limit      RequestLimit
	biggestKey string
	phases     map[int]bool
	// probe checks, before the first write, that the user may write every
	// prefix the ops touch.
	probe *prober
	// revs is the revision each transaction committed at, by its number
	// (the verify proves the read-back from them).
	revs []int64
	// pausedScan: the Pause hook ran at PauseScan.
	pausedScan bool
	// backup is the goroutine that writes the staged batches into bw, so
	// the scan does not wait for the file.
	backup *backupWriting
}

// stagedBatches is how many batches the scan may stage ahead of the
// backup's writes (128 ops each: a few MiB at most).
const stagedBatches = 8

// backupWriting writes batches into a backup on a goroutine of its own:
// the scan hands over a batch and goes on deciding keys while the
// encoding and the file's writes of the previous ones run beside it.
type backupWriting struct {
	batches chan *batch
	failed  chan struct{} // closed when a write failed (the scan stops)
	done    chan struct{} // closed when the goroutine ended
	err     error         // the first write error, read after done
	once    sync.Once
}

func startBackupWriting(bw *BackupWriter) *backupWriting {
	w := &backupWriting{batches: make(chan *batch, stagedBatches), failed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for bt := range w.batches {
			if w.err != nil {
				continue // drained: the scan stops at its next batch
			}
			for _, op := range bt.ops {
				if w.err = bw.add(op); w.err != nil {
					close(w.failed)
					break
				}
			}
		}
	}()
	return w
}

// send hands bt to the goroutine; a write error already met is returned.
func (w *backupWriting) send(bt *batch) error {
	select {
	case <-w.failed:
		return w.stop()
	default:
	}
	select {
	case w.batches <- bt:
		return nil
	case <-w.failed:
		return w.stop()
	}
}

// stop waits until every batch sent is written (or the goroutine stopped
// at an error) and returns the first write error; it may be called again.
func (w *backupWriting) stop() error {
	w.once.Do(func() { close(w.batches) })
	<-w.done
	return w.err
}

// The points of a run Options.Pause is called at.
const (
	PauseScan     = "scan"
	PauseReadBack = "read-back"
	// PauseReplan: once the verify's re-plan read its first key (at the
	// revision it reads at).
	PauseReplan = "replan"
)

// newStaged starts pass 1 into a temporary backup at opt.BackupPath
// (withNew: entries carry their new values).
func newStaged(opt Options, label string, withNew bool) (*Staged, error) {
	bw, err := CreateBackup(opt.BackupPath, opt.Header)
	if err != nil {
		return nil, err
	}
	bw.withNew = withNew
	st := &Staged{opt: opt, start: time.Now(), bw: bw, seed: maphash.MakeSeed(), phases: map[int]bool{}, probe: newProber(opt.Header.Prefixes), limit: newRequestLimit(opt.MaxRequestBytes, opt.guards, opt.user)}
	st.prog = startProgress(opt.Progress, label, 0, opt.ProgressInterval)
	st.backup = startBackupWriting(bw)
	st.b1 = newBatcher(opt, st.seed, func(bt *batch) error {
		if err := st.backup.send(bt); err != nil {
			return err
		}
		for _, op := range bt.ops {
			if op.Delete {
				st.res.PlannedDeletes++
			} else {
				st.res.PlannedPuts++
			}
			st.phases[op.Phase] = true
		}
		st.prog.add(len(bt.ops))
		st.hashes = append(st.hashes, bt.hash)
		if len(bt.ops) > st.biggestOps {
			st.biggestOps, st.biggestKey = len(bt.ops), bt.ops[0].Key
		}
		return nil
	})
	return st, nil
}

func (st *Staged) add(op Op) error {
	heartbeat(st.ctx)
	if st.opt.Pause != nil && !st.pausedScan {
		st.pausedScan = true
		st.opt.Pause(PauseScan)
	}
	st.probe.add(op)
	if !op.Delete {
		st.limit.Add(op.Key, op.Value)
	}
	return st.b1.add(op)
}

// close ends pass 1: the last batch staged and every batch written into
// the backup (not yet synced: publish syncs it before the first write).
func (st *Staged) close() error {
	defer func() { st.scan = time.Since(st.start) }()
	err := st.b1.flush()
	if werr := st.backup.stop(); err == nil {
		err = werr
	}
	st.prog.finish(err == nil)
	return err
}

func (st *Staged) result() *Result {
	r := st.res
	r.Keys = r.PlannedPuts + r.PlannedDeletes
	return &r
}

// Abort removes the temporary backup: nothing is published.
func (st *Staged) Abort() {
	if st != nil && st.bw != nil {
		_ = st.backup.stop()
		st.bw.Abort()
	}
}

// checkLimits: etcd refuses a transaction of more ops than its
// --max-txn-ops before applying any of it; finding that out with reads,
// before the question and the first write, spares a run that cannot
// complete. The biggest transaction counts its guards' compares too.
func (st *Staged) checkLimits(ctx context.Context, store Store) error {
	if st.biggestOps == 0 {
		return nil
	}
	return Cause(ctx, checkTxnOps(ctx, store, st.opt, st.biggestKey, st.biggestOps+guardCompares(st.opt.guards)))
}

// afterBackup runs the AfterBackup hook (tests, failpoints): an error
// stops the run before its first write.
func (st *Staged) afterBackup(res *Result) error {
	if st.opt.AfterBackup == nil {
		return nil
	}
	if err := st.opt.AfterBackup(st.opt.BackupPath); err != nil {
		return &InterruptedError{Err: err, Total: res.Keys}
	}
	return nil
}

// publish syncs and renames the backup: from here on the run has one.
func (st *Staged) publish() (*Result, error) {
	opt := st.opt
	res := st.result()
	res.ScanSeconds = st.scan.Seconds()
	bstart := time.Now()
	res.SplitState, res.Continues, res.OriginalBackup = st.bw.header.SplitState, st.bw.header.Continues, st.bw.header.OriginalBackup
	if err := st.bw.Commit(); err != nil {
		return res, err
	}
	res.Backup = opt.BackupPath
	res.BackupSeconds = time.Since(bstart).Seconds()
	res.Seconds = res.ScanSeconds + res.BackupSeconds
	return res, nil
}

// write runs pass 2 once the backup is published: the ops of src2, which
// must be pass 1's, transaction by transaction.
func (st *Staged) write(ctx context.Context, store Store, src2 Source, res *Result) (*Result, error) {
	opt := st.opt
	if res.Keys == 0 {
		return res, nil
	}

	// Pass 2: the writes.
	wstart := time.Now()
	prog := startProgress(opt.Progress, opt.Label+": write", res.Keys, opt.ProgressInterval)
	w := &writer{ctx: ctx, store: store, opt: opt, hashes: st.hashes, seed: st.seed, prog: prog, total: res.Keys,
		sem: make(chan struct{}, opt.Concurrency), phase: -1 << 62, revs: make([]int64, len(st.hashes)), guard: newGuardTxn(opt.guards)}
	b2 := newBatcher(opt, st.seed, w.send)
	b2.reuse = &w.opsFree
	err := src2(ctx, b2.add)
	if err == nil {
		err = b2.flush()
	}
	w.wg.Wait()
	prog.finish(w.err == nil && err == nil)
	res.Written, res.Puts, res.Deletes, res.Txns, res.MaxInflight = w.written, w.puts, w.deletes, w.txns, opt.Concurrency
	st.revs = w.revs
	res.WriteSeconds = time.Since(wstart).Seconds()
	res.Seconds += res.WriteSeconds
	if res.WriteSeconds > 0 {
		res.KeysPerSecond = float64(res.Written) / res.WriteSeconds
	}
	if w.err != nil {
		var ce *ConflictError
		if errors.As(w.err, &ce) {
			ce.Written, ce.Total = w.written, res.Keys
			ce.Later = w.committedAfter(w.errSeq)
			return res, ce
		}
		return res, Cause(ctx, &InterruptedError{Err: w.err, Txns: w.txns, Written: w.written, Total: res.Keys})
	}
	if err != nil {
		if w.txns == 0 {
			// No transaction failed and none committed: none was sent.
			err = &unstartedError{err}
		}
		return res, Cause(ctx, &InterruptedError{Err: err, Txns: w.txns, Written: w.written, Total: res.Keys})
	}
	if w.written != res.Keys {
		return res, &InterruptedError{Err: errors.New("the second pass yielded fewer keys than the backup"), Txns: w.txns, Written: w.written, Total: res.Keys}
	}
	return res, nil
}

// batch is the ops of one transaction.
type batch struct {
	seq   int
	phase int
	ops   []Op
	bytes int
	hash  uint64
}

// batcher cuts the op stream into transactions, the same way on both passes.
type batcher struct {
	maxOps, maxBytes int
	seed             maphash.Seed
	emit             func(*batch) error
	cur              *batch
	keys             map[string]struct{}
	seq              int
	lastPhase        int
	started          bool
	h                maphash.Hash
	// reuse holds the ops arrays of batches the writer committed (pass 2;
	// nil in pass 1, whose batches the backup keeps).
	reuse *sync.Pool
}

// newBatcher cuts transactions etcd counts as at most opt.MaxTxnOps
// operations (the ops' compares and the guards': Options.opsPerTxn) and at
// most opt.MaxTxnBytes of ops, within what etcd's request limit leaves them
// beside the guards and etcd's header (opRoom).
func newBatcher(opt Options, seed maphash.Seed, emit func(*batch) error) *batcher {
	room := opRoom(opt.MaxRequestBytes, newRequestLimit(opt.MaxRequestBytes, opt.guards, opt.user).fixed)
	b := &batcher{maxOps: opt.opsPerTxn(), maxBytes: min(opt.MaxTxnBytes, room), seed: seed, emit: emit, keys: map[string]struct{}{}}
	b.h.SetSeed(seed)
	return b
}

func (b *batcher) add(op Op) error {
	if op.Key == "" {
		return errors.New("an op has an empty key")
	}
	if b.started && op.Phase < b.lastPhase {
		return fmt.Errorf("op for %s is in phase %d after phase %d: ops must come in phase order", keyText(op.Key), op.Phase, b.lastPhase)
	}
	b.started, b.lastPhase = true, op.Phase
	size := opBytes(op.Key, op.Value, op.ModRevision, op.Delete)
	if c := b.cur; c != nil && (c.phase != op.Phase || len(c.ops) >= b.maxOps || c.bytes+size > b.maxBytes) {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if b.cur == nil {
		b.cur = &batch{seq: b.seq, phase: op.Phase, ops: b.newOps()}
		b.seq++
		b.h.Reset()
		clear(b.keys)
	}
	if _, dup := b.keys[op.Key]; dup {
		return fmt.Errorf("key %s appears twice in the plan", keyText(op.Key))
	}
	b.keys[op.Key] = struct{}{}
	b.cur.ops = append(b.cur.ops, op)
	b.cur.bytes += size
	b.hashOp(op)
	return nil
}

// newOps is an empty ops array for a batch: one the writer is done with,
// when there is one.
func (b *batcher) newOps() []Op {
	if b.reuse != nil {
		if ops, ok := b.reuse.Get().(*[]Op); ok {
			return (*ops)[:0]
		}
	}
	return make([]Op, 0, b.maxOps)
}

func (b *batcher) hashOp(op Op) {
	head := opHead(len(op.Key), op.ModRevision, len(op.Value), op.Phase, op.Delete)
	b.h.Write(head[:])
	b.h.WriteString(op.Key)
	hashTail(&b.h, op.Value, op.Original)
}

// opHead and hashTail frame an op for the transaction hash: the batcher
// hashes the op, the writer the request it built from it (checkRequest).
func opHead(keyLen int, modRevision int64, valueLen, phase int, del bool) [8 * 4]byte {
	var n [8 * 4]byte
	binary.LittleEndian.PutUint64(n[0:], uint64(keyLen))
	binary.LittleEndian.PutUint64(n[8:], uint64(modRevision))
	binary.LittleEndian.PutUint64(n[16:], uint64(valueLen))
	binary.LittleEndian.PutUint64(n[24:], uint64(phase)<<1|boolBit(del))
	return n
}

func hashTail(h *maphash.Hash, value, original []byte) {
	h.Write(value)
	var m [8]byte
	binary.LittleEndian.PutUint64(m[:], uint64(len(original)))
	h.Write(m[:])
	h.Write(original)
}

func boolBit(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

func (b *batcher) flush() error {
	if b.cur == nil || len(b.cur.ops) == 0 {
		b.cur = nil
		return nil
	}
	c := b.cur
	c.hash = b.h.Sum64()
	b.cur = nil
	return b.emit(c)
}

// errStopped tells the source to stop: the writer failed; its error is the one reported.
var errStopped = errors.New("stopped")

// writer commits batches, up to Concurrency at a time within a phase.
type writer struct {
	ctx    context.Context
	store  Store
	opt    Options
	hashes []uint64
	seed   maphash.Seed
	prog   *progress
	total  int64
	sem    chan struct{}
	wg     sync.WaitGroup
	phase  int
	// guard is what every transaction carries for the guards.
	guard *guardTxn
	// opsFree holds the ops arrays of committed batches (*[]Op), parts the
	// compares and ops of committed requests (*txnParts): the write pass
	// reuses them rather than allocating a transaction's worth each time.
	opsFree sync.Pool
	parts   sync.Pool

	mu        sync.Mutex
	err       error
	errSeq    int
	txns      int
	written   int64
	puts      int64
	deletes   int64
	committed []committedTxn
	// revs is the revision of each committed transaction, by batch number.
	revs []int64
}

type committedTxn struct {
	seq int
	n   int
}

func (w *writer) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

func (w *writer) fail(seq int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil || seq < w.errSeq {
		w.err, w.errSeq = err, seq
	}
}

func (w *writer) committedAfter(seq int) int64 {
	var n int64
	for _, c := range w.committed {
		if c.seq > seq {
			n += int64(c.n)
		}
	}
	return n
}

func (w *writer) send(bt *batch) error {
	if bt.seq >= len(w.hashes) || w.hashes[bt.seq] != bt.hash {
		w.wg.Wait()
		err := fmt.Errorf("transaction %d differs from what the backup holds (first key %s): the keys read at revision %d changed between the two passes", bt.seq+1, keyText(bt.ops[0].Key), w.opt.Header.Revision)
		w.fail(bt.seq, err)
		return errStopped
	}
	if bt.phase != w.phase {
		w.wg.Wait()
		w.phase = bt.phase
	}
	if w.failed() {
		return errStopped
	}
	select {
	case w.sem <- struct{}{}:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	if w.failed() {
		<-w.sem
		return errStopped
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() { <-w.sem }()
		w.commit(bt)
		ops := bt.ops[:0]
		bt.ops = nil
		w.opsFree.Put(&ops)
	}()
	return nil
}

// txnParts are the compares and ops of a transaction request: a Store
// keeps nothing of them once Commit returned, so the next transaction
// reuses them.
type txnParts struct {
	cmps  []clientv3.Cmp
	thens []clientv3.Op
}

func (w *writer) commit(bt *batch) {
	p, _ := w.parts.Get().(*txnParts)
	if p == nil {
		p = &txnParts{}
	}
	defer w.parts.Put(p)
	n := len(bt.ops)
	cmps := slices.Grow(p.cmps[:0], n+len(w.guard.cmps))[:n]
	thens := slices.Grow(p.thens[:0], n)[:n]
	p.cmps, p.thens = cmps, thens
	for i, op := range bt.ops {
		cmps[i] = clientv3.Compare(clientv3.ModRevision(op.Key), "=", op.ModRevision)
		if op.Delete {
			thens[i] = clientv3.OpDelete(op.Key)
		} else {
			// OpPut copies the value into the request: the string
			// only carries op.Value's bytes there (they are not
			// changed while the op lives), saving a second copy.
			thens[i] = clientv3.OpPut(op.Key, unsafe.String(unsafe.SliceData(op.Value), len(op.Value)))
		}
	}
	if err := w.checkRequest(bt, cmps, thens); err != nil {
		w.fail(bt.seq, err)
		return
	}
	// The guards are part of the transaction: no read before it, and no
	// window between a read and the write.
	cmps = txnCompares(cmps, w.guard.cmps)
	p.cmps = cmps
	// A transaction in flight is not cancelled with the run: its outcome
	// must be known. It has its own timeout.
	tctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), w.opt.TxnTimeout)
	defer cancel()
	resp, err := w.store.Txn(tctx).If(cmps...).Then(thens...).Else(w.guard.reads...).Commit()
	if err != nil {
		if lerr := w.limitError(tctx, bt, err); lerr != nil {
			w.fail(bt.seq, lerr)
			return
		}
		terr := w.txnError(tctx, bt, err)
		var refused *RefusedTxnError
		if errors.As(terr, &refused) && refused.Applied {
			w.count(bt, 0, false)
		}
		w.fail(bt.seq, terr)
		return
	}
	heartbeat(w.ctx)
	if !resp.Succeeded {
		w.fail(bt.seq, w.conflict(tctx, bt, resp))
		return
	}
	w.count(bt, resp.Header.Revision, true)
}

// count records bt as committed at rev (0: not known, as for a
// transaction etcd applied but answered with an error), then, with
// after, runs the AfterTxn hook.
func (w *writer) count(bt *batch, rev int64, after bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.txns++
	w.written += int64(len(bt.ops))
	for _, op := range bt.ops {
		if op.Delete {
			w.deletes++
		} else {
			w.puts++
		}
	}
	w.committed = append(w.committed, committedTxn{seq: bt.seq, n: len(bt.ops)})
	w.revs[bt.seq] = rev
	w.prog.add(len(bt.ops))
	if after && w.opt.AfterTxn != nil && w.err == nil {
		if err := w.opt.AfterTxn(w.txns); err != nil {
			w.err, w.errSeq = err, bt.seq
		}
	}
}

// checkRequest hashes the request built for bt as pass 1 hashed the staged
// ops (its keys, compared mod revisions and values as they go on the wire):
// a transaction is sent only when it carries exactly what was staged, so
// the verify need not read the values back to know what was written.
func (w *writer) checkRequest(bt *batch, cmps []clientv3.Cmp, thens []clientv3.Op) error {
	var h maphash.Hash
	h.SetSeed(w.seed)
	for i, op := range bt.ops {
		key, cmp, then := thens[i].KeyBytes(), &cmps[i], thens[i]
		target, ok := cmp.TargetUnion.(*etcdserverpb.Compare_ModRevision)
		if !ok || cmp.Target != etcdserverpb.Compare_MOD || cmp.Result != etcdserverpb.Compare_EQUAL || !bytes.Equal(cmp.KeyBytes(), key) ||
			then.IsDelete() != op.Delete || then.IsPut() == op.Delete {
			return fmt.Errorf("transaction %d was built wrong at %s: nothing of it was sent", bt.seq+1, keyText(op.Key))
		}
		value := op.Value
		if then.IsPut() {
			value = then.ValueBytes()
		}
		head := opHead(len(key), target.ModRevision, len(value), op.Phase, then.IsDelete())
		h.Write(head[:])
		h.Write(key)
		hashTail(&h, value, op.Original)
	}
	if h.Sum64() != w.hashes[bt.seq] {
		return fmt.Errorf("transaction %d (first key %s) does not carry the bytes staged in the backup: nothing of it was sent", bt.seq+1, keyText(bt.ops[0].Key))
	}
	return nil
}

// conflict tells why a transaction's compare failed: a live key under a
// guard (resp's Else read them at the revision etcd refused it at) is
// reported first, as the *LiveError the guard's read would report; else
// the key that changed, and the Milvus component live now, if any (who
// changed it).
func (w *writer) conflict(ctx context.Context, bt *batch, resp *clientv3.TxnResponse) error {
	if live := w.guard.liveAt(resp); live != nil {
		return live
	}
	err := w.changedKey(ctx, bt)
	var ce *ConflictError
	if errors.As(err, &ce) {
		ce.Running = runningNow(ctx, w.store, w.opt.guards)
	}
	return err
}

// changedKey finds the key of a failed transaction that changed.
func (w *writer) changedKey(ctx context.Context, bt *batch) error {
	gets := make([]clientv3.Op, len(bt.ops))
	for i, op := range bt.ops {
		gets[i] = clientv3.OpGet(op.Key, clientv3.WithKeysOnly())
	}
	resp, err := w.store.Txn(ctx).Then(gets...).Commit()
	if err != nil {
		return fmt.Errorf("a key of transaction %d (from %s) changed since the plan was read at revision %d, and reading them back failed: %w; is Milvus running?", bt.seq+1, keyText(bt.ops[0].Key), w.opt.Header.Revision, err)
	}
	for i, r := range resp.Responses {
		var now int64
		if rr := r.GetResponseRange(); rr != nil && len(rr.Kvs) > 0 {
			now = rr.Kvs[0].ModRevision
		}
		if now != bt.ops[i].ModRevision {
			return &ConflictError{Key: bt.ops[i].Key, Revision: w.opt.Header.Revision, Read: bt.ops[i].ModRevision, Now: now}
		}
	}
	keys := make([]string, len(bt.ops))
	for i, op := range bt.ops {
		keys[i] = op.Key
	}
	sort.Strings(keys)
	return &ConflictError{Key: keys[0] + " (or another key of its transaction)", Revision: w.opt.Header.Revision, Read: bt.ops[0].ModRevision, Now: bt.ops[0].ModRevision}
}

// replay is a Source that rebuilds the ops of a backup file with fn: pass
// 2, whose transactions are checked against pass 1's hashes of them, so it
// does not hash the file again.
func replay(path string, fn func(Entry) (Op, error)) Source {
	return func(ctx context.Context, yield func(Op) error) error {
		br, err := openReplay(path)
		if err != nil {
			return err
		}
		defer br.Close()
		br.unsummed = true
		return eachOp(ctx, br, fn, yield)
	}
}

// eachOp reads br to its end and hands each entry's op, as derive rebuilds
// it, to fn; an entry derive refuses is named by its key.
func eachOp(ctx context.Context, br *BackupReader, derive func(Entry) (Op, error), fn func(Op) error) error {
	for {
		e, ok, err := br.Next()
		if err != nil || !ok {
			return err
		}
		op, err := derive(e)
		if err != nil {
			return fmt.Errorf("%s: %w", keyText(e.Key), err)
		}
		if err := fn(op); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// timeoutError is a transaction that hit its timeout, worded like the
// watchdog's StallError rather than as "context deadline exceeded".
type timeoutError struct {
	d   time.Duration
	err error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("etcd did not answer within %s: is it running and reachable?", e.d)
}

func (e *timeoutError) Unwrap() error { return e.err }
