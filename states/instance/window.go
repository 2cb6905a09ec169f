package instance

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
)

// etcd answers a range request with a limit only after counting every key up
// to the range end, so paging [from, prefixEnd) with a limit costs O(keys
// left) per page and O(n²/page) for a whole prefix: seconds per 200k keys at
// 1,000 keys a page, minutes for a million. Scan reads windows [from, to)
// sized to hold about one page, so that etcd counts about as many keys as
// it returns.
//
// A window is w units wide, a unit being one step of the key's byte at
// position j-1; when that byte ends a run of decimal digits (Milvus ids:
// datacoord-meta/s/{collection}/{partition}/{segment}), a step of the
// number that run spells, with its carry, so that ...09 steps to ...10 and
// not into the empty ...0: of a byte step. Each window's end is a key
// boundary, so windows tile the range whatever the keys are (ids of other
// digit counts sort where their bytes put them); only the size estimate
// assumes keys spread evenly over the units. After each window, the keys it
// held per unit give the next width; a page that comes back full (More)
// names the units it covered, and moves j to finer units while a page
// spans fewer than minUnits of them. Two empty windows in a row (the gap
// after the last key, usually) end with one request for the rest of the
// range, as the first request of a scan is.

// windowFill is the share of a page a window aims at: a window a little
// over one page costs a second, nearly empty request.
const windowFill = 0.8

// minUnits is the fewest units a window spans when finer units exist: a
// window of one or two coarse units overshoots or falls short of a page.
const minUnits = 8

// Scan reads every key under the absolute prefix at revision rev (0: the
// current one), a page at a time, calls fn with each page (keys absolute),
// and returns the revision it read at, in O(n) etcd work. The next page is
// read while fn handles the current one. Pages may be shorter than
// PageSize; keys come in order, each exactly once.
func (in *Instance) Scan(ctx context.Context, prefix string, rev int64, fn func(page []KV) error) (int64, error) {
	win, err := in.prefixWindows(ctx, prefix, rev)
	if err != nil {
		return rev, err
	}
	return in.scan(ctx, prefix, win, rev, nil, fn)
}

// ScanKeys is Scan without the values (each KV's Value is nil).
func (in *Instance) ScanKeys(ctx context.Context, prefix string, rev int64, fn func(page []KV) error) (int64, error) {
	win, err := in.prefixWindows(ctx, prefix, rev)
	if err != nil {
		return rev, err
	}
	return in.scan(ctx, prefix, win, rev, []clientv3.OpOption{clientv3.WithKeysOnly()}, fn)
}

// headCollections is how many collections' segments the first window of a
// segment scan spans: more than a page's worth at a hundred segments each.
const headCollections = 16

// headSample is how many collection keys (of each layout) name the
// collections the first window of a segment scan ends after.
const headSample = 256

// prefixWindows are the windows of a scan of prefix. The first window of
// any other scan is the whole range, so that its page sizes the windows
// after it; etcd counts every key of that range first, which for the
// segment prefix (a million keys) is a quarter of a second. Segment keys
// sort by collection (models.CollectionSegmentPrefix), so the first window
// of a segment scan ends after the segments of the headCollections-th
// smallest collection id of the first collection keys instead: etcd counts
// about a page. Whatever those ids miss (a segment of a collection without
// a key, ids of another database that sort first) lies in one window or
// another: the windows tile the prefix.
func (in *Instance) prefixWindows(ctx context.Context, prefix string, rev int64) (*windows, error) {
	win := newWindows(prefix)
	if prefix != in.Layout.Meta(models.SegmentPrefix) {
		return win, nil
	}
	var ends []string
	for _, rel := range []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix} {
		from := in.Layout.Meta(rel)
		opts := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(from)), clientv3.WithLimit(headSample), clientv3.WithKeysOnly()}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := in.cli.Get(ctx, from, opts...)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", prefix, compacted(rev, err))
		}
		for _, kv := range resp.Kvs {
			r, _ := in.Layout.Rel(string(kv.Key))
			if k := models.Classify(r); k.Kind == models.KindCollectionInfo || k.Kind == models.KindLegacyCollection {
				ends = append(ends, clientv3.GetPrefixRangeEnd(in.Layout.Meta(models.CollectionSegmentPrefix(k.Collection))))
			}
		}
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	// Dropped collections keep their keys (tombstones) and lose their
	// segments: a first window of none goes on to the next, spanning four
	// times as many collections, before the rest of the range in one.
	for n := headCollections; len(ends) > 0; n *= 4 {
		win.heads = append(win.heads, ends[min(n, len(ends))-1])
		if n >= len(ends) {
			break
		}
	}
	return win, nil
}

// scan reads the range of win (what names it in errors) as Scan does.
func (in *Instance) scan(ctx context.Context, what string, win *windows, rev int64, extra []clientv3.OpOption, fn func(page []KV) error) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pg := in.pager()
	type result struct {
		resp *clientv3.GetResponse
		err  error
	}
	get := func(from, to string, limit int, rev int64) chan result {
		ch := make(chan result, 1)
		opts := append([]clientv3.OpOption{clientv3.WithRange(to), clientv3.WithLimit(int64(limit))}, extra...)
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		go func() {
			resp, err := in.cli.Get(ctx, from, opts...)
			ch <- result{resp, err}
		}()
		return ch
	}
	// The first request fixes the revision of the scan: it is not prefetched.
	from, to := win.next()
	pending := get(from, to, pg.limit, rev)
	for {
		res := <-pending
		if res.err != nil {
			return rev, fmt.Errorf("read %s: %w", what, compacted(rev, res.err))
		}
		resp := res.resp
		if rev == 0 {
			rev = resp.Header.Revision
		}
		pg.saw(resp.Kvs)
		var first, last string
		if n := len(resp.Kvs); n > 0 {
			first, last = string(resp.Kvs[0].Key), string(resp.Kvs[n-1].Key)
		}
		done := win.read(len(resp.Kvs), pg.limit, resp.More, first, last)
		if !done {
			from, to = win.next()
			pending = get(from, to, pg.limit, rev)
		}
		if len(resp.Kvs) > 0 {
			if err := fn(kvsOf(resp.Kvs)); err != nil {
				if !done {
					cancel()
					<-pending
				}
				return rev, err
			}
		}
		if done {
			return rev, nil
		}
	}
}

// windows is the window state of one scan.
type windows struct {
	prefixLen int
	end       string
	from, to  string
	j         int     // 0: the window is the whole rest of the range
	w         float64 // the width of the next window, in units at j
	empties   int     // windows in a row that held no key
	// heads are the ends of the first windows (prefixWindows): the next
	// one is read while none of them held a key.
	heads []string
}

func newWindows(prefix string) *windows {
	return &windows{prefixLen: len(prefix), end: clientv3.GetPrefixRangeEnd(prefix), from: prefix}
}

// rangeWindows are the windows of the keys in [from, to): every one of
// them starts with what from and to have in common, their prefix.
func rangeWindows(from, to string) *windows {
	return &windows{prefixLen: commonPrefix(from, to), end: to, from: from}
}

// next is the next window to read.
func (s *windows) next() (from, to string) {
	if len(s.heads) > 0 {
		s.to = s.heads[0]
		return s.from, s.to
	}
	s.to = s.end
	if s.j > len(s.from) || s.empties > 1 {
		// A window ended with its parent subtree, on a key shorter than
		// the units, or two windows in a row were empty: the rest of the
		// range, whose page (if any) sizes the windows again.
		s.j, s.empties = 0, 0
	}
	if s.j > 0 {
		s.to = s.addUnits(s.from, uint64(min(max(1, s.w), 1e18)))
	}
	return s.from, s.to
}

// read takes in the answer to the window: n keys (the first and the last),
// more when the window held more than the page asked for; limit is the next
// page's. It reports whether the scan is done.
func (s *windows) read(n, limit int, more bool, first, last string) bool {
	aim := windowFill * float64(limit)
	if len(s.heads) > 0 {
		// A first window held every key up to its last one, as a full
		// page does: its keys size the windows after it. An empty one
		// leaves the next (or the rest of the range, in one request).
		s.heads = s.heads[1:]
		if n > 0 {
			s.heads, more = nil, true
		}
	}
	if more {
		// The page covered the units from the window's start to its last
		// key: the window goes on after that key.
		if s.j == 0 {
			s.j = min(commonPrefix(first, last)+1, len(last))
			s.w = 1
		}
		span, ok := s.span(first, last)
		for ok && aim*float64(span) < minUnits*float64(n) && s.j < min(len(first), len(last)) {
			// Units too coarse to size a window by: finer ones.
			s.j++
			span, ok = s.span(first, last)
		}
		if ok {
			s.w = max(1, aim*float64(span)/float64(n))
		}
		s.from = last + "\x00"
		return false
	}
	if s.to == s.end {
		return true
	}
	s.from = s.to
	if n > 0 {
		s.empties = 0
	}
	switch {
	case n == 0:
		s.w *= 16
		s.empties++
	case float64(n) < aim/4:
		s.w *= 4
	default:
		s.w = min(s.w*aim/float64(n), s.w*4)
	}
	s.w = max(1, s.w)
	return false
}

// unit locates the unit of key at j: the digits key[start:j] (digits) or
// the byte key[j-1], and its value. ok is false when key has no unit at j.
func (s *windows) unit(key string) (start int, val uint64, digits, ok bool) {
	j := s.j
	if j <= s.prefixLen || j > len(key) {
		return 0, 0, false, false
	}
	if !isDigit(key[j-1]) {
		return j - 1, uint64(key[j-1]), false, true
	}
	start = j - 1
	for start > s.prefixLen && isDigit(key[start-1]) && j-start < 18 {
		start--
	}
	v, err := strconv.ParseUint(key[start:j], 10, 64)
	return start, v, true, err == nil
}

// span is the number of units from a's to b's (both counted); ok is false
// when they are not units of the same run.
func (s *windows) span(a, b string) (uint64, bool) {
	sa, va, da, oka := s.unit(a)
	sb, vb, db, okb := s.unit(b)
	if !oka || !okb || sa != sb || da != db || a[:sa] != b[:sb] || vb < va {
		return 0, false
	}
	return vb - va + 1, true
}

// addUnits is the key w units after from's unit at j: the end of the
// window that starts at from. It is bounded by the range's end, and is the
// end of the enclosing subtree when the run overflows.
func (s *windows) addUnits(from string, w uint64) string {
	start, v, digits, ok := s.unit(from)
	if !ok {
		return s.end
	}
	var to string
	if digits {
		width := s.j - start
		limit := uint64(1)
		for range width {
			limit *= 10
		}
		if v+w < limit && v+w > v {
			d := strconv.FormatUint(v+w, 10)
			to = from[:start] + zeros(width-len(d)) + d
		}
	} else if v+w <= 0xff {
		to = from[:start] + string([]byte{byte(v + w)})
	}
	if to == "" {
		// The run overflows: the window ends with its parent subtree.
		if start <= s.prefixLen {
			return s.end
		}
		to = clientv3.GetPrefixRangeEnd(from[:start])
	}
	if to == "\x00" || to > s.end || to <= from {
		return s.end
	}
	return to
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
