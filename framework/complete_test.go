package framework

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

type chanParams struct {
	ParamBase  `use:"show chan" desc:"completes from the state"`
	PChannels  []string `name:"pchannel" desc:"pchannels"`
	Collection int64    `name:"collection" desc:"a collection"`
	Other      string   `name:"other" complete:"pchannel"`
	Plain      string   `name:"plain" complete:"-"`
	State      string   `name:"state" enum:"Growing,Flushed"`
}

// suggestTexts is what the shell suggests after before, without notes.
func suggestTexts(sh *Shell, before string) []string {
	var out []string
	for _, s := range sh.Suggest(before) {
		out = append(out, s.Text)
	}
	return out
}

// completingState is a fake State that completes pchannels and collections.
type completingState struct {
	*fakeState
	asked []string
}

func (s *completingState) CompleteValues(_ context.Context, kind string) []Completion {
	s.asked = append(s.asked, kind)
	switch kind {
	case "pchannel":
		return []Completion{{Value: "dml_0"}, {Value: "dml_1"}, {Value: "dml_10"}}
	case "collection":
		return []Completion{{Value: "100", Note: "books"}, {Value: "200", Note: "films\x1b[2J"}}
	}
	return nil
}

func TestSuggestValuesFromTheState(t *testing.T) {
	fs := newFake("Fake")
	st := &completingState{fakeState: fs}
	fs.cmds = append(fs.cmds, Read(fs, func(context.Context, *fakeState, *chanParams, IO) (Result, error) { return nil, nil }))
	sh := NewShell(st, &discard{}, &discard{})
	tests := []struct {
		before string
		want   []string
	}{
		{"show chan --pchannel ", []string{"dml_0", "dml_1", "dml_10"}},
		{"show chan --pchannel dml_1", []string{"dml_1", "dml_10"}},
		{"show chan --pchannel dml_0,dml_1", []string{"dml_0,dml_1", "dml_0,dml_10"}},
		{"show chan --pchannel=dml_1", []string{"--pchannel=dml_1", "--pchannel=dml_10"}},
		{"show chan --collection ", []string{"100", "200"}},
		{"show chan --collection 2", []string{"200"}},
		{"show chan --other d", []string{"dml_0", "dml_1", "dml_10"}},
		{"show chan --plain ", nil},
		{"show chan --state g", []string{"Growing"}},
		{"echo --name ", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, suggestTexts(sh, tt.before), "%q", tt.before)
	}
	assert.NotContains(t, st.asked, "plain")
	for _, s := range sh.Suggest("show chan --collection 1") {
		assert.Equal(t, "books", s.Description)
	}
	for _, s := range sh.Suggest("show chan --collection 2") {
		assert.Equal(t, `films\x1b[2J`, s.Description, "a note from the state is terminal text")
	}
}

// Issue 10 §3: a completed word ends with a space in the REPL.
func TestREPLSuggestAddsATrailingSpace(t *testing.T) {
	sh, _, _, _ := newTestShell(t)
	var got []string
	for _, s := range sh.replSuggest("show one --format j") {
		got = append(got, s.Text)
	}
	assert.Equal(t, []string{"json "}, got)
	got = nil
	for _, s := range sh.replSuggest("sh") {
		got = append(got, s.Text)
	}
	assert.Equal(t, []string{"show "}, got)
	assert.Nil(t, sh.replSuggest("   "))
}
