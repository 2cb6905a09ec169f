package apply_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// replanCase is flip with a Replan proof whose answers the test sets; it
// counts the plans built and the proofs asked.
type replanCase struct {
	unsettled     int64
	same          bool
	builds, sames atomic.Int64
	sameRev       atomic.Int64
}

func (c *replanCase) build(ctx context.Context, s flipStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
	c.builds.Add(1)
	pl, err := flipBuild(ctx, s, p, st)
	if err != nil {
		return nil, err
	}
	pl.Replan = &apply.Replan{Unsettled: c.unsettled, Same: func(_ context.Context, rev int64) (bool, error) {
		c.sames.Add(1)
		c.sameRev.Store(rev)
		return c.same, nil
	}}
	return pl, nil
}

type replanDoc struct {
	Verify struct {
		OK        bool     `json:"ok"`
		Revision  int64    `json:"revision"`
		ReadBack  string   `json:"read_back"`
		Replanned int64    `json:"replanned_keys"`
		Failures  []string `json:"failures"`
	} `json:"verify"`
}

// runReplan flips 3 keys with c's proof; foreign puts a key elsewhere
// after the first transaction.
func runReplan(t *testing.T, c *replanCase, foreign bool) (replanDoc, int) {
	t.Helper()
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 3, "old")
	cmds := []*framework.Command{apply.Tuned(flipStore{cli}, c.build, func(o *apply.Options) {
		o.AfterTxn = func(n int) error {
			if !foreign || n != 1 {
				return nil
			}
			_, err := cli.Put(context.Background(), "elsewhere", "x")
			return err
		}
	})}
	out, stderr, code, _ := shelltest.Run(t, cmds, "flip --run --max-txn-ops 1 --format json --backup-dir "+t.TempDir())
	var doc replanDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	return doc, code
}

// Proven by the run's revisions, the command's proof answers the re-plan:
// no plan is built again, and the proof reads its context at the verify's
// revision.
func TestVerifyReplanProvenByTheCommand(t *testing.T) {
	c := &replanCase{same: true}
	doc, code := runReplan(t, c, false)
	v := doc.Verify
	if code != 0 || !v.OK || v.ReadBack != "proven by revisions" || v.Replanned != 0 || c.builds.Load() != 1 || c.sames.Load() != 1 || c.sameRev.Load() != v.Revision {
		t.Fatalf("exit %d, verify %+v, %d builds, %d proofs at %d", code, v, c.builds.Load(), c.sames.Load(), c.sameRev.Load())
	}
}

// A command whose new values it would rewrite again (a planner that does
// not converge) fails the verify from its proof alone.
func TestVerifyReplanUnsettledFails(t *testing.T) {
	c := &replanCase{unsettled: 2, same: true}
	doc, code := runReplan(t, c, false)
	v := doc.Verify
	if code != framework.ExitFailed || v.OK || v.Replanned != 2 || c.builds.Load() != 1 ||
		!strings.Contains(strings.Join(v.Failures, "\n"), "planned again, the command still finds 2 keys to write") {
		t.Fatalf("exit %d, verify %+v, %d builds", code, v, c.builds.Load())
	}
}

// A context that decides otherwise at the verify's revision, or a write
// by someone else during the run (no proof by revisions, so no proof is
// asked), and the kit plans again: its plan's keys are the verdict.
func TestVerifyReplanFallsBackToPlanningAgain(t *testing.T) {
	for _, foreign := range []bool{false, true} {
		c := &replanCase{unsettled: 2, same: foreign}
		doc, code := runReplan(t, c, foreign)
		v := doc.Verify
		wantSames := int64(1)
		if foreign {
			wantSames = 0
		}
		if code != 0 || !v.OK || v.Replanned != 0 || c.builds.Load() != 2 || c.sames.Load() != wantSames ||
			(foreign && !strings.HasPrefix(v.ReadBack, "keys-only read")) {
			t.Fatalf("foreign %v: exit %d, verify %+v, %d builds, %d proofs", foreign, code, v, c.builds.Load(), c.sames.Load())
		}
	}
}

// A plan naming Again (apply --file: the recorded command's plan) is
// planned again for the verify through it, not through the command's own
// build, and the keys it still finds fail the verify.
func TestVerifyPlansAgainThroughAgain(t *testing.T) {
	for _, again := range []int64{0, 2} {
		cli, _ := etcdtest.Start(t)
		seedKeys(t, cli, 3, "old")
		var builds, agains atomic.Int64
		build := func(ctx context.Context, s flipStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
			builds.Add(1)
			pl, err := flipBuild(ctx, s, p, st)
			if err != nil {
				return nil, err
			}
			pl.Again = func(ctx context.Context, st *apply.Stage) (*apply.Plan, error) {
				agains.Add(1)
				return &apply.Plan{Command: "flip", Keys: again}, nil
			}
			return pl, nil
		}
		cmds := []*framework.Command{apply.Command(flipStore{cli}, build)}
		out, stderr, code, _ := shelltest.Run(t, cmds, "flip --run --format json --backup-dir "+t.TempDir())
		var doc replanDoc
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, stderr)
		}
		if builds.Load() != 1 || agains.Load() != 1 || doc.Verify.Replanned != again || doc.Verify.OK != (again == 0) || (code == 0) != (again == 0) {
			t.Fatalf("again %d: exit %d, %d builds, %d agains, verify %+v", again, code, builds.Load(), agains.Load(), doc.Verify)
		}
	}
}
