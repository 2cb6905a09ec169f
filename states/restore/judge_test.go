package restore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/applyplan"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// The scan's judge stage derives, chunk by chunk ahead of the staging,
// what the reset wrote at each key: each entry is compared with its own
// derived value, whichever chunk it lies in. A reset of 2500 distinct
// segments (three chunks of spans) after which Milvus changed three, in
// the first, middle and last chunks, and garbage-collected two: the dry
// run, --run and a saved plan applied (forced: it puts every key back)
// each name exactly those five keys (a derived value paired with another
// entry, or one the rule's next call overwrote, names other segments too).
// And a value the file's check does not decode, not base64 in the last
// chunk, fails the scan after it staged the chunks before: nothing is
// written, nothing is left in --backup-dir.
func TestRestoreMovedOnAcrossChunks(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	ctx := context.Background()
	layout := e.inst.Layout
	ch := "by-dev-rootcoord-dml_0_100v0"
	key := func(id int64) string { return layout.Meta(models.SegmentKey(100, 101, id)) }
	const first, n = 5000, 2500
	for id := int64(first); id < first+n; id++ {
		v := sample.Segment{ID: id, Collection: 100, Partition: 101, Channel: ch, Rows: id, State: commonpb.SegmentState_Flushed, Level: 2,
			Start: sample.Position(ch, sample.ID(commonpb.WALName_Pulsar, id), 7, commonpb.WALName_Unknown),
			DML:   sample.Position(ch, sample.ID(commonpb.WALName_Pulsar, id+1), 8, commonpb.WALName_Unknown)}.Encode()
		if _, err := cli.Put(ctx, key(id), string(v)); err != nil {
			t.Fatal(err)
		}
	}
	original := e.dump()
	backup := e.resetRun()
	afterReset := e.dump()
	// Each changed segment takes the value the reset wrote at another.
	changed := []string{key(first), key(first + n/2), key(first + n - 1)}
	for i, k := range changed {
		if _, err := cli.Put(ctx, k, afterReset[key(first+1+int64(i))]); err != nil {
			t.Fatal(err)
		}
	}
	deleted := []string{key(first + 999), key(first + 2000)}
	for _, k := range deleted {
		if _, err := cli.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(changed)
	slices.Sort(deleted)
	check := func(what string, m MovedOn) {
		t.Helper()
		slices.Sort(m.Changed)
		slices.Sort(m.Deleted)
		if !m.Checked || m.Total != 5 || !slices.Equal(m.Changed, changed) || !slices.Equal(m.Deleted, deleted) || len(m.Created) != 0 || m.Unknown != 0 {
			t.Fatalf("%s: moved on %+v, want changed %v, deleted %v", what, m, changed, deleted)
		}
	}
	r0 := e.rev()
	out, errs, code := e.run("restore --format json --file " + backup)
	var s Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != framework.ExitRefused {
		t.Fatalf("dry run: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	check("dry run", s.MovedOn)
	out, errs, code = e.run("restore --format json --run --backup-dir " + e.dir + " --file " + backup)
	s = Summary{}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != framework.ExitRefused || e.rev() != r0 {
		t.Fatalf("--run: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	check("--run", s.MovedOn)
	// The last segment's value made not base64, the checksum recomputed:
	// the file's check does not decode it, the scan fails on it after
	// staging the chunks before it; nothing is written, no backup is left.
	ls := lines(t, backup)
	last := slices.IndexFunc(ls, func(l string) bool { return strings.Contains(l, `"key":"`+key(first+n-1)+`"`) })
	var l map[string]any
	if err := json.Unmarshal([]byte(ls[last]), &l); err != nil {
		t.Fatal(err)
	}
	l["value"] = "not*base64"
	b, _ := json.Marshal(l)
	undecodable := append(slices.Clone(ls[:len(ls)-1]), "")
	undecodable[last] = string(b)
	und := e.dir + "/undecodable.jsonl"
	writeLines(t, und, undecodable, true)
	restores := t.TempDir()
	if _, errs, code := e.run("restore --force-moved-on --run --backup-dir " + restores + " --file " + und); code != framework.ExitFailed || e.rev() != r0 ||
		!strings.Contains(errs, fmt.Sprintf("line %d: value", last+1)) || !strings.Contains(errs, "illegal base64") {
		t.Fatalf("a late value that is not base64: exit %d\n%s", code, errs)
	}
	if left, err := os.ReadDir(restores); err != nil || len(left) != 0 {
		t.Fatalf("a failed restore left %v", left)
	}
	plan := fmt.Sprintf("%s/plan-%d.jsonl", e.dir, r0)
	if out, errs, code := e.run("restore --force-moved-on --file " + backup + " --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s\n%s", code, out, errs)
	}
	cmds := append([]*framework.Command{apply.Command(e.inst, Build), apply.Command(e.inst, reset.Build)}, applyplan.Commands(e.inst)...)
	out, errs, code, _ = shelltest.Run(t, cmds, "apply --file "+plan+" --run --yes --format json --backup-dir "+e.dir)
	// apply's plan carries the restore's gates, the moved-on one with its keys.
	var applied struct {
		Plan struct {
			Gates []framework.Gate `json:"gates"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &applied); err != nil || code != 0 {
		t.Fatalf("apply --file: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	var want []string
	for _, k := range changed {
		want = append(want, "changed since: "+k)
	}
	for _, k := range deleted {
		want = append(want, "deleted since: "+k)
	}
	gate := slices.IndexFunc(applied.Plan.Gates, func(g framework.Gate) bool { return g.Name == "restore: instance did not move on" })
	if gate < 0 || applied.Plan.Gates[gate].Count != 5 || !slices.Equal(applied.Plan.Gates[gate].Keys, want) {
		t.Fatalf("apply --file: gates %+v, want the moved-on gate with %v", applied.Plan.Gates, want)
	}
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("after the forced restore, keys differ from before the reset: %v", d)
	}
}
