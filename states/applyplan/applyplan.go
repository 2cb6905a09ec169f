// Package applyplan is `apply --file PLAN [--run]`: it shows a plan a write
// command saved with --plan-out and applies exactly it, through the kit:
// the same ops, guarded by the mod revisions the plan read, refused up
// front when any of its keys changed since (the operator reviews the plan
// in a change ticket and applies what was reviewed).
package applyplan

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
)

// Params are the flags of `apply`.
type Params struct {
	framework.ParamBase `use:"apply" desc:"show a plan saved with --plan-out and apply exactly it, refused if any of its keys changed since it was read (a plan unless --run)" example:"apply --file plan.jsonl --run"`
	File                string `name:"file" required:"true" placeholder:"PLAN" desc:"the plan file a write command saved with --plan-out"`
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
	// Revision is the revision the keys were checked at.
	Revision int64            `json:"revision"`
	Gates    []framework.Gate `json:"gates"`
	Refused  bool             `json:"refused"`
	// TotalKeys the plan writes (Puts) or deletes (Deletes); Changed of
	// them changed since the plan was read.
	TotalKeys int64     `json:"total_keys"`
	Puts      int64     `json:"puts"`
	Deletes   int64     `json:"deletes"`
	Changed   int64     `json:"changed"`
	Examples  []Example `json:"examples"`
}

// Example is one key of the plan.
type Example struct {
	Key    string `json:"key"`
	Action string `json:"action"`
}

const maxExamples = 5

// Build checks the plan file (checksum), stages its ops through st as they
// are, reads each key's mod revision now, and gates: the instance of the
// plan, no live component, no in-flight broadcast, no key changed since.
func Build(ctx context.Context, inst *instance.Instance, p *Params, st *apply.Stage) (*apply.Plan, error) {
	rev, err := inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	s := &Summary{Command: "apply", File: p.File, Revision: rev, Examples: []Example{}}
	var changed []string
	batch := instance.NewBatch(inst, rev, apply.DefaultMaxTxnOps, func(e apply.Entry) string { return e.Key }, func(e apply.Entry, cur instance.KV) error {
		if cur.ModRevision != e.ModRevision {
			s.Changed++
			if len(changed) < gates.MaxKeys {
				changed = append(changed, fmt.Sprintf("%s (mod revision %d when planned, now %d)", e.Key, e.ModRevision, cur.ModRevision))
			}
		}
		return nil
	})
	h, err := st.Load(ctx, p.File, "apply --file "+p.File+" --run", func(e apply.Entry, op apply.Op) error {
		action := "put"
		if op.Delete {
			s.Deletes++
			action = "delete"
		} else {
			s.Puts++
		}
		if len(s.Examples) < maxExamples {
			s.Examples = append(s.Examples, Example{Key: e.Key, Action: action})
		}
		return batch.Add(ctx, e)
	})
	if err == nil {
		err = batch.Flush(ctx)
	}
	if err != nil {
		return nil, err
	}
	s.Plan, s.TotalKeys = h, s.Puts+s.Deletes
	s.Gates, err = gates.FileGates(ctx, inst, rev, gates.File{What: "plan", Made: "made for", RootPath: h.RootPath}, externalGate(h))
	if err != nil {
		return nil, err
	}
	unchanged := framework.Gate{Name: "no key changed since the plan was read", OK: s.Changed == 0, Count: s.Changed,
		Detail: fmt.Sprintf("every key holds the mod revision it had at revision %d", h.Revision)}
	if s.Changed > 0 {
		unchanged.Keys = changed
		unchanged.Detail = fmt.Sprintf("%s since the plan was read at revision %d: plan again (%s)", framework.Plural(s.Changed, "key changed", "keys changed"), h.Revision, h.Command)
		unchanged.Fix = []framework.Step{{Order: framework.StepRerun, Text: fmt.Sprintf("do not re-run this plan: plan again (%s --plan-out FILE), review it, and apply the new file", h.Command)}}
	}
	s.Gates = append(s.Gates, unchanged)
	for _, g := range s.Gates {
		s.Refused = s.Refused || !g.OK
	}
	return &apply.Plan{Command: "apply", Title: "apply " + p.File, View: s, Gates: s.Gates, Keys: s.TotalKeys,
		Root: inst.Layout.RootPath, Put: "put", Nothing: "nothing to write, the plan is empty", Guards: []apply.Guard{gates.SessionGuard(inst.Layout)}}, nil
}

// JSON is the plan document.
func (s *Summary) JSON() any { return s }

// Table writes the plan for people.
func (s *Summary) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "apply the plan %s\n", framework.EscapeText(s.File))
	fmt.Fprintf(tw, "planned by %q on %q at revision %d, %s; checksum (sha256) ok\n", s.Plan.Command, s.Plan.RootPath, s.Plan.Revision, s.Plan.Created.Format(time.RFC3339))
	fmt.Fprintf(tw, "keys checked at revision %d\n\n", s.Revision)
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := framework.WriteGates(w, s.Gates); err != nil {
		return err
	}
	fmt.Fprintf(tw, "\nkeys to write or delete: %d (%d put, %d deleted)\n", s.TotalKeys, s.Puts, s.Deletes)
	for _, e := range s.Examples {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Action, framework.EscapeText(e.Key))
	}
	if more := s.TotalKeys - int64(len(s.Examples)); more > 0 {
		fmt.Fprintf(tw, "  ... and %d more\n", more)
	}
	return tw.Flush()
}

// Lines writes the plan as key=value records.
func (s *Summary) Lines(w io.Writer) error {
	if err := framework.WriteLine(w, "plan", "apply", "file", s.File, "planned_by", s.Plan.Command, "revision", s.Revision,
		"total_keys", s.TotalKeys, "puts", s.Puts, "deletes", s.Deletes, "changed", s.Changed, "refused", s.Refused); err != nil {
		return err
	}
	if err := framework.GateLines(w, s.Gates); err != nil {
		return err
	}
	for _, e := range s.Examples {
		if err := framework.WriteLine(w, "example", e.Key, "action", e.Action); err != nil {
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
		strings.Join(what, " and "), h.Command)
	g.Fix = []framework.Step{{Order: framework.StepRerun, Text: fmt.Sprintf("do not re-run apply: run %s instead", h.Command)}}
	return g
}
