package framework

import (
	"bytes"
	"encoding/json"
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
