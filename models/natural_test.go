package models

import (
	"slices"
	"testing"
)

func TestNaturalOrder(t *testing.T) {
	got := []string{"dml_10", "dml_2", "dml_1", "dml_02", "dml_63"}
	slices.SortFunc(got, NaturalCompare)
	want := []string{"dml_1", "dml_2", "dml_02", "dml_10", "dml_63"}
	if !slices.Equal(got, want) {
		t.Errorf("natural order %v, want %v", got, want)
	}
	if !NaturalLess("x99999999999999999999999", "x100000000000000000000000") {
		t.Error("digit runs longer than an int64 compare as numbers")
	}
	c := NewWALCensus(nil)
	for _, pc := range []string{"by-dev-rootcoord-dml_10", "by-dev-rootcoord-dml_9"} {
		c.AddCheckpoint(pc, 0)
	}
	if r := c.Report(); r[0].PChannel != "by-dev-rootcoord-dml_9" {
		t.Errorf("census report not in natural order: %s first", r[0].PChannel)
	}
}

// Keys with a common prefix compare as if compared token by token from
// their start: the prefix NaturalLess skips ends before a digit run or a
// multi-byte rune it would otherwise cut.
func TestNaturalLessSkipsOnlyEqualTokens(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{
		{"s/45/9", "s/45/10", true},         // the common "s/45/" skipped, 9 < 10
		{"s/459", "s/4510", true},           // "s/45" is common, but 459 < 4510 as numbers
		{"s/4510", "s/459", false},          //
		{"x/29", "x/2005", true},            // cut after "x/2", 9 vs 005 would say false
		{"s/0010", "s/009", false},          // 10 > 9 whatever the zeros
		{"s/09", "s/9", false},              // equal numbers: the longer run goes last
		{"s/9", "s/09", true},               //
		{"a/é1", "a/é2", true},              // a multi-byte rune in the common prefix
		{"a/\xc3\xa9", "a/\xc3\xa8", false}, // runes differing in their last byte: é after è
		{"a/\xc3\xa8", "a/\xc3\xa9", true},
		{"same/1", "same/1", false},
		{"p", "p/1", true},
	} {
		if got := NaturalLess(c.a, c.b); got != c.less {
			t.Errorf("NaturalLess(%q, %q) = %v, want %v", c.a, c.b, got, c.less)
		}
	}
}
