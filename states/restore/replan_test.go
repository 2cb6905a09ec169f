package restore

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Issue 24 item 6: restore's verify does not build the plan again (which
// read the input file once per phase and for its checksum, and scanned the
// prefixes for created keys). Proven by the run's revisions it reads
// nothing more: the input file moved away once the backup of the restore is
// published, the verify still proves the run. With another writer during
// the run it reads the file once, at the current revision (Replan.Pending).
func TestRestoreVerifyDoesNotBuildAgain(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	for _, c := range []struct {
		name, readBack string
		foreign        bool
	}{{"proven", "proven by revisions", false}, {"foreign write", "keys-only read", true}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, cli, ep, "by-dev-"+c.name[:3])
			original := e.dump()
			backup := e.resetRun()
			moved := backup + ".moved"
			e.tune = func(o *apply.Options) {
				o.AfterBackup = func(string) error {
					if c.foreign {
						_, err := cli.Put(context.Background(), "elsewhere/"+c.name, "x")
						return err
					}
					return os.Rename(backup, moved)
				}
			}
			out, errs, code := e.run("restore --file " + backup + " --run --format json --backup-dir " + e.dir)
			e.tune = nil
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			var r RunResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if v := r.Verify; v == nil || !v.OK || len(v.ReadBack) < len(c.readBack) || v.ReadBack[:len(c.readBack)] != c.readBack || v.Replanned != 0 {
				t.Fatalf("verify %+v", r.Verify)
			}
			if d := diff(original, e.dump()); len(d) > 1 || (len(d) == 1 && !c.foreign) {
				t.Fatalf("not restored: %v", d)
			}
		})
	}
}
