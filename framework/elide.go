package framework

import (
	"strings"
	"unicode/utf8"
)

// DistinctPart is the part of name after the prefix every one of names
// shares (SharedPrefixLen): by-dev-rootcoord-dml_0 among the other
// by-dev-rootcoord-dml_* is dml_0. A lone name stays as it is.
func DistinctPart(name string, names []string) string {
	n := SharedPrefixLen(names)
	if n == 0 || n >= len(name) || !strings.HasPrefix(name, names[0][:n]) {
		return name
	}
	return name[n:]
}

// SharedPrefixLen is the length in bytes of the prefix every one of names
// shares, cut back to just after its last '-' or '/' so that a word stays
// whole (0 with fewer than two names, or when it would leave a name empty).
func SharedPrefixLen(names []string) int {
	if len(names) < 2 {
		return 0
	}
	p := names[0]
	for _, s := range names[1:] {
		i := 0
		for i < len(p) && i < len(s) && p[i] == s[i] {
			i++
		}
		p = p[:i]
	}
	i := strings.LastIndexAny(p, "-/")
	if i < 0 {
		return 0
	}
	for _, s := range names {
		if len(s) <= i+1 {
			return 0
		}
	}
	return i + 1
}

// ColumnElider cuts the cells of one table column to a width so that the
// rows stay apart: it drops the prefix the column's values share (a
// constant such as by-dev/meta/streamingcoord-meta/), marked "...", and
// when a cell is still too wide keeps its end, where names and keys differ
// (dml_0 and dml_10, the ids of a segment key), rather than its middle.
type ColumnElider struct {
	shared int
	// suffix is the length of the end every value shares from a ':' on (the
	// ":0:-1" of pulsar ids): dropped before a cell's start is.
	suffix int
	width  int
}

// NewColumnElider is the elider of the column holding values, cut to width
// runes (no cut when width <= 3).
func NewColumnElider(values []string, width int) ColumnElider {
	return ColumnElider{shared: SharedPrefixLen(values), suffix: sharedSuffixLen(values), width: width}
}

// sharedSuffixLen is the length in bytes of the end every one of values
// shares, from its first ':' on (0 with fewer than two values, without a
// ':', or when it would leave a value empty): the varying start of ids such
// as ledger:entry:0:-1 stays.
func sharedSuffixLen(values []string) int {
	if len(values) < 2 {
		return 0
	}
	p := values[0]
	for _, s := range values[1:] {
		i := 0
		for i < len(p) && i < len(s) && p[len(p)-1-i] == s[len(s)-1-i] {
			i++
		}
		p = p[len(p)-i:]
	}
	i := strings.IndexByte(p, ':')
	if i < 0 {
		return 0
	}
	n := len(p) - i
	for _, s := range values {
		if len(s) <= n {
			return 0
		}
	}
	return n
}

// Elide returns s cut to the column's width.
func (e ColumnElider) Elide(s string) string {
	if e.width <= len(ellipsisMark) || utf8.RuneCountInString(s) <= e.width {
		return s
	}
	mark := ""
	if e.shared > 0 && e.shared < len(s) {
		s, mark = s[e.shared:], ellipsisMark
	}
	if e.suffix > 0 && e.suffix < len(s) {
		if t := s[:len(s)-e.suffix]; utf8.RuneCountInString(mark+t+ellipsisMark) <= e.width {
			return mark + t + ellipsisMark
		}
	}
	r := []rune(s)
	keep := e.width - len(ellipsisMark)
	if len(r) > keep {
		r = r[len(r)-keep:]
	}
	return ellipsisMark + string(r)
}

const ellipsisMark = "..."

// MaxLineWidth is the width in runes of the widest line of s.
func MaxLineWidth(s string) int {
	widest := 0
	for _, l := range strings.Split(s, "\n") {
		widest = max(widest, utf8.RuneCountInString(l))
	}
	return widest
}
