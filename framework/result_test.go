package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 9 item 8: line output never lets a control byte reach the terminal.
func TestWriteLineEscapesKeysAndValues(t *testing.T) {
	tests := []struct {
		kv   []any
		want string
	}{
		{[]any{"key", "plain", "n", 5}, "key=plain n=5\n"},
		{[]any{"key", "a\x1b[2Jb"}, `key="a\x1b[2Jb"` + "\n"},
		{[]any{"key", "dml_0\n"}, `key="dml_0\n"` + "\n"},
		{[]any{"key", "a\tb"}, `key="a\tb"` + "\n"},
		{[]any{"key", "\xff\xfe"}, `key="\xff\xfe"` + "\n"},
		{[]any{"key", "bidi\u202e"}, `key="bidi\u202e"` + "\n"},
		{[]any{"key", "\u00e9t\u00e9"}, "key=\u00e9t\u00e9\n"},
		{[]any{"k\x1b[2J", "v"}, `"k\x1b[2J"=v` + "\n"},
		{[]any{"k\n", "v"}, `"k\n"=v` + "\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		require.NoError(t, WriteLine(&b, tt.kv...))
		assert.Equal(t, tt.want, b.String())
		for _, c := range b.String()[:b.Len()-1] {
			assert.False(t, c < 0x20 || c == 0x7f, "raw control byte in %q", b.String())
		}
	}
}

func TestJSONKeepsValuesExact(t *testing.T) {
	var b bytes.Buffer
	raw := "a\x1b[2J\n\tb"
	require.NoError(t, Render(&b, Message("%s", raw), FormatJSON))
	var got map[string]string
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, raw, got["message"])
}

// Issue 9 item 8: an error quoting a key with control characters does not
// act on the terminal.
func TestTerminalText(t *testing.T) {
	assert.Equal(t, "plain\nline\ttab", TerminalText("plain\nline\ttab"))
	assert.Equal(t, `key a\x1b[2J b\r c\a`, TerminalText("key a\x1b[2J b\r c\a"))
	assert.Equal(t, `bad \xff byte, é kept`, TerminalText("bad \xff byte, é kept"))
	assert.Equal(t, `bidi \u202e`, TerminalText("bidi \u202e"))

	sh, _, _, errOut := newTestShell(t)
	st := sh.State().(*fakeState)
	st.cmds = append(st.cmds, Read(st, func(context.Context, *fakeState, *pingParams, IO) (Result, error) {
		return nil, errors.New("no key \x1b[2Jx")
	}))
	sh.idx = nil
	assert.Equal(t, ExitFailed, sh.RunScript(context.Background(), strings.NewReader("ping\n")))
	assert.Equal(t, "error: no key \\x1b[2Jx\n", errOut.String())
}
