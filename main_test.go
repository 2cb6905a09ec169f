package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

// mainChildEnv makes the test binary run heron's main on its arguments: the
// signal tests start it as a child process.
const mainChildEnv = "HERON_TEST_MAIN_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(mainChildEnv) != "" {
		os.Exit(run(strings.Fields(os.Getenv(mainChildEnv+"_ARGS")), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Issue 9 item 1: in script mode SIGINT or SIGTERM while heron waits for the
// next line ends it with exit 1 at once.
func TestScriptModeSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), mainChildEnv+"=1", "HERON_HOME="+t.TempDir())
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			defer stdin.Close()
			var out, errOut lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Start())
			_, err = io.WriteString(stdin, "version --format line\n")
			require.NoError(t, err)
			require.Eventually(t, func() bool { return strings.Contains(out.String(), "heron=") }, 10*time.Second, 10*time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("heron still waits for input after the signal")
			}
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 1, ee.ExitCode(), "stderr: %s", errOut.String())
			assert.Contains(t, errOut.String(), "error: interrupted")
		})
	}
}

// lockedBuffer is a bytes.Buffer a child process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
