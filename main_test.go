package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/states/demo"
	"github.com/heron-shell/heron/tests/ptytest"
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
		{name: "version as a word (issue 27)", args: []string{"version"}, stdout: "go-api/v3"},
		{name: "version --format line", args: []string{"version", "--format", "line"}, stdout: "heron=dev"},
		{name: "backups of an empty folder", args: []string{"backups", "--dir", "/nonexistent dir"}, stdout: "no heron backup in ., /nonexistent dir"},
		{name: "empty stdin says what it did", stdin: "", stderr: "held no command: nothing was done"},
		{name: "a birdwatcher write verb", stdin: "remove segment --segment 1\n", code: 2, stderr: "heron does not do remove segment (a birdwatcher write)"},
		{name: "clear piped", stdin: "clear\nversion --format line\n", stdout: "heron=dev"},
		{name: "parse-ts", args: []string{"--olc", "parse-ts --ts 470817350615040000"}, stdout: "470817350615040000: 2026-11-30T08:01:00Z (unix ms 1796025660000), logical 0"},
		{name: "parse-ts of the dropped marker", args: []string{"--olc", "parse-ts --ts 18446744073709551615"}, code: 2, stderr: "no time Milvus wrote"},
		{name: "parse-wal-message-id", args: []string{"--olc", "parse-wal-message-id --id 08011029 --wal woodpecker --format line"}, stdout: "wal=woodpecker read_as=\"bytes as hex\" human=1:41 text=\"CAEQKQ==\""},
		{name: "parse-wal-message-id of no id", args: []string{"--olc", "parse-wal-message-id --id zz:zz"}, code: 2, stderr: "is no message id of any WAL"},
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
		os.Args = append(os.Args[:1], strings.Fields(os.Getenv(mainChildEnv+"_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child is the test binary run as heron (TestMain) with its stdin a pipe
// the test writes lines to.
type child struct {
	cmd         *exec.Cmd
	stdin       io.WriteCloser
	out, errOut ptytest.Buffer
}

// startChild starts heron with args (space-separated) and writes input to
// its stdin.
func startChild(t *testing.T, args, input string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(os.Args[0])}
	c.cmd.Env = append(os.Environ(), mainChildEnv+"=1", mainChildEnv+"_ARGS="+args, "HERON_HOME="+t.TempDir())
	var err error
	c.stdin, err = c.cmd.StdinPipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.stdin.Close() })
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.errOut
	require.NoError(t, c.cmd.Start())
	_, err = io.WriteString(c.stdin, input)
	require.NoError(t, err)
	return c
}

// signalExit sends sig and returns the exit code heron ends with; the test
// fails when heron still runs 15 s after the signal.
func (c *child) signalExit(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(sig))
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		t.Fatalf("heron still runs 15 s after %s", sig)
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	return ee.ExitCode()
}

// Issue 9 item 1: in script mode SIGINT or SIGTERM while heron waits for the
// next line ends it with exit 1 at once.
func TestScriptModeSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			c := startChild(t, "", "version --format line\n")
			require.Eventually(t, func() bool { return strings.Contains(c.out.String(), "heron=") }, 10*time.Second, 10*time.Millisecond)
			assert.Equal(t, 1, c.signalExit(t, sig), "stderr: %s", c.errOut.String())
			assert.Contains(t, c.errOut.String(), "error: interrupted")
		})
	}
}

// The demo on a terminal: completion reads the connected instance (the
// --pchannel values are its pchannels), a completed word gets its trailing
// space, a group's --help lists its commands, and a SIGINT at the prompt
// does not end the REPL.
func TestDemoREPLOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("pty test")
	}
	home := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainChildEnv+"=1", mainChildEnv+"_ARGS=demo", "HERON_HOME="+home, "TERM=xterm")
	tm := ptytest.Start(t, cmd)
	const wait = 20 * time.Second
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("show checkpoint --pchannel by-dev-rootcoord-dml_\t")
	tm.Expect("by-dev-rootcoord-dml_2", wait) // the menu lists the instance's pchannels
	// The third Tab picks dml_2; typing on inserts it with its trailing
	// space, so the next flag is a word of its own.
	tm.Send("\t\t--format line\r")
	tm.Expect("pchannel=by-dev-rootcoord-dml_2", wait)
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Send("show --help\r")
	tm.Expect("show checkpoint", wait)
	tm.Expect("Milvus(by-dev) > ", wait)

	tm.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	tm.Send("version --format line\r")
	tm.Expect("heron=", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("help\r")
	tm.Expect("Commands:", wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("exit\r")
	assert.Equal(t, 0, tm.Wait(wait))
	assert.NotContains(t, tm.Output(), "error:")
	b, err := os.ReadFile(filepath.Join(home, "history"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "show checkpoint --pchannel by-dev-rootcoord-dml_2 --format line\n")
}
