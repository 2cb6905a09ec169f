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

// etcdctl prints a lease id in 16 hex digits, leading zeros kept (lease
// grant, lease list): heron names a session's lease the same way, so that
// the id an operator sees matches etcdctl's (1 lease in 16 starts with 0).
func TestLeaseIDIsEtcdctls(t *testing.T) {
	for id, want := range map[int64]string{0x690a23dea264969: "0690a23dea264969", 0x7e3b9c1a2d4f5061: "7e3b9c1a2d4f5061", 1: "0000000000000001"} {
		if got := LeaseID(id); got != want {
			t.Errorf("LeaseID(%x) = %q, want %q", id, got, want)
		}
	}
}
