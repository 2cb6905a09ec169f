package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// fakeState is a State for tests: its commands record what they got.
type fakeState struct {
	name    string
	closed  int
	got     *echoParams
	applied int
	cmds    []*Command
}

type echoParams struct {
	ParamBase `use:"echo" desc:"print the params"`
	Output
	Name     string   `name:"name" default:"world" desc:"who"`
	Items    []string `name:"item" desc:"items"`
	IDs      []int64  `name:"id" desc:"ids"`
	Count    int      `name:"count" default:"3"`
	Big      int64    `name:"big"`
	Force    bool     `name:"force"`
	Mode     string   `name:"mode" default:"a" enum:"a,b,c"`
	Kinds    []string `name:"kind" enum:"x,y"`
	Password string   `name:"password" secret:"true" env:"FAKE_PASSWORD"`
	Token    string   `name:"apiKey" secret:"true"`
}

type echoResult struct{ P *echoParams }

func (r echoResult) JSON() any { return map[string]any{"name": r.P.Name, "items": r.P.Items} }
func (r echoResult) Table(w io.Writer) error {
	_, err := fmt.Fprintf(w, "NAME\n%s\n", r.P.Name)
	return err
}
func (r echoResult) Lines(w io.Writer) error { return WriteLine(w, "name", r.P.Name) }

type failParams struct {
	ParamBase `use:"fail" desc:"always fails"`
}

type boomParams struct {
	ParamBase `use:"boom" desc:"panics"`
}

type validParams struct {
	ParamBase  `use:"valid" desc:"has Complete and Validate"`
	Collection int64 `name:"collection" required:"true"`
	Filled     string
}

func (p *validParams) Complete() error {
	if p.Filled == "" {
		p.Filled = "completed"
	}
	return nil
}

func (p *validParams) Validate() error {
	if p.Collection < 0 {
		return errors.New("--collection must be >= 0")
	}
	return nil
}

type groupParams struct {
	ParamBase `use:"show one" desc:"first"`
	Output
}

type group2Params struct {
	ParamBase `use:"show two" desc:"second"`
}

type planParams struct {
	ParamBase `use:"reset thing" desc:"a write command"`
	Output
	Refuse     bool `name:"refuse"`
	PlainError bool `name:"plain"`
}

type fakePlan struct{}

func (p *fakePlan) JSON() any               { return map[string]any{"plan": "put k v"} }
func (p *fakePlan) Table(w io.Writer) error { _, err := fmt.Fprintln(w, "PLAN put k v"); return err }
func (p *fakePlan) Lines(w io.Writer) error { return WriteLine(w, "op", "put", "key", "k") }

// fakeWrite is a write command's exec as the kit runs it: the plan, then
// refused, or a dry run, or asked and applied.
func fakeWrite(s *fakeState, p *planParams, m Mode, w WriteIO) (Result, error) {
	plan := &fakePlan{}
	var refusal error
	switch {
	case p.PlainError:
		refusal = Refusal("reset thing", []Gate{{Name: "alive", Detail: "a component is alive"}})
	case p.Refuse:
		refusal = Refusedf("segment 7 is Growing")
	}
	if !m.Run || refusal != nil {
		if err := Render(w.Stdout, plan, w.Format); err != nil {
			return nil, err
		}
		if refusal == nil {
			fmt.Fprintln(w.Stderr, "dry run: nothing was written; add --run to apply the plan")
		}
		return plan, refusal
	}
	if ok, err := w.Approve(context.Background(), plan, 1, "root"); err != nil || !ok {
		fmt.Fprintln(w.Stderr, "nothing was written")
		return nil, nil
	}
	s.applied++
	fmt.Fprintln(w.Stderr, "applying...")
	res := Message("applied 1 key")
	return res, Render(w.Stdout, res, w.Format)
}

type goParams struct {
	ParamBase `use:"go" desc:"move to the other state"`
}

type transition struct {
	Result
	next State
}

func (t transition) NextState() State { return t.next }

func newFake(name string) *fakeState {
	st := &fakeState{name: name}
	st.cmds = []*Command{
		Read(st, func(_ context.Context, s *fakeState, p *echoParams, out IO) (Result, error) {
			s.got = p
			fmt.Fprintln(out.Stderr, "notice: echo ran")
			return echoResult{p}, nil
		}),
		Read(st, func(ctx context.Context, s *fakeState, p *failParams, _ IO) (Result, error) {
			return nil, errors.New("it failed")
		}),
		Read(st, func(ctx context.Context, s *fakeState, p *boomParams, _ IO) (Result, error) {
			var m map[string]int
			m["x"] = 1 //nolint:staticcheck // a runtime panic (not a panic call) is what the test needs
			return nil, nil
		}),
		Read(st, func(ctx context.Context, s *fakeState, p *validParams, _ IO) (Result, error) {
			return Message("collection %d %s", p.Collection, p.Filled), nil
		}),
		Read(st, func(ctx context.Context, s *fakeState, p *groupParams, _ IO) (Result, error) {
			return Message("one"), nil
		}),
		Read(st, func(ctx context.Context, s *fakeState, p *group2Params, _ IO) (Result, error) {
			return Message("two"), nil
		}),
		WriteCommand(func(ctx context.Context, p *planParams, m Mode, w WriteIO) (Result, error) {
			return fakeWrite(st, p, m, w)
		}),
		Read(st, func(ctx context.Context, s *fakeState, p *goParams, _ IO) (Result, error) {
			return transition{Message("moving"), newFake("other")}, nil
		}),
	}
	return st
}

func (s *fakeState) Prompt() string       { return s.name + " > " }
func (s *fakeState) Commands() []*Command { return s.cmds }
func (s *fakeState) Close() error         { s.closed++; return nil }

// newTestShell returns a shell on a fake state with captured output.
func newTestShell(t *testing.T) (*Shell, *fakeState, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	st := newFake("Fake")
	var out, errOut bytes.Buffer
	sh := NewShell(st, &out, &errOut)
	sh.SetHistoryFile("")
	return sh, st, &out, &errOut
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
