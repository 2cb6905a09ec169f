package restore

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// TestRestoreOfARollbackOfASplitState: a reset stopped part way leaves a
// split state, its backup A the original values. Restoring A rolls it back
// and backs up the split values it overwrote (R): that backup was taken of
// a split state, so its header says so and continues A. Restoring R (the
// rollback undone) then leaves the split state exactly as the reset did and
// says so, naming A next, exit 0 (not "another write changed the
// instance": nobody else wrote); restoring A after it gives the original
// instance byte for byte. A restore run on an instance that is not split
// records no chain.
func TestRestoreOfARollbackOfASplitState(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	original := e.dump()
	e.tune = stopAfterTxns(2)
	out, errs, code := e.run("reset checkpoint --target-wal kafka --max-txn-ops 4 --run --backup-dir " + e.dir)
	e.tune = nil
	backups, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-*"))
	if code != framework.ExitFailed || !strings.Contains(out, "STOPPED") || len(backups) != 1 {
		t.Fatalf("stopped reset: exit %d, backups %v\n%s\n%s", code, backups, out, errs)
	}
	a := backups[0]
	split := e.dump()

	rollback := func(file, dir string) RunResult {
		t.Helper()
		out, errs, code := e.run("restore --format json --backup-dir " + dir + " --file " + file + " --run")
		var r RunResult
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Applied == nil || !r.Verify.OK {
			t.Fatalf("restore --file %s: exit %d\n%s\n%s", file, code, out, errs)
		}
		return r
	}
	// The rollback: its backup R holds the split state and continues A.
	run := rollback(a, e.dir)
	res := *run.Applied
	r := res.Backup
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ after the rollback: %v", d)
	}
	if !res.SplitState || res.Continues != a || res.OriginalBackup != a ||
		!strings.Contains(strings.Join(run.Plan.Warnings, "\n"), "the instance is in a split state on") ||
		!strings.Contains(strings.Join(run.Reminders, "\n"), "restore --file "+r+" --run puts every key the run changed in etcd back as it was, in the split state it found (then restore --file "+a+" --run") {
		t.Fatalf("the rollback's backup of the split state: %+v\nwarnings %q\nreminders %q", res, run.Plan.Warnings, run.Reminders)
	}
	if chain, err := apply.BackupChain(r); err != nil || fmt.Sprint(chain) != fmt.Sprint([]string{r, a}) {
		t.Fatalf("chain of %s: %v %v", r, chain, err)
	}

	// Its plan names the order.
	out, _, code = e.run("restore --format json --file " + r)
	var s Summary
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil || fmt.Sprint(s.Chain) != fmt.Sprint([]string{r, a}) || s.OriginalBackup != a {
		t.Fatalf("plan of %s: exit %d\n%s", r, code, out)
	}

	// The rollback undone: the split state again, said as such, A next.
	dir2 := t.TempDir()
	out, errs, code = e.run("restore --backup-dir " + dir2 + " --file " + r + " --run")
	if code != 0 || strings.Contains(out, "verify: ok") || strings.Contains(out+errs, "another write changed") ||
		!strings.Contains(out, "verify: SPLIT STATE") || !strings.Contains(out, "restore next: restore --file "+a+" --run") {
		t.Fatalf("restore of %s: exit %d\n%s\n%s", r, code, out, errs)
	}
	if d := diff(split, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ from the stopped reset's: %v", d)
	}
	// The restore of A that follows rolls back byte for byte.
	res = *rollback(a, dir2).Applied
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ after restoring %s: %v", a, d)
	}
	// Restoring its backup again (taken of the split state too) and then
	// the first restore's backup R2, taken of the original instance.
	backups, _ = filepath.Glob(filepath.Join(dir2, "heron-backup-*"))
	if len(backups) != 2 {
		t.Fatalf("backups in %s: %v", dir2, backups)
	}
	r2 := backups[0]
	if r2 == res.Backup {
		r2 = backups[1]
	}
	if h, err := apply.ReadBackupHeader(r2); err != nil || h.SplitState || h.Continues != "" || h.OriginalBackup != "" {
		t.Fatalf("backup %s, taken of the original instance: %+v %v", r2, h, err)
	}
}
