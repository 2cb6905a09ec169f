package gates

import (
	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"context"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/sampletest"
)

func check(t *testing.T, cli *clientv3.Client, ep string, fn func(context.Context, *instance.Instance, int64) (framework.Gate, error)) framework.Gate {
	t.Helper()
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	g, err := fn(context.Background(), inst, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestBroadcastGate(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	layout := models.NewLayout("by-dev", "meta")
	put := func(id string, v []byte) {
		if _, err := cli.Put(ctx, layout.Meta(models.BroadcastTaskPrefix+id), string(v)); err != nil {
			t.Fatal(err)
		}
	}
	put("1", sample.BroadcastTask(int32(models.BroadcastDone)))
	if g := check(t, cli, ep, InFlightBroadcasts); !g.OK || g.Detail != "no broadcast task is Pending, WaitAck or Replicated" {
		t.Fatalf("a done task: %+v", g)
	}
	// One that does not decode: the gate says so, not that it is in flight.
	put("2", []byte{0xff, 0xff, 0xff})
	g := check(t, cli, ep, InFlightBroadcasts)
	if g.OK || g.Count != 1 || !strings.Contains(g.Detail, "could not be decoded") || strings.Contains(g.Detail, "in flight (") ||
		len(g.Keys) != 1 || !strings.Contains(g.Keys[0], "does not decode") {
		t.Fatalf("an undecodable task: %+v", g)
	}
	put("3", sample.BroadcastTask(int32(models.BroadcastPending)))
	g = check(t, cli, ep, InFlightBroadcasts)
	if g.OK || g.Count != 2 || !strings.Contains(g.Detail, "1 broadcast task is in flight") || !strings.Contains(g.Detail, "1 broadcast task could not be decoded") {
		t.Fatalf("both: %+v", g)
	}
}

func TestLiveComponentGate(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	layout := models.NewLayout("by-dev", "meta")
	if _, err := cli.Put(ctx, layout.Meta(models.SessionIDKey), "7"); err != nil {
		t.Fatal(err)
	}
	if g := check(t, cli, ep, LiveComponents); !g.OK {
		t.Fatalf("the server-id counter is not a component: %+v", g)
	}
	lease, err := cli.Grant(ctx, 300)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, layout.Meta("session/datacoord"), "{}", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	g := check(t, cli, ep, LiveComponents)
	if g.OK || g.Name != LiveComponentName || g.Count != 1 || !strings.Contains(g.Detail, "stop Milvus") || !strings.HasPrefix(g.Keys[0], "session/datacoord (lease ") {
		t.Fatalf("a live session: %+v", g)
	}
	// The lease was granted for 300 s: the detail names what is left of it
	// (a few seconds may have passed), the fix waits for it.
	if !strings.Contains(g.Detail, "1 session key holds a lease (longest lease left: 2") || !strings.Contains(g.Detail, " s)") {
		t.Fatalf("1 session key, the lease left: %q", g.Detail)
	}
	if len(g.Fix) != 2 || g.Fix[0].Order != framework.StepStop || g.Fix[1].Order != framework.StepLeases ||
		!strings.Contains(g.Fix[1].Text, "`show session`") || !strings.Contains(g.Fix[1].Text, "longest lease left: 2") {
		t.Fatalf("the fix of live sessions: %+v", g.Fix)
	}
	short, err := cli.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, layout.Meta("session/querycoord"), "{}", clientv3.WithLease(short.ID)); err != nil {
		t.Fatal(err)
	}
	g = check(t, cli, ep, LiveComponents)
	if g.Count != 2 || !strings.Contains(g.Detail, "2 session keys hold a lease (longest lease left: 2") {
		t.Fatalf("2 session keys: the longest lease is the 300 s one: %q", g.Detail)
	}
}

// Every write command runs the same instance gates, in one order; on a
// root without streaming keys the generation gate refuses.
func TestInstanceGates(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "meta")
	for k, v := range sampletest.PreStreaming(layout, commonpb.WALName_Pulsar).KVs {
		if _, err := cli.Put(context.Background(), k, string(v)); err != nil {
			t.Fatal(err)
		}
	}
	inst := instance.New(cli, layout, []string{ep})
	gs, err := Instance(context.Background(), inst, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	refused := ""
	for _, g := range gs {
		names = append(names, g.Name)
		if !g.OK {
			refused = g.Name
		}
	}
	if len(gs) != 4 || names[0] != NoAlarmName || names[2] != LiveComponentName || names[3] != InFlightName || refused != names[1] {
		t.Fatalf("instance gates on a pre-streaming root: %v (refused %q)", names, refused)
	}
}
