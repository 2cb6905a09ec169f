package apply_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// effectRuns records what the kit's run of a test effect saw.
type effectRuns struct {
	runs    int
	revAt   int64    // etcd's revision when it ran
	backups []string // backup files published when it ran
	fail    error
}

// withEffect is flipBuild whose plan also "erases" 3 items outside etcd.
func withEffect(cli *clientv3.Client, dir string, r *effectRuns) apply.Build[flipStore, flipParams] {
	return func(ctx context.Context, s flipStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
		pl, err := flipBuild(ctx, s, p, st)
		if err != nil {
			return nil, err
		}
		pl.External = []apply.Effect{{
			EffectInfo: apply.EffectInfo{Verb: "erase", Past: "erased", Count: 3, Unit: "items", Bytes: 30, Where: "the test's shelf"},
			Run: func(ctx context.Context, done func(int64)) error {
				r.runs++
				resp, err := cli.Get(ctx, "x", clientv3.WithCountOnly())
				if err != nil {
					return err
				}
				r.revAt = resp.Header.Revision
				r.backups, _ = filepath.Glob(filepath.Join(dir, "heron-backup-r-flip-*.jsonl"))
				if r.fail != nil {
					done(1)
					return r.fail
				}
				done(3)
				return nil
			},
		}}
		return pl, nil
	}
}

// The kit runs the effect once, after the backup is published and before
// the first etcd write, and reports it; a dry run never runs it.
func TestKitRunsTheEffectBetweenBackupAndWrites(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 4, "old")
	dir := t.TempDir()
	r := &effectRuns{}
	cmds := []*framework.Command{apply.Command(flipStore{cli}, withEffect(cli, dir, r))}
	if _, _, code, err := shelltest.Run(t, cmds, "flip --backup-dir "+dir); code != 0 || r.runs != 0 {
		t.Fatalf("dry run: exit %d %v, effect ran %d times", code, err, r.runs)
	}
	rev0 := revision(t, cli)
	stdout, stderr, code, err := shelltest.Run(t, cmds, "flip --run --format json --backup-dir "+dir)
	if code != 0 {
		t.Fatalf("run: exit %d %v\n%s\n%s", code, err, stdout, stderr)
	}
	if r.runs != 1 || r.revAt != rev0 || len(r.backups) != 1 {
		t.Fatalf("effect ran %d times at revision %d (before the run: %d), backups then %v", r.runs, r.revAt, rev0, r.backups)
	}
	if !strings.Contains(stderr, "flip: erase: 3/3 items (100.0%)") {
		t.Fatalf("no progress of the effect on stderr:\n%s", stderr)
	}
	var doc struct {
		External []apply.EffectDone `json:"external"`
		Applied  *apply.Result      `json:"applied"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(doc.External) != 1 || doc.External[0].Done != 3 || doc.External[0].Verb != "erase" || doc.Applied.Written != 4 {
		t.Fatalf("run document: %s", stdout)
	}
	// The published backup records the effect (no function, no credential).
	h := readHeader(t, r.backups[0])
	if len(h.External) != 1 || h.External[0].String() != "erase 3 items (30 bytes) in the test's shelf" {
		t.Fatalf("backup header: %+v", h.External)
	}
}

// A failing effect stops the run before any etcd write, saying so and what
// it did outside etcd; the instance is not split.
func TestKitFailingEffectWritesNothing(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 4, "old")
	dir := t.TempDir()
	r := &effectRuns{fail: errors.New("shelf locked")}
	cmds := []*framework.Command{apply.Command(flipStore{cli}, withEffect(cli, dir, r))}
	rev0 := revision(t, cli)
	stdout, _, code, err := shelltest.Run(t, cmds, "flip --run --backup-dir "+dir)
	if code != framework.ExitFailed || err == nil {
		t.Fatalf("exit %d %v", code, err)
	}
	var ee *apply.EffectError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "flip: erase items failed: shelf locked; nothing was written to etcd") ||
		!strings.Contains(err.Error(), "outside etcd it erased 1 of the 3 items (30 bytes) in the test's shelf") {
		t.Fatalf("error: %v", err)
	}
	if revision(t, cli) != rev0 || r.runs != 1 || strings.Contains(stdout, "STOPPED") {
		t.Fatalf("a failed effect wrote (revision %d, was %d) or ran %d times or reported a split:\n%s", revision(t, cli), rev0, r.runs, stdout)
	}
}

// A plan whose effect goes with no key change is an error, never a silent
// skip; the question names the effect first.
func TestKitEffectWithoutKeysAndTheQuestion(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 2, "new")
	dir := t.TempDir()
	r := &effectRuns{}
	cmds := []*framework.Command{apply.Command(flipStore{cli}, withEffect(cli, dir, r))}
	if _, _, code, err := shelltest.Run(t, cmds, "flip --run --backup-dir "+dir); code != framework.ExitFailed || err == nil ||
		!strings.Contains(err.Error(), "the plan would erase 3 items (30 bytes) in the test's shelf but changes no key") || r.runs != 0 {
		t.Fatalf("exit %d %v, ran %d", code, err, r.runs)
	}
	var asked string
	var out, errs strings.Builder
	sh := framework.NewShell(shelltest.State{Cmds: cmds}, &out, &errs)
	sh.SetConfirm(func(_ context.Context, q string) (bool, error) { asked = q; return false, nil })
	if err := sh.Run(context.Background(), "flip --value other --run --backup-dir "+dir); err != nil {
		t.Fatal(err)
	}
	// Issue 27: the question names what is written where and the backup's folder.
	want := "flip: write r, after the backup into " + dir + "\n" +
		"first erase 3 items (30 bytes) in the test's shelf (outside etcd: the backup cannot bring them back), then apply these 2 key changes to r? [y/N] "
	if asked != want || r.runs != 0 {
		t.Fatalf("asked %q, want %q (ran %d)", asked, want, r.runs)
	}
}

// mustHoldOld fails t when a key under r/meta/ holds anything but "old":
// the run wrote to etcd.
func mustHoldOld(t *testing.T, cli *clientv3.Client) {
	t.Helper()
	resp, err := cli.Get(context.Background(), "r/meta/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		if string(kv.Value) != "old" {
			t.Fatalf("%s was written", kv.Key)
		}
	}
}

func readHeader(t *testing.T, path string) apply.Header {
	t.Helper()
	info, err := apply.VerifyBackup(path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return info.Header
}

// guardedFlip is flipStore with a guard: no leased key under r/session/.
type guardedFlip struct{ flipStore }

func (guardedFlip) Guards() []apply.Guard {
	return []apply.Guard{{Name: "no live session", Prefix: "r/session/"}}
}

// A component that registers after the question (once the backup is
// published) stops the run before the effect outside etcd, which no backup
// brings back: the effect never runs, nothing is written, the refusal
// (exit 3) names the live key.
func TestKitChecksTheGuardsRightBeforeTheEffect(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 4, "old")
	dir := t.TempDir()
	r := &effectRuns{}
	build := func(ctx context.Context, s guardedFlip, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
		return withEffect(cli, dir, r)(ctx, s.flipStore, p, st)
	}
	register := func(string) error {
		lease, err := cli.Grant(context.Background(), 60)
		if err != nil {
			return err
		}
		_, err = cli.Put(context.Background(), "r/session/datacoord", "{}", clientv3.WithLease(lease.ID))
		return err
	}
	cmds := []*framework.Command{apply.Tuned(guardedFlip{flipStore{cli}}, build, func(o *apply.Options) { o.AfterBackup = register })}
	stdout, stderr, code, err := shelltest.Run(t, cmds, "flip --run --yes --backup-dir "+dir)
	if r.runs != 0 {
		t.Fatalf("the effect ran with a live session (exit %d %v)\n%s\n%s", code, err, stdout, stderr)
	}
	if code != framework.ExitRefused || err == nil || !strings.Contains(err.Error(), "r/session/datacoord") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("exit %d %v\n%s\n%s", code, err, stdout, stderr)
	}
	mustHoldOld(t, cli)
}

// A component that registers while the effect runs stops it after the
// batch it was doing: the effect is told (its context is cancelled), does
// no more, and the run writes nothing to etcd, naming the live key.
func TestKitStopsTheEffectWhenAComponentRegisters(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 4, "old")
	dir := t.TempDir()
	var erased int
	build := func(ctx context.Context, s guardedFlip, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
		pl, err := flipBuild(ctx, s.flipStore, p, st)
		if err != nil {
			return nil, err
		}
		pl.External = []apply.Effect{{
			EffectInfo: apply.EffectInfo{Verb: "erase", Past: "erased", Count: 3, Unit: "items", Bytes: 30, Where: "the test's shelf"},
			Run: func(ctx context.Context, done func(int64)) error {
				for i := 0; i < 3; i++ {
					erased++
					if i == 0 {
						lease, err := cli.Grant(context.Background(), 60)
						if err != nil {
							return err
						}
						if _, err := cli.Put(context.Background(), "r/session/querynode-3", "{}", clientv3.WithLease(lease.ID)); err != nil {
							return err
						}
					}
					done(1)
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				return nil
			},
		}}
		return pl, nil
	}
	cmds := []*framework.Command{apply.Command(guardedFlip{flipStore{cli}}, build)}
	stdout, stderr, code, err := shelltest.Run(t, cmds, "flip --run --yes --backup-dir "+dir)
	if erased != 1 || code == 0 || err == nil || !strings.Contains(err.Error(), "r/session/querynode-3") || !strings.Contains(err.Error(), "nothing was written to etcd") {
		t.Fatalf("erased %d of 3; exit %d %v\n%s\n%s", erased, code, err, stdout, stderr)
	}
	mustHoldOld(t, cli)
}
