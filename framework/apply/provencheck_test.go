package apply_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// An After check's Proven form answers for it only when the run's own
// revisions prove the read-back, at the verify's revision; a write by
// someone else during the run, or a Proven whose read at that revision etcd
// compacted, and the check's Run answers (each of its answers here a note
// naming which ran).
func TestVerifyProvenCheckOnlyWhenProven(t *testing.T) {
	for _, c := range []struct {
		name                string
		foreign, compact    bool
		wantProven, wantRun int64
		note                string
	}{
		{name: "quiet", wantProven: 1, note: "proven"},
		{name: "another writer", foreign: true, wantRun: 1, note: "run"},
		{name: "compacted", compact: true, wantProven: 1, wantRun: 1, note: "run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cli, _ := etcdtest.Start(t)
			seedKeys(t, cli, 3, "old")
			var proven, run, provenRev atomic.Int64
			build := func(ctx context.Context, s flipStore, p *flipParams, st *apply.Stage) (*apply.Plan, error) {
				pl, err := flipBuild(ctx, s, p, st)
				if err != nil {
					return nil, err
				}
				pl.After = []apply.Check{{Name: "check",
					Run: func(context.Context) (string, error) {
						run.Add(1)
						return "run", nil
					},
					Proven: func(ctx context.Context, rev int64) (string, error) {
						proven.Add(1)
						provenRev.Store(rev)
						if c.compact {
							resp, err := cli.Put(ctx, "elsewhere", "x")
							if err != nil {
								return "", err
							}
							if _, err := cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
								return "", err
							}
						}
						if _, err := cli.Get(ctx, "r/meta/", clientv3.WithPrefix(), clientv3.WithRev(rev)); err != nil {
							return "", err
						}
						return "proven", nil
					}}}
				return pl, nil
			}
			cmds := []*framework.Command{apply.Tuned(flipStore{cli}, build, func(o *apply.Options) {
				o.AfterTxn = func(n int) error {
					if !c.foreign || n != 1 {
						return nil
					}
					_, err := cli.Put(context.Background(), "elsewhere", "y")
					return err
				}
			})}
			out, stderr, code, _ := shelltest.Run(t, cmds, "flip --run --max-txn-ops 1 --format json --backup-dir "+t.TempDir())
			var doc struct {
				Verify apply.Verify `json:"verify"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v\n%s\n%s", err, out, stderr)
			}
			v := doc.Verify
			if code != 0 || !v.OK || v.Note != c.note || proven.Load() != c.wantProven || run.Load() != c.wantRun ||
				(c.wantProven > 0 && provenRev.Load() != v.Revision) {
				t.Fatalf("exit %d, verify %+v, %d proven (at %d), %d run\n%s", code, v, proven.Load(), provenRev.Load(), run.Load(), stderr)
			}
		})
	}
}
