package restore

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// After a reset, Milvus ran on the new WAL: it garbage-collected two
// segments, created one, and advanced a channel checkpoint. The restore's
// dry run and --run refuse (exit 3), naming each of those keys, and write
// nothing; --force-moved-on restores, saying what it rolls back. A restore
// right after a reset passes the gate untouched.
func TestRestoreOntoAnInstanceThatMovedOn(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	original := e.dump()
	backup := e.resetRun()
	afterReset := e.dump()
	layout := e.inst.Layout

	// Right after the reset: nothing moved on.
	out, errs, code := e.run("restore --format json --file " + backup)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var s Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if !s.MovedOn.Checked || s.MovedOn.Total != 0 || !hasGate(s, "instance did not move on", true) {
		t.Fatalf("right after the reset: %+v, gates %+v", s.MovedOn, s.Gates)
	}

	// Milvus moves on.
	var segments, channelCPs []string
	for k := range afterReset {
		rel, ok := layout.Rel(k)
		if !ok {
			continue
		}
		switch models.Classify(rel).Kind {
		case models.KindSegment:
			segments = append(segments, k)
		case models.KindChannelCP:
			channelCPs = append(channelCPs, k)
		}
	}
	sort.Strings(segments)
	sort.Strings(channelCPs)
	if len(segments) < 3 || len(channelCPs) < 2 {
		t.Fatalf("sample: %d segments, %d channel checkpoints", len(segments), len(channelCPs))
	}
	ctx := context.Background()
	gone := segments[:2]
	for _, k := range gone {
		if _, err := cli.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	created := segments[2][:strings.LastIndexByte(segments[2], '/')+1] + "999999"
	advanced := channelCPs[0]
	if _, err := cli.Put(ctx, created, afterReset[segments[2]]); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, advanced, afterReset[channelCPs[1]]); err != nil {
		t.Fatal(err)
	}
	movedOn := e.dump()

	for _, args := range []string{"", " --run", " --run --format json"} {
		r0 := e.rev()
		out, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + backup + args)
		if code != framework.ExitRefused || e.rev() != r0 {
			t.Fatalf("%q: exit %d, revision %d -> %d\n%s\n%s", args, code, r0, e.rev(), out, errs)
		}
		for _, want := range []string{"instance did not move on", "deleted since: " + gone[0], "deleted since: " + gone[1],
			"created since: " + created, "changed since: " + advanced, "--force-moved-on",
			"garbage-collected", "not restoring keeps the instance as it is now"} {
			// The gate's detail wraps (piped, at PipeWidth).
			if !strings.Contains(shelltest.Words(out+errs), want) {
				t.Fatalf("%q: output lacks %q\n%s\n%s", args, want, out, errs)
			}
		}
	}
	out, _, _ = e.run("restore --format json --file " + backup)
	s = Summary{}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	m := s.MovedOn
	if m.Total != 4 || len(m.Deleted) != 2 || len(m.Created) != 1 || len(m.Changed) != 1 || !s.Refused || hasGate(s, "instance did not move on", true) {
		t.Fatalf("moved on %+v, refused %v", m, s.Refused)
	}
	if d := diff(movedOn, e.dump()); len(d) != 0 {
		t.Fatalf("a refused restore wrote %v", d)
	}

	// --force-moved-on: the backed-up keys go back (the two segments come
	// back, the checkpoint goes back); the segment created since stays, with
	// positions in the reset's WAL: the check after the restore finds the
	// split state the gate warned of.
	out, errs, code = e.run("restore --force-moved-on --backup-dir " + e.dir + " --file " + backup + " --run")
	if code != framework.ExitFailed || !strings.Contains(out, "overridden") || !strings.Contains(out, "--force-moved-on: the restore rolls back") ||
		!strings.Contains(errs, "split state") {
		t.Fatalf("forced: exit %d\n%s\n%s", code, out, errs)
	}
	want := map[string]string{}
	for k, v := range original {
		want[k] = v
	}
	want[created] = afterReset[segments[2]]
	if d := diff(want, e.dump()); len(d) != 0 {
		t.Fatalf("after the forced restore, keys differ from the original (with the created segment): %v", d)
	}
}

func hasGate(s Summary, name string, ok bool) bool {
	for _, g := range s.Gates {
		if g.Name == name {
			return g.OK == ok
		}
	}
	return false
}
