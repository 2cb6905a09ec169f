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
	width  int
}

// NewColumnElider is the elider of the column holding values, cut to width
// runes (no cut when width <= 3).
func NewColumnElider(values []string, width int) ColumnElider {
	return ColumnElider{shared: SharedPrefixLen(values), width: width}
}

// Elide returns s cut to the column's width.
func (e ColumnElider) Elide(s string) string {
	if e.width <= len(ellipsisMark) || utf8.RuneCountInString(s) <= e.width {
		return s
	}
	if e.shared > 0 && e.shared < len(s) {
		s = s[e.shared:]
	}
	r := []rune(s)
	keep := e.width - len(ellipsisMark)
	if len(r) > keep {
		r = r[len(r)-keep:]
	}
	return ellipsisMark + string(r)
}

const ellipsisMark = "..."
