package gates

import (
	"context"
	"fmt"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework/embedded"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// fillUntilNoSpace writes 64 KiB values under junk/ until etcd refuses
// with NOSPACE (raising its alarm).
func fillUntilNoSpace(t *testing.T, cli *clientv3.Client) {
	t.Helper()
	value := strings.Repeat("j", 64<<10)
	for i := 0; i < 1000; i++ {
		_, err := cli.Put(context.Background(), fmt.Sprintf("junk/%04d", i), value)
		if err != nil {
			if !strings.Contains(err.Error(), "database space exceeded") {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("etcd never ran out of space")
}

func TestAlarmGateRefusesUnderNoSpaceUntilRecovered(t *testing.T) {
	cli, ep := etcdtest.StartWith(t, embedded.Options{QuotaBackendBytes: 1 << 20})
	ctx := context.Background()
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	g, err := NoAlarm(ctx, inst)
	if err != nil || !g.OK {
		t.Fatalf("a healthy etcd: %+v, %v", g, err)
	}
	space := EtcdSpace(ctx, inst)
	if space == nil || !space.QuotaReported || space.Quota != 1<<20 || space.DBSize == 0 {
		t.Fatalf("space: %+v", space)
	}
	space.WriteBytes = 4 << 20
	if w := space.Warning(); !strings.Contains(w, "over its quota of 1.0 MiB") {
		t.Fatalf("a write of 4 MiB into a 1 MiB quota: warning %q", w)
	}
	space.WriteBytes = 1
	if w := space.Warning(); w != "" {
		t.Fatalf("a write of one byte: warning %q (space %+v)", w, space)
	}

	fillUntilNoSpace(t, cli)
	g, err = NoAlarm(ctx, inst)
	if err != nil {
		t.Fatal(err)
	}
	if g.OK || g.Name != NoAlarmName || len(g.Keys) != 1 || !strings.HasSuffix(g.Keys[0], ": NOSPACE") {
		t.Fatalf("under NOSPACE: %+v", g)
	}
	for _, want := range []string{"out of space", "compact", "defrag --cluster", "alarm disarm", "--endpoints=" + ep} {
		if !strings.Contains(g.Detail, want) {
			t.Errorf("detail lacks %q: %s", want, g.Detail)
		}
	}

	// The recovery the gate names (after removing what filled it): compact
	// to the current revision (physical: done before the defrag), defragment,
	// disarm.
	del, err := cli.Delete(ctx, "junk/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(ctx, del.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Defragment(ctx, ep); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.AlarmDisarm(ctx, &clientv3.AlarmMember{}); err != nil {
		t.Fatal(err)
	}
	if g, err := NoAlarm(ctx, inst); err != nil || !g.OK {
		t.Fatalf("after the recovery: %+v, %v", g, err)
	}
}
