package reset

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// wpLog writes a woodpecker log under prefix p as woodpecker does: its
// LogMeta (real protobuf bytes, see sample.WoodpeckerLog), then its segments.
func (e *env) wpLog(p, name string, id, truncSeg, truncEntry int64, segments ...int64) {
	e.t.Helper()
	e.put(p+"/logs/"+name, sample.WoodpeckerLog{ID: id, TruncatedSegment: truncSeg, TruncatedEntry: truncEntry}.Encode())
	for _, s := range segments {
		e.put(p+"/logs/"+name+"/segments/"+itoa(s), sample.WoodpeckerSegment{No: s, State: sample.WoodpeckerSealed, LastEntry: 9, Size: 100}.Encode())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func wpGate(t *testing.T, s *Summary) Gate {
	t.Helper()
	for _, g := range s.Gates {
		if g.Name == gates.WoodpeckerTargetName {
			return g
		}
	}
	t.Fatalf("no woodpecker gate in %+v", s.Gates)
	return Gate{}
}

// Issue 13 item 2: every log of a pchannel in scope refuses, under every
// prefix a release writes, a truncated log without segments included.
func TestWoodpeckerTargetMustBeEmpty(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	// Milvus 3.0's default prefix, a log with segments.
	e.wpLog("by-dev/woodpecker", e.pc(0), 1, -1, -1, 0, 1)
	// A truncated log without segments: not fresh either.
	e.wpLog("by-dev/woodpecker", e.pc(1), 2, 3, 40)
	e.put("by-dev/woodpecker/logidgen", []byte("3"))
	// A log of no pchannel of the instance.
	e.wpLog("by-dev/woodpecker", "other-log", 3, -1, -1, 0)
	for _, args := range []string{"--target-wal woodpecker", "--target-wal woodpecker --run", "--target-wal woodpecker --run --allow-growing"} {
		msg := refusedUnchanged(t, e, args)
		mustContain(t, msg, "woodpecker target is empty",
			"by-dev/woodpecker/logs/"+e.pc(0)+" (id 1, 2 segments 0-1, 3 keys)",
			"by-dev/woodpecker/logs/"+e.pc(1)+" (id 2, no segments, truncated at 3:40, 1 keys)",
			"effective prefix by-dev/woodpecker/ (default woodpecker.meta.prefix \"woodpecker\")",
			"`reset wal --target woodpecker --run`")
		if strings.Contains(msg, "--allow-non-empty-target") { // issue 27: the safe path only
			t.Fatalf("%s: the refusal offers the bypass flag", args)
		}
		if strings.Contains(msg, "other-log (") {
			t.Fatal("a log of no pchannel of the instance is named")
		}
	}
	// Other targets do not look at woodpecker.
	runOK(t, e, "--target-wal kafka")
	wpBefore := e.dump()
	res := runOK(t, e, "--target-wal woodpecker --allow-non-empty-target")
	mustContain(t, strings.Join(res.Plan.Warnings, "\n"), "--allow-non-empty-target", e.pc(1)+" (id 2, no segments, truncated at 3:40")
	if g := wpGate(t, res.Plan); !g.OK || !g.Overridden || g.Count != 2 {
		t.Fatalf("gate %+v", g)
	}
	mustContain(t, strings.Join(res.Plan.Reminders, "\n"), "under the effective prefix by-dev/woodpecker/ (default",
		"late 2.6 builds panic on it in cluster mode")
	// The reset leaves woodpecker's own metadata alone.
	after := e.dump()
	for k, v := range wpBefore {
		if strings.HasPrefix(k, "by-dev/woodpecker/") && after[k] != v {
			t.Fatalf("%s changed", k)
		}
	}
}

// Each prefix: the legacy woodpecker/ (effective as soon as a legacy key
// exists, shared with other instances), the configured one from the flag or
// the etcd config override, and {root}/wp (only named).
func TestWoodpeckerGatePrefixes(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := seedEnv(t, cli, ep, "by-dev", commonpb.WALName_Pulsar)
	other := seedEnv(t, cli, ep, "inst2", commonpb.WALName_Pulsar)

	// {root}/wp: harmless, named, not refused.
	e.wpLog("by-dev/wp", e.pc(0), 1, -1, -1, 0)
	s := planJSON(t, mustOut(t, e, "--target-wal woodpecker --format json"))
	g := wpGate(t, s)
	if !g.OK {
		t.Fatalf("a log under {root}/wp refused: %+v", g)
	}
	mustContain(t, g.Detail, "logs under by-dev/wp/, which no woodpecker release reads, stay: by-dev/wp/logs/"+e.pc(0))

	// The legacy prefix holds the other instance's logs only: this one's target is empty.
	other.wpLog("woodpecker", other.pc(0), 1, -1, -1, 0, 1)
	other.wpLog("woodpecker", other.pc(1), 2, 5, 5)
	g = wpGate(t, planJSON(t, mustOut(t, e, "--target-wal woodpecker --format json")))
	if !g.OK {
		t.Fatalf("another instance's logs refused: %+v", g)
	}
	mustContain(t, g.Detail, "effective prefix woodpecker/ (legacy: woodpecker/logs/... exists")
	// This instance's log there refuses; the other's are not named.
	e.wpLog("woodpecker", e.pc(2), 3, -1, -1, 4)
	msg := refusedUnchanged(t, e, "--target-wal woodpecker")
	mustContain(t, msg, "woodpecker/logs/"+e.pc(2)+" (id 3, 1 segments 4-4")
	if strings.Contains(msg, other.pc(0)) || strings.Contains(msg, other.pc(1)) {
		t.Fatalf("another instance's logs named:\n%s", msg)
	}
	// --pchannel scoping: only the logs of the pchannels named count, and the remedy names them.
	e.moveOutside("woodpecker", e.pc(1), e.pc(2))
	g = wpGate(t, planJSON(t, mustOut(t, e, "--target-wal woodpecker --pchannel "+e.pc(0)+" --format json")))
	if !g.OK {
		t.Fatalf("a log of a pchannel out of scope refused: %+v", g)
	}
	msg = refusedUnchanged(t, e, "--target-wal woodpecker --pchannel "+e.pc(2))
	mustContain(t, msg, "`reset wal --target woodpecker --pchannel "+e.pc(2)+" --run`")

	// The configured prefix: from the etcd config override, then from the flag.
	other.wpLog("inst2/custom", other.pc(0), 1, -1, -1, 0)
	other.put("inst2/config/woodpecker.meta.prefix", []byte("custom"))
	msg = refusedUnchanged(t, other, "--target-wal woodpecker")
	mustContain(t, msg, "inst2/custom/logs/"+other.pc(0), "woodpecker/logs/"+other.pc(1)+" (id 2, no segments, truncated at 5:5")
	other.wpLog("inst2/fromflag", other.pc(2), 1, -1, -1)
	msg = refusedUnchanged(t, other, "--target-wal woodpecker --wp-meta-prefix fromflag")
	mustContain(t, msg, "inst2/fromflag/logs/"+other.pc(2)+" (id 1, no segments, 1 keys)")
	// The override the flag replaced still holds the instance's log: found
	// by its LogMeta, it refuses too, named with why (issue 28 §3).
	mustContain(t, msg, "inst2/custom/logs/"+other.pc(0), "heron found inst2/custom/ by the LogMeta of the instance's pchannels under it")

	// A woodpecker.meta.prefix set only in milvus.yaml: nothing in etcd
	// names it, the gate finds it by its LogMeta.
	if _, err := other.cli.Delete(context.Background(), "inst2/config/woodpecker.meta.prefix"); err != nil {
		t.Fatal(err)
	}
	other.wpLog("inst2/yamlonly", other.pc(2), 4, -1, -1, 0)
	msg = refusedUnchanged(t, other, "--target-wal woodpecker")
	mustContain(t, msg, "inst2/yamlonly/logs/"+other.pc(2)+" (id 4, 1 segments 0-0", "inst2/yamlonly/ by the LogMeta", "milvus.yaml")
}

func mustOut(t *testing.T, e *env, args string) string {
	t.Helper()
	out, errs, code := e.reset(args)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s\n%s", args, code, out, errs)
	}
	return out
}
