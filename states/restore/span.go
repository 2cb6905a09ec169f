package restore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/states/instance"
)

// The scan compares each entry of the backup with its key now. It reads the
// keys by spans: a chunk of entries whose keys ascend is read with one range
// request from its first key to its last (etcd serves a range of
// consecutive keys for about the cost of one read; a transaction of gets
// costs a read each). The file is read, the next spans fetched (fetchers at
// once), the chunk before them judged (the pure work on its entries) and
// the one before that decided side by side (a chunk read ahead of each).

// Chunks close at spanEntries entries or spanBytes bytes of backed-up
// values (the current values are about as large): the memory of a scan is
// a few chunks.
const (
	spanEntries = 1000
	spanBytes   = 2 << 20
	// spanSlack is how many keys outside the chunk a span may read beyond
	// its entries before the rest of the chunk is read key by key (a chunk
	// whose keys lie far apart, other keys between them).
	spanSlack = 64
	// fetchers is how many spans are read at once (pipeline).
	fetchers = 3
)

// chunk is consecutive entries of one restore phase, in file order.
type chunk struct {
	phase   int
	entries []apply.Entry
	// from is where its span starts ("": at its first key): just after
	// the last key of the chunk before it in the same run, so that the
	// spans of a run cover every key from its first to its last.
	from  string
	bytes int
	// ascending: every key is greater than the one before it.
	ascending bool
}

func (c *chunk) add(e apply.Entry) {
	if len(c.entries) == 0 {
		c.ascending = true
	} else if c.ascending && e.Key <= c.entries[len(c.entries)-1].Key {
		c.ascending = false
	}
	c.entries = append(c.entries, e)
	c.bytes += len(e.Key) + len(e.Value) + len(e.New)
}

func (c *chunk) full() bool { return len(c.entries) >= spanEntries || c.bytes >= spanBytes }

// fetched is a chunk with the current KV of each entry (the zero KV: absent).
type fetched struct {
	phase   int
	entries []apply.Entry
	cur     []instance.KV
	// created are the keys created since the backup (reader.since) from
	// where the chunk's span starts to its last key, its own keys aside.
	created []string
	// others are the other keys its span read, with their values
	// (reader.others).
	others []instance.KV
	// ops are decide's op for each entry (nil: it holds its backed-up
	// state), and wrote what the backed-up command wrote at each key whose
	// op is not nil, when the scan compares (both by the judge stage).
	ops   []*apply.Op
	wrote []derived
}

// derived is the op the backed-up command wrote at an entry's key (err:
// its rule does not write the entry's value there; checked: looked for).
type derived struct {
	op      apply.Op
	err     error
	checked bool
}

// reader reads chunks at one revision.
type reader struct {
	inst *instance.Instance
	rev  int64
	// gets is the most gets of one transaction (the keys a span leaves).
	gets int
	// since > 0: fetch also finds the keys created after revision since
	// (the backup's) from where each span starts to its last key, those
	// under lists; their entries aside (the chunk's spans cover a run of
	// the file whose key range holds no other entry: runs.disjoint).
	since int64
	under func(key string) bool
	// others: fetch keeps the keys its spans read besides the entries.
	others bool
}

// createdSince reports kv as created since the backup.
func (r *reader) createdSince(kv instance.KV) bool {
	return r.since > 0 && kv.CreateRevision > r.since && r.under(kv.Key)
}

// fetch reads the current values of c's keys: by one span when its keys
// ascend, the keys the span did not reach (too many other keys between
// them) and those of a chunk that does not ascend by transactions of gets.
func (r *reader) fetch(ctx context.Context, c chunk) (fetched, error) {
	out := fetched{phase: c.phase, entries: c.entries, cur: make([]instance.KV, len(c.entries))}
	done := 0
	if c.ascending {
		first, last := c.entries[0].Key, c.entries[len(c.entries)-1].Key
		from := c.from
		if from == "" || from > first {
			from = first
		}
		kvs, more, err := r.inst.Span(ctx, from, last+"\x00", r.rev, len(c.entries)+spanSlack)
		if err != nil {
			return out, err
		}
		reached := last
		if more {
			reached = kvs[len(kvs)-1].Key
		}
		other := func(kv instance.KV) {
			if r.createdSince(kv) {
				out.created = append(out.created, kv.Key)
			}
			if r.others {
				out.others = append(out.others, kv)
			}
		}
		// Both are in key order: a merge.
		j := 0
		for done < len(c.entries) && c.entries[done].Key <= reached {
			key := c.entries[done].Key
			for ; j < len(kvs) && kvs[j].Key < key; j++ {
				other(kvs[j])
			}
			if j < len(kvs) && kvs[j].Key == key {
				out.cur[done] = kvs[j]
				j++
			}
			done++
		}
		for _, kv := range kvs[j:] {
			other(kv)
		}
		if more && r.since > 0 {
			// The keys the span did not reach, without their values: the
			// created ones among them.
			rest := c.entries[done:]
			err := r.inst.RangeKeys(ctx, reached+"\x00", last+"\x00", r.rev, func(page []instance.KV) error {
				for _, kv := range page {
					for len(rest) > 0 && rest[0].Key < kv.Key {
						rest = rest[1:]
					}
					if (len(rest) == 0 || rest[0].Key != kv.Key) && r.createdSince(kv) {
						out.created = append(out.created, kv.Key)
					}
				}
				return nil
			})
			if err != nil {
				return out, err
			}
		}
	}
	for done < len(c.entries) {
		n := min(len(c.entries)-done, r.gets)
		keys := make([]string, n)
		for i := range keys {
			keys[i] = c.entries[done+i].Key
		}
		cur, err := r.inst.GetMany(ctx, keys, r.rev)
		if err != nil {
			return out, err
		}
		copy(out.cur[done:], cur)
		done += n
	}
	return out, nil
}

// pipeline runs read (the file: it hands each chunk to send, in order),
// the fetch of each chunk (fetchers at once), judge (each fetched chunk,
// in order: the pure work on its entries) and decide (each judged chunk,
// in order) side by side: chunks are fetched while the one before them is
// judged, the one before that decided, and the file is read ahead. The
// first error stops them all.
func (r *reader) pipeline(ctx context.Context, read func(send func(chunk) error) error, judge func(*fetched), decide func(fetched) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	chunks := make(chan chunk, 1)
	fetchedChunks := make(chan fetched, 1)
	results := make(chan fetched, 1)
	errs := make(chan error, 4)
	go func() {
		defer close(chunks)
		errs <- read(func(c chunk) error {
			select {
			case chunks <- c:
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		})
	}()
	// Spans are fetched fetchers at a time, their results taken in file
	// order: one at a time, the scan waited on them (a dry run of a
	// million segments fetched for 4.8 s of its 4.9 s scan; with three at
	// a time the dry run took 4.7 s instead of 6.5, means of three).
	type fetchResult struct {
		f   fetched
		err error
	}
	// In flight: the fetch the await stage waits on, those in pending,
	// and the one started by the stage waiting to send it.
	pending := make(chan chan fetchResult, fetchers-2)
	// The pipeline returns after its fetches: none outlives it.
	var inflight sync.WaitGroup
	defer inflight.Wait()
	go stage(ctx, chunks, pending, errs, func(c chunk) (chan fetchResult, error) {
		res := make(chan fetchResult, 1)
		inflight.Go(func() {
			f, err := r.fetch(ctx, c)
			res <- fetchResult{f, err}
		})
		return res, nil
	})
	go stage(ctx, pending, fetchedChunks, errs, func(res chan fetchResult) (fetched, error) {
		got := <-res
		return got.f, got.err
	})
	go stage(ctx, fetchedChunks, results, errs, func(f fetched) (fetched, error) {
		err := judged(judge, &f)
		return f, err
	})
	var err error
	for f := range results {
		if err = decide(f); err != nil {
			break
		}
	}
	// Done or failed: the stages still running stop (a failed fetch left
	// the file's reader waiting to send).
	cancel(errStopped)
	for range results {
	}
	// The first error of the five: a stage stopped by another's error
	// reports errStopped, never first.
	for range 4 {
		if e := <-errs; e != nil && !errors.Is(e, errStopped) && err == nil {
			err = e
		}
	}
	return err
}

// stage runs f on each value of in, in order, and sends its results to out,
// which it closes when done; it reports to errs once: f's error, the
// context's cause when the pipeline stopped, or nil.
func stage[In, Out any](ctx context.Context, in <-chan In, out chan<- Out, errs chan<- error, f func(In) (Out, error)) {
	defer close(out)
	for v := range in {
		res, err := f(v)
		if err != nil {
			errs <- err
			return
		}
		select {
		case out <- res:
		case <-ctx.Done():
			errs <- context.Cause(ctx)
			return
		}
	}
	errs <- nil
}

// judged runs judge on f. The judge stage runs outside the shell's recover:
// a panic there (a bug of a rule or a decoder on some entry of a file) is
// the pipeline's error, naming where in the file, not the end of heron.
func judged(judge func(*fetched), f *fetched) (err error) {
	defer func() {
		if r := recover(); r != nil && len(f.entries) > 0 {
			err = fmt.Errorf("restore: internal error (panic) judging the entries from line %d: %v", f.entries[0].Line, r)
		} else if r != nil {
			err = fmt.Errorf("restore: internal error (panic) judging the entries: %v", r)
		}
	}()
	judge(f)
	return nil
}

// errStopped stops the stages of a pipeline after one of them failed.
var errStopped = errors.New("restore: stopped")

// maxRuns bounds the runs a file's check notes: a file whose phases
// alternate more often is read once per phase (each reading keeps the
// entries of its phase).
const maxRuns = 4096

// run is consecutive entries of one restore phase and one kind of key
// (their spans read one folder of keys, not the keys of other runs between
// them): the bytes [from, to) of the file, from line number line.
type run struct {
	phase, kind    int
	from, to, line int64
	// first and last are its first and last keys; ascending: every key is
	// greater than the one before it.
	first, last string
	ascending   bool
}

// runs are the runs of a file in file order; mixed: there were more than
// maxRuns, runs holds one run of every entry (its phase -1).
type runs struct {
	list  []run
	mixed bool
}

func (rs *runs) add(phase, kind int, key string, from, to, line int64) {
	if n := len(rs.list); n > 0 && rs.list[n-1].to == from && (rs.mixed || rs.list[n-1].phase == phase && rs.list[n-1].kind == kind) {
		r := &rs.list[n-1]
		r.to, r.ascending, r.last = to, r.ascending && key > r.last, key
		return
	}
	if len(rs.list) == maxRuns {
		rs.mixed = true
		rs.list = []run{{phase: -1, from: rs.list[0].from, to: to, line: rs.list[0].line}}
		return
	}
	rs.list = append(rs.list, run{phase: phase, kind: kind, from: from, to: to, line: line, first: key, last: key, ascending: true})
}

// disjoint reports whether each run's keys ascend and no two runs'
// key ranges overlap: then a key within a run's range is a key of the
// file only when it is one of that run's entries, so the keys a span
// reads besides its chunk's are keys the file does not hold.
func (rs *runs) disjoint() bool {
	if rs.mixed {
		return false
	}
	sorted := rs.ranges()
	for i, r := range sorted {
		if !r.ascending || (i > 0 && sorted[i-1].last >= r.first) {
			return false
		}
	}
	return true
}

// of are the runs that hold phase's entries, in file order.
func (rs *runs) of(phase int) []run {
	if rs.mixed {
		return rs.list
	}
	var out []run
	for _, r := range rs.list {
		if r.phase == phase {
			out = append(out, r)
		}
	}
	return out
}

// ranges are the runs in the order of their first keys.
func (rs *runs) ranges() []run {
	sorted := slices.Clone(rs.list)
	slices.SortFunc(sorted, func(a, b run) int { return strings.Compare(a.first, b.first) })
	return sorted
}

// outsideRanges are the parts of [from, to) outside the key ranges of
// sorted (disjoint runs in key order), each [first, last] of a run.
func outsideRanges(from, to string, sorted []run) [][2]string {
	var out [][2]string
	at := from
	for _, r := range sorted {
		lo, hi := r.first, r.last+"\x00"
		if hi <= at || lo >= to {
			continue
		}
		if lo > at {
			out = append(out, [2]string{at, lo})
		}
		at = hi
	}
	if at < to {
		out = append(out, [2]string{at, to})
	}
	return out
}
