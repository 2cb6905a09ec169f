package models

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// NaturalLess orders names with their digit runs compared as numbers, so that
// by-dev-rootcoord-dml_2 comes before by-dev-rootcoord-dml_10 (pchannels,
// vchannels, keys with ids); equal numbers with different leading zeros
// order by length. Every listing, plan and completion orders names with it.
func NaturalLess(a, b string) bool {
	// Keys compared in a scan share long prefixes (by-dev/meta/datacoord-
	// meta/s/...): the tokens of the common bytes up to a non-digit ASCII
	// byte compare equal, so the comparison starts after them.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && (a[i-1] >= '0' && a[i-1] <= '9' || a[i-1] >= utf8.RuneSelf) {
		i--
	}
	a, b = a[i:], b[i:]
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if da != db {
				return da < db
			}
			a, b = a[da:], b[db:]
			continue
		}
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return ra < rb
		}
		a, b = a[sa:], b[sb:]
	}
	return len(a) < len(b)
}

// NaturalCompare is NaturalLess as a three-way comparison, for slices.SortFunc.
func NaturalCompare(a, b string) int {
	switch {
	case NaturalLess(a, b):
		return -1
	case NaturalLess(b, a):
		return 1
	}
	return 0
}

// NaturalKeys are the keys of m in natural order (NaturalLess).
func NaturalKeys[V any](m map[string]V) []string {
	return slices.SortedFunc(maps.Keys(m), NaturalCompare)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
