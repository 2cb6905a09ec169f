package gates

import (
	"strings"
	"testing"

	"github.com/heron-shell/heron/states/woodpecker"
)

func inventory() *woodpecker.Inventory {
	return &woodpecker.Inventory{
		Effective: woodpecker.Effective{Prefix: "by-dev/woodpecker", Reason: woodpecker.ReasonDefault, Configured: "by-dev/woodpecker", MetaPrefix: "woodpecker", From: "default"},
		Prefixes: []woodpecker.Prefix{
			{Prefix: "by-dev/woodpecker", Roles: []string{woodpecker.RoleDefault}, Effective: true, Readable: true},
			{Prefix: "woodpecker", Roles: []string{woodpecker.RoleLegacy}, Readable: true},
			{Prefix: "by-dev/wp", Roles: []string{woodpecker.RoleWP}, Readable: true},
		},
	}
}

func wpLog(prefix, name string, segments, truncSeg, truncEntry int64) woodpecker.Log {
	l := woodpecker.Log{Prefix: prefix, Name: name, ID: 7, HasMeta: true, Segments: segments, FirstSegment: -1, LastSegment: -1,
		TruncatedSegment: truncSeg, TruncatedEntry: truncEntry, Keys: 1 + segments, PChannel: true}
	if segments > 0 {
		l.FirstSegment, l.LastSegment = 0, segments-1
	}
	return l
}

func TestWoodpeckerTargetGate(t *testing.T) {
	all := func(string) bool { return true }
	inv := inventory()
	if g := WoodpeckerTarget(inv, all, false, false); !g.OK || !strings.Contains(g.Detail, "effective prefix by-dev/woodpecker/ (default") {
		t.Fatalf("empty: %+v", g)
	}
	// {root}/wp: named, not refused.
	inv.Logs = []woodpecker.Log{wpLog("by-dev/wp", "p0", 2, -1, -1)}
	if g := WoodpeckerTarget(inv, all, false, false); !g.OK || !strings.Contains(g.Detail, "logs under by-dev/wp/, which no woodpecker release reads, stay: by-dev/wp/logs/p0") {
		t.Fatalf("wp: %+v", g)
	}
	// A truncated log without segments refuses; the remedy names the scope.
	inv.Logs = append(inv.Logs, wpLog("by-dev/woodpecker", "p1", 0, 2, 9), wpLog("woodpecker", "p2", 1, -1, -1))
	other := wpLog("woodpecker", "other", 3, -1, -1)
	other.PChannel = false
	inv.Logs = append(inv.Logs, other)
	g := WoodpeckerTarget(inv, func(pc string) bool { return pc == "p1" }, true, false)
	if g.OK || g.Count != 1 || !strings.Contains(g.Detail, "by-dev/woodpecker/logs/p1 (id 7, no segments, truncated at 2:9, 1 keys)") ||
		!strings.Contains(g.Detail, "`reset wal --target woodpecker --pchannel p1 --run`") || strings.Contains(g.Detail, "p2") || strings.Contains(g.Detail, "other") {
		t.Fatalf("scoped: %+v", g)
	}
	g = WoodpeckerTarget(inv, all, false, false)
	if g.OK || g.Count != 2 || !strings.Contains(g.Detail, "woodpecker/logs/p2 (id 7, 1 segments 0-0") || !strings.Contains(g.Detail, "`reset wal --target woodpecker --run`") ||
		len(g.Keys) != 2 {
		t.Fatalf("whole: %+v", g)
	}
	g = WoodpeckerTarget(inv, all, false, true)
	if !g.OK || !g.Overridden || !strings.HasPrefix(g.Detail, "--allow-non-empty-target: ") {
		t.Fatalf("allowed: %+v", g)
	}
	// A prefix heron may not read refuses: it cannot tell.
	inv = inventory()
	inv.Prefixes[1].Readable, inv.Prefixes[1].Error = false, "etcdserver: permission denied"
	g = WoodpeckerTarget(inv, all, false, false)
	if g.OK || !strings.Contains(g.Detail, "heron cannot read woodpecker/ (etcdserver: permission denied)") {
		t.Fatalf("unreadable: %+v", g)
	}
}

func TestWoodpeckerTargetGateCapsItsList(t *testing.T) {
	inv := inventory()
	for _, name := range []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"} {
		inv.Logs = append(inv.Logs, wpLog("by-dev/woodpecker", name, 1, -1, -1))
	}
	g := WoodpeckerTarget(inv, func(string) bool { return true }, false, false)
	if g.OK || g.Count != 7 || len(g.Keys) != MaxKeys || !strings.Contains(g.Detail, "by-dev/woodpecker/logs/p4 (") ||
		strings.Contains(g.Detail, "logs/p5 (") || !strings.Contains(g.Detail, " and 2 more; ") {
		t.Fatalf("%+v", g)
	}
}

// Issue 28 §3: logs under a prefix heron found by their LogMeta (a
// woodpecker.meta.prefix set only in milvus.yaml) refuse like any other,
// and the detail names the prefix and why heron looked there.
func TestWoodpeckerTargetFoundPrefix(t *testing.T) {
	all := func(string) bool { return true }
	inv := inventory()
	inv.Prefixes = append(inv.Prefixes, woodpecker.Prefix{Prefix: "by-dev/wpcustom", Roles: []string{woodpecker.RoleFound}, Readable: true})
	inv.Logs = []woodpecker.Log{wpLog("by-dev/wpcustom", "by-dev-rootcoord-dml_0", 1, -1, -1)}
	inv.Logs[0].Prefix = "by-dev/wpcustom"
	g := WoodpeckerTarget(inv, all, false, false)
	if g.OK || !strings.Contains(g.Detail, "by-dev/wpcustom/logs/by-dev-rootcoord-dml_0 (id 7") ||
		!strings.Contains(g.Detail, "heron found by-dev/wpcustom/ by the LogMeta") || !strings.Contains(g.Detail, "milvus.yaml") {
		t.Fatalf("found prefix: %+v", g)
	}
}
