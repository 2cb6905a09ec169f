package apply_test

import (
	"context"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// A --run with nothing to write verifies, and its verify says nothing was
// written: no claim of keys written or read back, no split, no advice to
// complete; with a component live it fails so, naming it.
func TestVerifyAfterNothingWrittenSaysSo(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 4, "new")
	cmds := []*framework.Command{apply.Command(guardedFlip{flipStore{cli}}, func(ctx context.Context, s guardedFlip, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
		return flipBuild(ctx, s.flipStore, p, st)
	})}
	check := func(what, out, errs string, err error) {
		t.Helper()
		all := out + errs
		if err != nil {
			all += err.Error()
		}
		if i := strings.Index(all, "verify"); i < 0 || !strings.Contains(all[i:], "nothing was written") {
			t.Errorf("%s: the verify does not say nothing was written:\n%s", what, all)
		}
		for _, bad := range []string{"keys written", "keys were written", "split", "to complete", "read back at"} {
			if strings.Contains(all, bad) {
				t.Errorf("%s: says %q:\n%s", what, bad, all)
			}
		}
	}
	out, errs, code, err := shelltest.Run(t, cmds, "flip --run --yes --backup-dir "+t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d %v\n%s\n%s", code, err, out, errs)
	}
	check("nothing to write", out, errs, err)

	lease, err := cli.Grant(context.Background(), 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(context.Background(), "r/session/querynode-7", "{}", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	out, errs, code, err = shelltest.Run(t, cmds, "flip --run --yes --backup-dir "+t.TempDir())
	if code == 0 || !strings.Contains(out+errs, "r/session/querynode-7") {
		t.Fatalf("a live component: exit %d %v\n%s\n%s", code, err, out, errs)
	}
	check("a live component", out, errs, err)
}

// A run interrupted (Ctrl-C) once its backup is published, before its
// first transaction is sent, wrote nothing: it says so, with no STOPPED
// block, no split and no advice to complete or roll back, and leaves no
// backup of a change it did not make.
func TestInterruptBeforeTheFirstWriteSaysNothingWritten(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 4, "old")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmds := []*framework.Command{apply.Tuned(flipStore{cli}, flipBuild, func(o *apply.Options) {
		o.AfterBackup = func(string) error { cancel(); return nil }
	})}
	var out, errb strings.Builder
	sh := framework.NewShell(shelltest.State{Cmds: cmds}, &out, &errb)
	err := sh.Run(ctx, "flip --run --yes --backup-dir "+dir)
	all := out.String() + errb.String()
	if err != nil {
		all += err.Error()
	}
	if err == nil || !strings.Contains(all, "nothing was written") {
		t.Fatalf("%v\n%s", err, all)
	}
	for _, bad := range []string{"STOPPED", "split", "to complete", "roll it back"} {
		if strings.Contains(all, bad) {
			t.Errorf("says %q:\n%s", bad, all)
		}
	}
	mustHoldOld(t, cli)
}
