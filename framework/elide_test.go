package framework

import "testing"

func TestDistinctPartAndColumnElider(t *testing.T) {
	names := []string{"by-dev-rootcoord-dml_0", "by-dev-rootcoord-dml_10", "by-dev-rootcoord-dml_63"}
	if got := DistinctPart(names[1], names); got != "dml_10" {
		t.Errorf("DistinctPart = %q, want dml_10", got)
	}
	if got := DistinctPart("by-dev-rootcoord-dml_0", names[:1]); got != "by-dev-rootcoord-dml_0" {
		t.Errorf("a lone name is kept whole: %q", got)
	}
	keys := []string{
		"by-dev/meta/streamingcoord-meta/pchannel/by-dev-rootcoord-dml_0/consume-checkpoint",
		"by-dev/meta/streamingcoord-meta/pchannel/by-dev-rootcoord-dml_10/consume-checkpoint",
	}
	col := NewColumnElider(keys, 30)
	a, b := col.Elide(keys[0]), col.Elide(keys[1])
	if a == b {
		t.Fatalf("elided keys read the same: %q", a)
	}
	if a != "...dml_0/consume-checkpoint" || b != "...dml_10/consume-checkpoint" {
		t.Errorf("elided %q, %q", a, b)
	}
	if got := NewColumnElider(keys, 0).Elide(keys[0]); got != keys[0] {
		t.Errorf("width 0 cuts nothing: %q", got)
	}
}

// Issue 27 item 5: ids that share their end (pulsar's ":0:-1") keep their
// varying start when cut, not the constant end.
func TestColumnEliderKeepsTheVaryingStartOfIDs(t *testing.T) {
	values := []string{"101:6:0:-1", "102:7:0:-1", "1030:80:0:-1"}
	e := NewColumnElider(values, 10)
	if got := e.Elide("1030:80:0:-1"); got != "1030:80..." {
		t.Fatalf("Elide = %q, want 1030:80...", got)
	}
	if got := NewColumnElider([]string{"a/b/key1", "a/b/key2"}, 6).Elide("a/b/key1"); got != "...ey1" {
		t.Fatalf("a key keeps its end: %q", got)
	}
}
