package reset

import (
	"fmt"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
)

// Issue 16 §3: the scope line counts a long list and names its ends by the
// part that tells them apart; --wide lists every pchannel, in natural order.
func TestScopeLineCountsAndWideLists(t *testing.T) {
	var names []string
	for i := 0; i < 64; i++ {
		names = append(names, fmt.Sprintf("by-dev-rootcoord-dml_%d", i))
	}
	sorted := models.NaturalKeys((map[string]bool{names[10]: true, names[2]: true, names[63]: true, names[0]: true}))
	if strings.Join(sorted, ",") != strings.Join([]string{names[0], names[2], names[10], names[63]}, ",") {
		t.Fatalf("pchannels not in natural order: %v", sorted)
	}
	got := scopeText(Scope{WholeInstance: true, PChannels: names}, false)
	if want := "whole instance: 64 pchannels (dml_0 ... dml_63; --wide lists them)"; got != want {
		t.Errorf("scope %q, want %q", got, want)
	}
	if got := scopeText(Scope{WholeInstance: true, PChannels: names}, true); !strings.Contains(got, names[17]+", "+names[18]) {
		t.Errorf("--wide scope does not list every pchannel: %q", got)
	}
	if got := scopeText(Scope{PChannels: names[:1]}, false); got != "pchannels: 1 pchannel ("+names[0]+")" {
		t.Errorf("scoped to one: %q", got)
	}

	e := newEnv(t, commonpb.WALName_Pulsar)
	out, errs, code := e.reset("--target-wal kafka")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContain(t, out, "scope: whole instance: 3 pchannels (dml_0, dml_1, dml_2)\n")
	out, _, _ = e.reset("--target-wal kafka --wide")
	mustContain(t, out, "scope: whole instance: 3 pchannels: "+e.pc(0)+", "+e.pc(1)+", "+e.pc(2)+"\n")
}
