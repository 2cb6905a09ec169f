package show

import (
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
)

// Issue 10 §3: the help of every show command has an example line, names
// the value of each flag (--collection ID, not STRING or N), and says what
// leaving a flag out means instead of "(default 0)".
func TestShowHelpReadsWell(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	for _, c := range Commands(e.inst) {
		out, _ := e.mustRun("help " + c.Path())
		if !strings.Contains(out, "\nExample:\n  "+c.Path()) {
			t.Errorf("%s: no example line:\n%s", c.Path(), out)
		}
		for _, bad := range []string{"(default 0)", "(default -1)", "(default )", " STRING ", "--collection N"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: help shows %q:\n%s", c.Path(), bad, out)
			}
		}
		for _, f := range c.Flags() {
			if (f == "collection" || f == "pchannel") && !strings.Contains(out, "all when omitted") {
				t.Errorf("%s: --%s does not say what omitting it means:\n%s", c.Path(), f, out)
			}
		}
	}
	out, _ := e.mustRun("show etcd-kv --help")
	for _, s := range []string{"--key KEY", "--prefix PREFIX", "--limit N", "when omitted: 100 in a table"} {
		if !strings.Contains(out, s) {
			t.Errorf("show etcd-kv --help lacks %q:\n%s", s, out)
		}
	}
}
