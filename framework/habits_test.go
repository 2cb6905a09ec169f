package framework

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type segmentAliasParams struct {
	ParamBase  `use:"show segment" desc:"segments, with a description long enough to wrap at eighty columns when a terminal is that narrow" alias:"segments"`
	Collection int64 `name:"collection"`
	Output
}

type noteState struct{ *fakeState }

func (noteState) HelpNote() string { return "After connect: show segment." }

func newHabitShell(t *testing.T) (*Shell, *bytes.Buffer) {
	t.Helper()
	st := newFake("Fake")
	st.cmds = append(st.cmds, Read(st, func(_ context.Context, _ *fakeState, p *segmentAliasParams, _ IO) (Result, error) {
		return Message("segments of %d", p.Collection), nil
	}))
	var out, errOut bytes.Buffer
	sh := NewShell(noteState{st}, &out, &errOut)
	sh.SetHistoryFile("")
	return sh, &out
}

// Issue 16 §6: birdwatcher's aliases run the command and did-you-mean
// answers a typo in a command word or a flag.
func TestAliasesAndDidYouMean(t *testing.T) {
	sh, out := newHabitShell(t)
	ctx := context.Background()
	require.NoError(t, sh.Run(ctx, "show segments --collection 7"))
	assert.Equal(t, "segments of 7\n", out.String())
	out.Reset()
	require.NoError(t, sh.Run(ctx, "help show segments"))
	assert.Contains(t, out.String(), "Also: show segments")
	assert.Len(t, sh.Suggest("show seg"), 1, "an alias is not offered beside its command")
	assert.NotEmpty(t, sh.Suggest("show segments --col"), "flags of a command typed by its alias complete")

	for line, want := range map[string]string{
		"show segmnt":                 `unknown command "show segmnt": did you mean show segment?`,
		"shwo one":                    `unknown command "shwo": did you mean show?`,
		"echo --nmae x":               `echo: unknown flag: --nmae: did you mean --name?`,
		"show segment --colection 1":  `show segment: unknown flag: --colection: did you mean --collection?`,
		"zzzz":                        `unknown command "zzzz" (type help for the list)`,
		"show nothingnear":            `unknown command "show nothingnear" (show has: one, segment, two)`,
		"echo --password " + Redacted: "echo: --password is ***, the mask history keeps instead of the value",
	} {
		err := sh.Run(ctx, line)
		require.Error(t, err, line)
		assert.Contains(t, err.Error(), want, line)
		assert.Equal(t, ExitUsage, ExitCode(err), line)
	}
}

// Issue 16 §12: help --help and exit --help print help; the state's note
// (what connect unlocks) follows the list.
func TestBuiltinHelpAndNote(t *testing.T) {
	sh, out := newHabitShell(t)
	ctx := context.Background()
	for line, want := range map[string]string{
		"help --help": "help [COMMAND]: list the commands",
		"exit --help": "exit: leave the shell",
		"quit -h":     "quit: leave the shell",
		"help exit":   "exit: leave the shell",
	} {
		out.Reset()
		require.NoError(t, sh.Run(ctx, line), line)
		assert.Contains(t, out.String(), want, line)
	}
	out.Reset()
	require.NoError(t, sh.Run(ctx, "help"))
	assert.Contains(t, out.String(), "After connect: show segment.")
}

func TestHelpWrapsToWidth(t *testing.T) {
	var sb strings.Builder
	writeTwoColumns(&sb, [][2]string{{"show segment", strings.Repeat("word ", 30)}, {"x", "short"}}, 80)
	for _, l := range strings.Split(strings.TrimRight(sb.String(), "\n"), "\n") {
		assert.LessOrEqual(t, len(l), 80, l)
		if !strings.HasPrefix(l, "  show segment") && !strings.HasPrefix(l, "  x ") {
			assert.True(t, strings.HasPrefix(l, strings.Repeat(" ", 16)), "continuation aligned: %q", l)
		}
	}
	assert.Equal(t, "a b\n  c", wrapText("a b c", 4, "  "))
}

// Piped help (`heron --olc "reset checkpoint --help" | less`) keeps to the
// width every piped table keeps to: a flag's long description wraps.
func TestPipedHelpKeepsPipeWidth(t *testing.T) {
	sh, out := newDocShell(t)
	c := sh.index().byPath["reset doc"]
	c.spec.Desc = strings.Repeat("a long description ", 12)
	require.NoError(t, sh.Run(context.Background(), "reset doc --help"))
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	for _, l := range lines {
		assert.LessOrEqual(t, len(l), PipeWidth, l)
	}
	assert.Contains(t, lines[0], "reset doc: a long description")
	assert.True(t, strings.HasPrefix(lines[1], "  ") && !strings.HasPrefix(lines[1], "   "), "continuation indented: %q", lines[1])
}
