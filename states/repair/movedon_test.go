package repair

import (
	"path/filepath"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/sampletest"
)

// restoreRefused requires restore of the newest backup to be refused (exit
// 3) with nothing written.
func (e *env) restoreRefused(what string) {
	e.t.Helper()
	bs := e.backups()
	before := e.dump()
	out, errs, code := e.run("restore --file " + bs[len(bs)-1] + " --backup-dir " + e.dir + " --run")
	if code != framework.ExitRefused {
		e.t.Fatalf("restore after %s: exit %d\n%s%s", what, code, out, errs)
	}
	e.changed(before)
}

// restore of a repair's backup after Milvus moved on (the flusher moved
// the checkpoint, the streaming node rewrote the registration it created,
// the coordinator stored a new task under the id removed) is refused.
func TestRepairRestoreAfterTheInstanceMovedOn(t *testing.T) {
	e := newEnv(t)
	v := e.sample.VChannels[0]
	if out, errs, code := e.repair("repair checkpoint --vchannel " + v + " --set-to pchannel-cp --run"); code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.cpWith(v, 60, 70)
	e.restoreRefused("the flusher moved the checkpoint")

	e = newEnv(t)
	v, metaKey, _ := e.unregister(0, true)
	if out, errs, code := e.repair("repair vchannel-registration --vchannel " + v + " --run"); code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.put(metaKey, e.sample.KVs[metaKey])
	e.restoreRefused("the streaming node rewrote the registration")

	e = newEnv(t)
	key, vs := e.stuckTask()
	if out, errs, code := e.repair("repair wal-broadcast-task --id 7 --mode remove --force --run"); code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	e.put(key, sampletest.AlterWALTask(int32(models.BroadcastPending), commonpb.WALName_Kafka, nil, vs, 0))
	e.restoreRefused("a new task under the id")
}

// A component that registers between the plan and its apply: the saved
// plan is refused (exit 3), naming it, nothing written.
func TestRepairApplyWithALiveComponent(t *testing.T) {
	e := newEnv(t)
	e.stuckTask()
	plan := filepath.Join(e.dir, "plan.jsonl")
	if out, errs, code := e.repair("repair wal-broadcast-task --id 7 --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	e.live("session/mixcoord", "mixcoord")
	e.applyRefused(plan, "session/mixcoord")
}
