package restore

import (
	"context"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Issue 14: restore refuses a root that now looks like Milvus 2.5 (no
// streaming keys, datacoord positions), writing nothing.
func TestRestoreRefusesPreStreaming(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	backup := e.resetRun()
	for _, p := range models.StreamingMarkers {
		if _, err := cli.Delete(context.Background(), e.inst.Layout.Meta(p), clientv3.WithPrefix()); err != nil {
			t.Fatal(err)
		}
	}
	before, r0 := e.dump(), e.rev()
	out, errs, code := e.run("restore --file " + backup + " --run")
	if code != framework.ExitRefused || e.rev() != r0 || len(diff(before, e.dump())) != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out+errs, gates.GenerationName) || !strings.Contains(out+errs, "pre-streaming (2.5 or older)") {
		t.Fatalf("refusal does not name the generation:\n%s\n%s", out, errs)
	}
}
