package apply

import (
	"context"

	"github.com/heron-shell/heron/framework"
)

// Plan is a write command's complete plan: every gate with its verdict, the
// view that renders it (summary, gates, warnings once each), and its ops,
// staged through the Stage the kit handed to build.
type Plan struct {
	// Command names the command in messages ("reset checkpoint").
	Command string
	// Title heads the run's result ("reset checkpoint to kafka").
	Title string
	// View renders the whole plan in every format; the kit shows it before
	// the question and on a refusal, with and without --run alike.
	View framework.Result
	// Gates are every gate of the plan, context and scan alike: one failed
	// gate refuses it (exit 3).
	Gates []framework.Gate
	// Keys is the number of keys the plan writes or deletes.
	Keys int64
	// Root is the root path named in the question before the first write.
	Root string
	// SplitState: the plan found a split state (an interrupted run left
	// it), so its backup continues an earlier one (Header.Continues):
	// Continues when the command names it (restore: the file it restores,
	// whose restore rolls that split back), else the latest earlier backup
	// of the same command in the backup folder.
	SplitState bool
	Continues  string
	// Put is how the result names a put ("rewritten", "put back").
	Put string
	// Nothing is the result's line when there is nothing to write.
	Nothing string
	// Reminders close a verified run.
	Reminders []string
	// After are the checks read once the keys read back (restore's
	// split-state check, named by its backup's header).
	After []Check
	// External are the plan's effects outside etcd (external.go): named in
	// the question, run once after the backup is published and before the
	// first etcd write. A saved plan records them; apply --file refuses it.
	External []Effect
	// Replan, when set, is what planning again after the run finds, proven
	// by the command during its scan; the verify uses it instead of a
	// re-plan when the run's own revisions prove nothing else wrote (nil:
	// the verify always plans again).
	Replan *Replan
	// Again, when set, is the plan the verify builds again instead of the
	// command's own (apply --file: the recorded command's, not the file's).
	Again func(ctx context.Context, st *Stage) (*Plan, error)
	// commandLine is the staged header's command line (the kit sets it):
	// what a verify that could not read names to check again.
	commandLine string
}

// Replan is a command's proof of what its re-plan after a run finds,
// without reading its keys again. A re-plan at the verify's revision R
// reads the context, then decides every key of the command's scan. When
// the run's own revisions prove that etcd at R holds the plan's revision
// plus exactly the run's ops (Verify.ReadBack "proven by revisions"),
// every key holds either its plan value (a key the plan kept) or its
// staged new value, or is absent (deleted): so the re-plan's answer is
// known from the scan, provided the context read at R decides each key as
// the plan's did. The command checks the new values during its scan
// (Unsettled) and the context at R (Same); either failing its part, the
// kit plans again as before.
type Replan struct {
	// Unsettled counts the staged puts whose new value the plan's own
	// decision would rewrite again (a planner that does not converge).
	Unsettled int64
	// Same reports whether a plan at rev (the verify's revision) decides
	// every key as the plan did (keys it kept stay kept, its new values
	// stay settled) and scans no key the plan did not scan, reading at rev
	// what of the command's context the run may have changed. false: the
	// kit plans again.
	Same func(ctx context.Context, rev int64) (bool, error)
	// Pending, when set, is the command's cheap re-plan, for a verify the
	// run's revisions do not prove (another writer wrote during the run):
	// the keys planning again at the current revision would write, read
	// without building the whole plan again (nil: the kit builds it again).
	Pending func(ctx context.Context) (int64, error)
}

// Refusal is nil when every gate passed: the one place a plan is refused.
func (p *Plan) Refusal() error { return framework.Refusal(p.Command, p.Gates) }

// Check is a read after the verify: a note (verify passes, with the note
// instead of "ok") or an error (verify fails).
type Check struct {
	Name string
	Run  func(ctx context.Context) (note string, err error)
	// Proven, when set, runs instead of Run when the run's own revisions
	// prove that etcd at rev (the verify's revision) holds the plan's
	// revision plus exactly the run's ops (Verify.ReadBack "proven by
	// revisions"): what the command's scan learnt of the keys it read
	// stands for reading them again at rev.
	Proven func(ctx context.Context, rev int64) (note string, err error)
}
