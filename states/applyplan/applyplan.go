// Package applyplan is `apply --file PLAN [--run]`: it shows a plan a write
// command saved with --plan-out and applies it only when it is what heron
// plans now. A saved plan is a claim: apply plans the recorded command
// again (its name and flags from the file's header), through that
// command's own build with all its gates, at the current revision, and
// compares the file with that plan op for op (same keys, same op, the old
// value the file holds byte for byte what etcd holds now, same new value).
// Any difference refuses it, naming the keys. What it writes, backs up and
// verifies is that fresh plan: old values from etcd, never from the file.
package applyplan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
)

// Params are the flags of `apply`.
type Params struct {
	framework.ParamBase `use:"apply" desc:"show a plan saved with --plan-out and apply it, refused unless heron plans the same ops now (a plan unless --run)" example:"apply --file plan.jsonl --expect-digest 3f2a... --run"`
	File                string `name:"file" required:"true" placeholder:"PLAN" desc:"the plan file a write command saved with --plan-out"`
	ExpectDigest        string `name:"expect-digest" placeholder:"SHA256" desc:"refuse the plan unless its digest (the sha256 --plan-out printed) is this: the file is the one reviewed"`
	framework.WriteFlags
	framework.Output
}

// Validate checks the flags.
func (p *Params) Validate() error {
	if strings.TrimSpace(p.File) == "" {
		return framework.Usagef("apply: --file is empty")
	}
	return nil
}

// Commands are the apply command on a connected instance: params + plan
// (Build) + view (Summary), run by the kit.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{apply.Command(inst, Build)}
}

// Summary is the plan of a saved plan.
type Summary struct {
	Command string `json:"command"`
	File    string `json:"file"`
	// Plan is the header of the file: the command that planned, at which revision.
	Plan apply.Header `json:"plan"`
	// Heron is the heron that applies (Plan.Heron the one that planned).
	Heron string `json:"heron"`
	// Revision is the revision the command planned again at.
	Revision int64            `json:"revision"`
	Gates    []framework.Gate `json:"gates"`
	Refused  bool             `json:"refused"`
	// TotalKeys the plan made again writes; Compared ops of it were
	// compared with the file; Differences lists the first differences (of
	// DifferencesTotal).
	TotalKeys int64 `json:"total_keys"`
	// SplitState: planning again found the instance split (positions in
	// more than one WAL: an interrupted run), which a refusal must not hide.
	SplitState       bool               `json:"split_state"`
	Compared         int64              `json:"compared"`
	Differences      []apply.Difference `json:"differences"`
	DifferencesTotal int64              `json:"differences_total"`
	// Again is the view of the plan made again (nil: not planned again),
	// "replan" in the JSON; the table shows its gates only, among the
	// apply's (the file was reviewed; what matters now is that it equals).
	Again framework.Result `json:"-"`
}

// Build is apply --file as the kit's phases: the context (the file's
// header, its recorded command and the gates of the file: this instance's,
// a command heron plans again, nothing outside etcd, no credential, the
// digest reviewed), the scan (the recorded command planned again through
// the stage with its recorded flags, its own gates with it, the file
// compared with its ops as they are staged), the gates (the command's, its
// version, the same ops) and the view. Its instance gates are the recorded
// command's (Phases.Replay): a file refused before it is planned again
// shows them itself.
var Build = gates.Write(apply.Phases[*instance.Instance, Params, *replay]{
	Context: readContext, Replay: (*replay).scan, Gates: (*replay).gates, View: (*replay).view})

// replay is apply's context: the file, read once side by side with the
// plan made again (its checksum checked at its end line before anything is
// written), and what planning again found.
type replay struct {
	inst   *instance.Instance
	br     *apply.BackupReader
	h      apply.Header
	s      *Summary
	writer string
	scope  []string
	// fileGates are the gates of the file; refused: they refuse it (or its
	// recorded command did not parse), so it is not planned again.
	fileGates []framework.Gate
	refused   bool
	// again is the plan made again and the header its scan staged under.
	again       *apply.Plan
	againHeader apply.Header
}

// Close closes the file (the kit does, once the scan has read it).
func (r *replay) Close() error { return r.br.Close() }

// readContext opens the file, reads its header and gates it at rev; a
// file the gates refuse is read whole (its checksum: a changed file is
// named) and not planned again.
func readContext(_ context.Context, inst *instance.Instance, p *Params, rev int64) (_ *replay, err error) {
	br, err := apply.OpenBackup(p.File)
	if err != nil {
		return nil, fmt.Errorf("apply: %w", err)
	}
	defer func() {
		if err != nil {
			br.Close()
		}
	}()
	h := br.Header
	r := &replay{inst: inst, br: br, h: h, writer: gates.Writer(h.Planner, ""),
		s: &Summary{Command: "apply", File: p.File, Plan: h, Heron: apply.HeronBuild(), Revision: rev, Differences: []apply.Difference{}}}
	var known bool
	r.scope, known = gates.WriteScope(inst.Layout, r.writer)
	// A plan never records apply itself (apply --file --plan-out records
	// the command it plans again): a header naming it is edited, and
	// planning it again would open the file it names, maybe itself, for
	// ever.
	known = known && r.writer != "apply" && apply.Registered(inst, r.writer)
	// The order plans show them in; plannerAt is plannerGate's.
	r.fileGates = []framework.Gate{gates.FileGate(inst, gates.File{What: "plan", Made: "made for", RootPath: h.RootPath}),
		externalGate(apply.Header{External: h.External, Planner: h.Planner, Params: h.Params}), plannerGate(h, known), credentialGate(h)}
	if p.ExpectDigest != "" {
		digest, err := apply.ClaimedDigest(p.File)
		if err != nil {
			return nil, fmt.Errorf("apply: %w", err)
		}
		r.fileGates = append(r.fileGates, digestGate(p.ExpectDigest, digest))
	}
	if framework.Refusal("apply", r.fileGates) != nil {
		// Another instance's plan, one heron cannot plan again, one that
		// reaches outside etcd or not the one reviewed: nothing to compare
		// it with.
		if _, err := apply.VerifyBackup(p.File, false, nil); err != nil {
			return nil, fmt.Errorf("apply: %w", err)
		}
		r.refused = true
	}
	return r, nil
}

// scan plans the recorded command again through st, comparing the file
// with its ops as they are staged, then reads the rest of the file.
func (r *replay) scan(ctx context.Context, st *apply.Stage) error {
	if r.refused {
		return nil
	}
	cmp := apply.NewComparison(r.br, r.writer, r.scope)
	again, againHeader, err := apply.Replay(ctx, r.inst, r.h, st, cmp.Op)
	var recorded *apply.RecordedError
	switch {
	case errors.As(err, &recorded):
		r.fileGates[plannerAt] = plannerGate(r.h, false)
		r.fileGates[plannerAt].Detail = recorded.Error()
		r.refused = true
		return nil
	case err != nil:
		return fmt.Errorf("apply: planning %s again: %w", r.writer, err)
	}
	if err := cmp.Finish(); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	s := r.s
	r.again, r.againHeader = again, againHeader
	s.Again, s.TotalKeys, s.Compared, s.SplitState = again.View, again.Keys, cmp.Compared, again.SplitState
	s.Differences = append(append(s.Differences, apply.HeaderDifferences(r.h, againHeader)...), cmp.Differences...)
	s.DifferencesTotal = int64(len(s.Differences)) - int64(len(cmp.Differences)) + cmp.Total
	if len(s.Differences) > maxDifferences {
		s.Differences = s.Differences[:maxDifferences]
	}
	return nil
}

// gates are the file's gates, then: for a file planned again, the
// recorded command's (its instance gates among them), what it does outside
// etcd, the version and the comparison's verdict; for a file refused
// before, the instance's.
func (r *replay) gates(ctx context.Context) ([]framework.Gate, error) {
	out := slices.Clone(r.fileGates)
	if r.refused {
		instanceGates, err := gates.Instance(ctx, r.inst, r.s.Revision)
		if err != nil {
			return nil, err
		}
		return append(out, instanceGates...), nil
	}
	h := r.h
	for _, g := range r.again.Gates {
		g.Name = r.writer + ": " + g.Name
		out = append(out, g)
	}
	var effects []apply.EffectInfo
	for _, e := range r.again.External {
		if e.Count > 0 {
			effects = append(effects, e.EffectInfo)
		}
	}
	if len(effects) > 0 {
		out = append(out, externalGate(apply.Header{External: effects, Planner: h.Planner, Params: h.Params, Command: r.againHeader.Command}))
	}
	return append(out, versionGate(h, r.s.Heron), r.s.sameGate(r.writer, h, commandLine(apply.Header{Planner: h.Planner, Params: h.Params, Command: r.againHeader.Command}))), nil
}

// view is the plan shown: the plan made again's keys, reminders and checks,
// under apply's summary; its verify plans the recorded command again, not
// the file.
func (r *replay) view(gs []framework.Gate) *apply.Plan {
	s := r.s
	s.Gates, s.Refused = gs, framework.Refused(gs)
	out := &apply.Plan{Command: "apply", Title: "apply " + s.File, View: s, Root: r.inst.Layout.RootPath, Put: "put", Nothing: "nothing to write, the plan is empty"}
	if r.again == nil {
		return out
	}
	again, inst, h := r.again, r.inst, r.h
	out.Keys, out.SplitState, out.Continues = again.Keys, again.SplitState, again.Continues
	out.Put, out.Nothing, out.Reminders, out.After, out.Replan = again.Put, again.Nothing, again.Reminders, again.After, again.Replan
	out.Again = func(ctx context.Context, st *apply.Stage) (*apply.Plan, error) {
		pl, _, err := apply.Replay(ctx, inst, h, st, nil)
		return pl, err
	}
	return out
}

// plannerAt is the place of plannerGate among the file's gates.
const plannerAt = 2

// maxDifferences bounds the differences the plan lists.
const maxDifferences = 20

// plannerGate refuses a file whose header names no write command heron
// knows: apply plans the recorded command again, never trusts the file.
func plannerGate(h apply.Header, known bool) framework.Gate {
	g := framework.Gate{Name: "a command heron plans again", OK: known,
		Detail: fmt.Sprintf("the plan was made by %s, which this heron plans again with the recorded flags", h.Planner)}
	switch {
	case known:
		return g
	case h.Planner == "apply":
		g.Detail = "the plan's header names planner \"apply\", which heron never records (a plan saved by apply --file records the command it planned again): an edited header, not applied"
	case h.Planner == "":
		g.Detail = "the plan's header records no command (a plan saved by an older heron, or an edited header): heron cannot plan it again, so it does not apply it"
	default:
		g.Detail = fmt.Sprintf("the plan's header names planner %q, which this heron does not know: it cannot plan it again, so it does not apply it (an edited header, or a plan of another heron)", h.Planner)
	}
	g.Fix = []framework.Step{{Order: framework.StepRerun, Text: "do not re-run apply: plan again with this heron (the write command with --plan-out FILE), review it, and apply the new file"}}
	return g
}

// credentialGate refuses a plan whose recorded flags would make planning
// it again log in, with a credential heron reads itself (a token file's
// content, a SASL password from the environment), at an address the file
// names: whoever can edit the file could send them anywhere, even with a
// dry run. Its own command, typed by the operator, may.
func credentialGate(h apply.Header) framework.Gate {
	words := targetcheck.SendsCredential(h.Params)
	g := framework.Gate{Name: "no credential sent where the file says", OK: len(words) == 0, Count: int64(len(words)),
		Detail: "planning again sends no credential to an address the file names"}
	if g.OK {
		return g
	}
	g.Detail = fmt.Sprintf("the recorded flags %s would make heron log in with a credential it reads itself (a token file's content, the SASL password of the environment) at an address the plan file names: apply does not let a file choose where a credential goes, so it does not plan it again",
		strings.Join(words, " "))
	g.Fix = []framework.Step{{Order: framework.StepRerun, Text: fmt.Sprintf("do not re-run apply: check the addresses in the plan's flags and run its command yourself (%s), or plan again without the authenticated target check", commandLine(apply.Header{Planner: h.Planner, Params: h.Params}))}}
	return g
}

// digestGate refuses a file that is not the one reviewed. The digest is
// the file's SHA-256 end line: a guard against taking the wrong file, not
// a signature (anyone who can edit the file can compute it again).
func digestGate(want, got string) framework.Gate {
	g := framework.Gate{Name: "the plan reviewed", OK: strings.EqualFold(strings.TrimSpace(want), got),
		Detail: "the plan's digest is the one expected (sha256 " + got + ")"}
	if !g.OK {
		g.Detail = fmt.Sprintf("the plan's digest is sha256 %s, not %s: this is not the file reviewed", got, want)
		g.Fix = []framework.Step{{Order: framework.StepRerun, Text: "apply the file that was reviewed, or review this one and pass its digest"}}
	}
	return g
}

// versionGate says which heron planned and which applies: another version
// is applied only because the plan made again equals the file.
func versionGate(h apply.Header, heron string) framework.Gate {
	g := framework.Gate{Name: "planned by this heron", OK: true, Detail: "planned and applied by heron " + heron}
	if h.Heron != heron {
		g.Detail = fmt.Sprintf("planned by heron %s, applied by heron %s: applied only if this heron plans the same ops now (below)", orUnknown(h.Heron), heron)
	}
	return g
}

func orUnknown(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

// commandLine is the command line that plans what h records: the one
// heron's planning again recorded (h.Command, when set from it), else its
// planner and recorded flags; never a file's own command line, which
// nothing checks (an edited one could advise --allow-growing).
func commandLine(h apply.Header) string {
	if h.Command != "" {
		return h.Command
	}
	return strings.Join(append(append([]string{h.Planner}, h.Params...), "--run"), " ")
}

// sameGate is the verdict of the comparison; command is the command line
// that plans it again (commandLine).
func (s *Summary) sameGate(writer string, h apply.Header, command string) framework.Gate {
	g := framework.Gate{Name: "the plan is what heron plans now", OK: s.DifferencesTotal == 0, Count: s.DifferencesTotal,
		Detail: fmt.Sprintf("%s planned again at revision %d: the file equals it op for op (%d ops: keys, old values as etcd holds them now, new values)", writer, s.Revision, s.Compared)}
	if g.OK {
		return g
	}
	for _, d := range s.Differences[:min(len(s.Differences), gates.MaxKeys)] {
		g.Keys = append(g.Keys, d.Key+": "+d.What)
	}
	g.Detail = fmt.Sprintf("%s between the file and what %s plans now at revision %d: the instance changed since the plan was made at revision %d, or the file was changed; nothing was written",
		framework.Plural(s.DifferencesTotal, "difference", "differences"), writer, s.Revision, h.Revision)
	g.Fix = []framework.Step{{Order: framework.StepRerun, Text: fmt.Sprintf("do not re-run this plan: plan again (%s --plan-out FILE), review it, and apply the new file", strings.TrimSuffix(command, " --run"))}}
	return g
}

// JSON is the plan document.
func (s *Summary) JSON() any {
	type doc Summary
	d := struct {
		*doc
		Again any `json:"replan"`
	}{doc: (*doc)(s)}
	if s.Again != nil {
		d.Again = s.Again.JSON()
	}
	return d
}

// Table writes the plan for people.
func (s *Summary) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "apply the plan %s\n", framework.EscapeText(s.File))
	fmt.Fprintf(tw, "planned by %q on %q at revision %d, %s; checksum (sha256) ok\n", s.Plan.Command, s.Plan.RootPath, s.Plan.Revision, s.Plan.Created.Format(time.RFC3339))
	fmt.Fprintf(tw, "planned again at revision %d; %d ops compared\n\n", s.Revision, s.Compared)
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := framework.WriteGates(w, s.Gates); err != nil {
		return err
	}
	if s.DifferencesTotal > 0 {
		fmt.Fprintf(tw, "\nthe file differs from what heron plans now: %s\n", framework.Plural(s.DifferencesTotal, "difference", "differences"))
		for _, d := range s.Differences {
			fmt.Fprintf(tw, "  %s\t%s\n", framework.EscapeText(d.Key), framework.EscapeText(d.What))
		}
		if more := s.DifferencesTotal - int64(len(s.Differences)); more > 0 {
			fmt.Fprintf(tw, "  ... and %d more\n", more)
		}
	}
	fmt.Fprintf(tw, "\nkeys to write or delete: %d\n", s.TotalKeys)
	if s.SplitState {
		fmt.Fprintf(tw, "\nSPLIT STATE: %s plans again over an instance whose positions name more than one WAL (an interrupted run?): do not start Milvus until a run completes it or a restore of the interrupted run's backup rolls it back\n", s.Plan.Planner)
	}
	return tw.Flush()
}

// Lines writes the plan as key=value records.
func (s *Summary) Lines(w io.Writer) error {
	if err := framework.WriteLine(w, "plan", "apply", "file", s.File, "planned_by", s.Plan.Command, "revision", s.Revision,
		"total_keys", s.TotalKeys, "compared", s.Compared, "differences", s.DifferencesTotal, "refused", s.Refused); err != nil {
		return err
	}
	if err := framework.GateLines(w, s.Gates); err != nil {
		return err
	}
	for _, d := range s.Differences {
		if err := framework.WriteLine(w, "difference", d.Key, "what", d.What); err != nil {
			return err
		}
	}
	return nil
}

// externalGate refuses a plan whose command also changes something outside
// etcd (reset wal's objects): the file holds keys, not credentials, so
// applying it would do only the etcd half of what was reviewed.
func externalGate(h apply.Header) framework.Gate {
	g := framework.Gate{Name: "nothing to do outside etcd", OK: len(h.External) == 0, Count: int64(len(h.External)),
		Detail: "the plan changes etcd keys only"}
	if g.OK {
		return g
	}
	what := make([]string, len(h.External))
	for i, e := range h.External {
		what[i] = e.String()
	}
	g.Detail = fmt.Sprintf("the plan would also %s, outside etcd, which apply cannot do (a plan file holds no credentials): run the command that planned it instead (%s), or plan again without what reaches outside etcd",
		strings.Join(what, " and "), commandLine(h))
	g.Fix = []framework.Step{{Order: framework.StepRerun, Text: fmt.Sprintf("do not re-run apply: run %s instead", commandLine(h))}}
	return g
}
