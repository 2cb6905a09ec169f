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
