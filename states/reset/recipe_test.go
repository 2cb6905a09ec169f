package reset

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// Issue 16 item 2: a reset refused by live sessions, an in-flight
// broadcast task and a growing segment ends with one numbered recipe in
// the fixed order (old WAL: broadcasts and the named collection; stop;
// leases with the seconds left; re-run), the same in the table, the lines,
// the JSON gates' fix and the refusal.
func TestRefusalRecipe(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	e := seedEnv(t, cli, ep, "recipe", commonpb.WALName_Pulsar)
	lease, err := cli.Grant(ctx, 300)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"session/querycoord", "session/datanode-5"} {
		if _, err := cli.Put(ctx, e.meta(k), `{"ServerID":3,"ServerName":"querycoord"}`, clientv3.WithLease(lease.ID)); err != nil {
			t.Fatal(err)
		}
	}
	e.put(e.meta(models.BroadcastTaskPrefix+"9"), sample.BroadcastTask(int32(models.BroadcastPending)))
	v := e.pc(0) + "_100v0"
	e.put(e.meta(models.SegmentKey(100, 101, 1009)), sample.Segment{ID: 1009, Collection: 100, Partition: 101, Channel: v, Rows: 5,
		State: commonpb.SegmentState_Growing, Start: sample.Position(v, sample.ID(e.sample.WAL, 9), 1, 0)}.Encode())

	steps := []*regexp.Regexp{
		regexp.MustCompile("1\\. start Milvus on its old WAL until the in-flight broadcast tasks finish \\(`show broadcast-task` shows none in flight\\), and flush the collection books \\(id 100\\) with Milvus on its old WAL"),
		regexp.MustCompile(`2\. stop every Milvus component \(on Kubernetes: scale the Milvus deployments and statefulsets to 0\)`),
		regexp.MustCompile("3\\. run `show session` until no session is alive \\(longest lease left: 2\\d\\d s\\)"),
		regexp.MustCompile(`4\. re-run the same command line`),
	}
	inOrder := func(what, s string) {
		t.Helper()
		at := 0
		for _, re := range steps {
			loc := re.FindStringIndex(s[at:])
			if loc == nil {
				t.Fatalf("%s: no step %q after offset %d:\n%s", what, re, at, s)
			}
			at += loc[1]
		}
		if strings.Contains(s, "5. ") {
			t.Fatalf("%s: a fifth step:\n%s", what, s)
		}
	}
	out, errs, code := e.reset("--target-wal kafka")
	if code != framework.ExitRefused {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContain(t, out, "2 session keys hold a lease (longest lease left: ", "1 broadcast task is in flight", "1 Growing, Sealed or Flushing segment and 0 segment-assign records", "what to do, in order:\n")
	_, recipe, _ := strings.Cut(out, "what to do, in order:")
	inOrder("table", shelltest.Words(recipe))
	inOrder("refusal", errs)

	lines, _, _ := e.reset("--target-wal kafka --format line")
	var recs []string
	for _, l := range strings.Split(lines, "\n") {
		if strings.HasPrefix(l, "step=") {
			recs = append(recs, l)
		}
	}
	if len(recs) != 4 || !strings.HasPrefix(recs[0], "step=1 text=\"start Milvus") || recs[3] != `step=4 text="re-run the same command line"` {
		t.Fatalf("line records: %q", recs)
	}

	s := planJSON(t, first(e.reset("--target-wal kafka --format json")))
	orders := map[string][]framework.StepOrder{}
	for _, g := range s.Gates {
		for _, f := range g.Fix {
			orders[g.Name] = append(orders[g.Name], f.Order)
		}
		if g.OK && len(g.Fix) > 0 {
			t.Fatalf("a passed gate with a fix: %+v", g)
		}
	}
	want := map[string]string{
		"no live Milvus component":      "[2 3]",
		"no in-flight broadcast task":   "[1 2 3]",
		"no unflushed segment in scope": "[1 2 3]",
	}
	for name, w := range want {
		if got := fmt.Sprint(orders[name]); got != w {
			t.Errorf("%s: fix orders %s, want %s", name, got, w)
		}
	}
	if len(orders) != len(want) {
		t.Errorf("gates with a fix: %v", orders)
	}
	inOrder("json recipe", numbered(framework.Recipe(s.Gates)))
}

func numbered(steps []string) string {
	var b strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	return b.String()
}
