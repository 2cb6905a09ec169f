package reset

import (
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
)

// Issue 16 §3: pchannels in natural order everywhere: the plan's examples
// are the naturally first keys of their kind (dml_0, dml_1, dml_2, not
// dml_10, which etcd returns before dml_2), and the keys a warning lists
// come in natural order (dml_3 before dml_10).
func TestPlanListsPChannelsInNaturalOrder(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Kafka)
	pc10 := strings.TrimSuffix(e.pc(0), "0") + "10"
	pc3 := strings.TrimSuffix(e.pc(0), "0") + "3"
	for _, pc := range []string{pc10, pc3} {
		e.put(e.meta(models.ConsumeCheckpointKey(pc)), sample.Checkpoint{ID: sample.ID(commonpb.WALName_Kafka, 5), TimeTick: 3}.Encode())
		e.put(e.meta(models.ReplicatingPChannel+"standby-"+pc), []byte("x"))
	}
	dry, _, code := e.reset("--target-wal kafka --format json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, dry)
	}
	s := planJSON(t, dry)
	k := kindCount(s, KindConsumeCP)
	if k == nil {
		t.Fatalf("no consume-checkpoint kind: %+v", s.Rewrites)
	}
	var got []string
	for _, ex := range k.Examples {
		got = append(got, ex.Key)
	}
	want := []string{e.meta(models.ConsumeCheckpointKey(e.pc(0))), e.meta(models.ConsumeCheckpointKey(e.pc(1))), e.meta(models.ConsumeCheckpointKey(e.pc(2)))}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("consume-checkpoint examples\n%q\nwant\n%q", got, want)
	}
	w := strings.Join(s.Warnings, "\n")
	i3 := strings.Index(w, "standby-"+pc3)
	i10 := strings.Index(w, "standby-"+pc10)
	if i3 < 0 || i10 < 0 || i3 > i10 {
		t.Errorf("replication keys not in natural order (dml_3 at %d, dml_10 at %d):\n%s", i3, i10, w)
	}
}
