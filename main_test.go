package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/states/demo"
)

// pipe returns a non-terminal stdin holding input.
func pipe(t *testing.T, input string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	go func() {
		_, _ = w.WriteString(input)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRun(t *testing.T) {
	t.Setenv("HERON_HOME", t.TempDir())
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "version flag", args: []string{"--version"}, stdout: "go-api/v3"},
		{name: "help flag", args: []string{"--help"}, stdout: "--olc"},
		{name: "help in the shell's flag style", args: []string{"--help"}, stdout: "--olc COMMANDS"},
		{name: "unknown flag", args: []string{"--bogus"}, code: 2, stderr: "error: unknown flag: --bogus"},
		{name: "stray argument", args: []string{"show"}, code: 2, stderr: `unexpected argument "show"`},
		{name: "olc", args: []string{"--olc", "version --format line, help"}, stdout: "heron=dev"},
		{name: "olc unknown command", args: []string{"--olc", "version, nope"}, code: 2, stderr: `error: unknown command "nope"`},
		{name: "script", stdin: "# comment\n\nversion --format line\n", stdout: "heron=dev"},
		{name: "script stops at failure", stdin: "connect --etcd 127.0.0.1:1\nversion\n", code: 1, stderr: "cannot reach etcd at 127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, pipe(t, tt.stdin), &out, &errOut)
			assert.Equal(t, tt.code, code, "stderr: %s", errOut.String())
			assert.Contains(t, out.String(), tt.stdout)
			assert.Contains(t, errOut.String(), tt.stderr)
			if tt.name == "script stops at failure" {
				assert.False(t, strings.Contains(out.String(), "heron"), "version did not run")
			}
		})
	}
}

// Issue 10 §3: heron demo --help uses the shell's flag style and exits 0.
func TestDemoHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	code := demo.Main(context.Background(), []string{"--help"}, false, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "--rootPath STRING")
	assert.Contains(t, out.String(), "--wal WAL")
	assert.Empty(t, errOut.String())

	out.Reset()
	code = demo.Main(context.Background(), []string{"-wal", "kafka"}, false, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "error: demo:")
}
