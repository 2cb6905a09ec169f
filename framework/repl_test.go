package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/tests/ptytest"
)

// replChildEnv makes the test binary run the REPL on a test state instead of
// the tests: the pty tests start it as a child on a pseudo-terminal.
const replChildEnv = "HERON_TEST_REPL_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(replChildEnv) != "" {
		os.Exit(runREPLChild())
	}
	os.Exit(m.Run())
}

type blockParams struct {
	ParamBase `use:"block" desc:"runs until interrupted, like a long write"`
	HoldMS    int `name:"hold-ms" desc:"keep running this long after the interrupt"`
}

type askParams struct {
	ParamBase `use:"ask" desc:"asks a question"`
}

type pingParams struct {
	ParamBase `use:"ping" desc:"answers"`
}

func runREPLChild() int {
	st := &fakeState{name: "Test"}
	st.cmds = []*Command{
		Read(st, func(ctx context.Context, _ *fakeState, p *blockParams, out IO) (Result, error) {
			fmt.Fprintln(out.Stderr, "block: waiting for an interrupt")
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second):
				return Message("block: never interrupted"), nil
			}
			time.Sleep(time.Duration(p.HoldMS) * time.Millisecond)
			return nil, fmt.Errorf("block: stopped between transactions: wrote 2 of 5; run it again to complete")
		}),
		Read(st, func(context.Context, *fakeState, *pingParams, IO) (Result, error) {
			return Message("pong-%s", "ok"), nil
		}),
		Read(st, func(context.Context, *fakeState, *credParams, IO) (Result, error) {
			return Message("connected-ok"), nil
		}),
		WriteCommand(func(ctx context.Context, _ *askParams, _ Mode, w WriteIO) (Result, error) {
			yes, asked := ask(ctx, w)
			res := Message("answer: yes=%v asked=%v", yes, asked)
			return res, Render(w.Stdout, res, w.Format)
		}),
	}
	sh := NewShell(st, os.Stdout, os.Stderr)
	sh.SetHistoryFile(os.Getenv("HERON_TEST_HISTORY"))
	return sh.RunREPL(context.Background())
}

func startREPL(t *testing.T) (*ptytest.Term, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("pty test")
	}
	hist := filepath.Join(t.TempDir(), "history")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), replChildEnv+"=1", "HERON_TEST_HISTORY="+hist, "TERM=xterm")
	tm := ptytest.Start(t, cmd)
	tm.Expect("Test > ", 10*time.Second)
	return tm, hist
}

const wait = 10 * time.Second

// Issue 9 item 1: Ctrl-C interrupts the running command like a piped
// SIGINT, a second Ctrl-C while it stops does not end the shell, and
// nothing typed meanwhile is glued to the next line.
func TestREPLCtrlCInterruptsTheRunningCommand(t *testing.T) {
	tm, hist := startREPL(t)

	tm.Send("block\r")
	tm.Expect("block: waiting for an interrupt", wait)
	tm.Send("\x03")
	tm.Expect("interrupted: the command stops at its next safe point", wait)
	tm.Expect("error: block: stopped between transactions", wait)
	tm.Expect("Test > ", wait)
	tm.Send("ping\r")
	tm.Expect("pong-ok", wait)
	tm.Expect("Test > ", wait)

	// A second and third Ctrl-C while the command stops: the shell stays.
	tm.Send("block --hold-ms 700\r")
	tm.Expect("block: waiting for an interrupt", wait)
	tm.Send("\x03")
	tm.Expect("interrupted:", wait)
	time.Sleep(100 * time.Millisecond)
	tm.Send("\x03")
	tm.Expect("still stopping", wait)
	tm.Send("\x03")
	tm.Expect("error: block: stopped between transactions", wait)
	tm.Expect("Test > ", wait)

	// Typed while the command ran, then interrupted: dropped, not glued.
	tm.Send("block\r")
	tm.Expect("block: waiting for an interrupt", wait)
	tm.Send("garbage")
	time.Sleep(100 * time.Millisecond)
	tm.Send("\x03")
	tm.Expect("error: block: stopped", wait)
	tm.Expect("Test > ", wait)
	tm.Send("ping\r")
	tm.Expect("pong-ok", wait)
	tm.Expect("Test > ", wait)

	tm.Send("exit\r")
	assert.Equal(t, ExitOK, tm.Wait(wait))
	out := tm.Output()
	assert.NotContains(t, out, "unknown command")
	assert.NotContains(t, out, "\x03")
	b, err := os.ReadFile(hist)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "garbage")
	assert.NotContains(t, string(b), "\x03")
}

// Issue 10 §3: a pasted line that ends with a newline runs; so do several.
func TestREPLPastedLinesRun(t *testing.T) {
	tm, _ := startREPL(t)
	tm.Send("ping\nping\n")
	tm.Expect("pong-ok", wait)
	tm.Expect("pong-ok", wait)
	tm.Expect("Test > ", wait)
	tm.Send("\x03\x03ping\r") // Ctrl-C bytes at the prompt clear the line; they are not text
	tm.Expect("pong-ok", wait)
	tm.Expect("Test > ", wait)
	tm.Send("\x04")
	assert.Equal(t, ExitOK, tm.Wait(wait))
	assert.NotContains(t, tm.Output(), "unknown command")
}

// Issue 9 item 1: SIGTERM during a run stops the command as SIGINT does,
// then the REPL ends with exit 1; at the prompt SIGTERM and SIGHUP end it.
func TestREPLSIGTERM(t *testing.T) {
	t.Run("during a run", func(t *testing.T) {
		tm, _ := startREPL(t)
		tm.Send("block\r")
		tm.Expect("block: waiting for an interrupt", wait)
		tm.Signal(syscall.SIGTERM)
		tm.Expect("interrupted: the command stops", wait)
		tm.Expect("error: block: stopped between transactions", wait)
		tm.Expect("leaving the shell", wait)
		assert.Equal(t, ExitFailed, tm.Wait(wait))
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run("at the prompt "+sig.String(), func(t *testing.T) {
			tm, _ := startREPL(t)
			tm.Signal(sig)
			assert.Equal(t, ExitFailed, tm.Wait(wait))
		})
	}
	t.Run("SIGINT at the prompt is ignored", func(t *testing.T) {
		tm, _ := startREPL(t)
		tm.Signal(syscall.SIGINT)
		time.Sleep(200 * time.Millisecond)
		tm.Send("ping\r")
		tm.Expect("pong-ok", wait)
		tm.Send("exit\r")
		assert.Equal(t, ExitOK, tm.Wait(wait))
	})
}

func TestSplitKeys(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a", []string{"a"}},
		{"show one\n", []string{"show one", "\n"}},
		{"a\r\nb\n", []string{"a", "\r", "\n", "b", "\n"}},
		{"\x03\x03exit", []string{"\x03", "\x03", "exit"}},
		{"\x1b[A", []string{"\x1b[A"}},
		{"ab\x1b[Acd", []string{"ab", "\x1b[A", "cd"}},
		{"\x1b[A\x1b[A", []string{"\x1b[A", "\x1b[A"}},
		{"\x1b[1;5C\x1bOB\x1bbx\r", []string{"\x1b[1;5C", "\x1bOB", "\x1bb", "x", "\r"}},
		{"\x1b\x1b[B", []string{"\x1b", "\x1b[B"}},
		{"h\u00e9\tx", []string{"h\u00e9", "\t", "x"}},
	}
	for _, tt := range tests {
		var got []string
		for _, k := range splitKeys([]byte(tt.in)) {
			got = append(got, string(k))
		}
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
	assert.False(t, strings.Contains(string(wakeKey), "\n"))
}

// Issue 16: two arrow keys that arrive in one read (a key repeat over a
// slow kubectl exec) recall history twice; they are not run as text.
func TestREPLArrowsInOneRead(t *testing.T) {
	tm, _ := startREPL(t)
	tm.Send("ping\r")
	tm.Expect("pong-ok", wait)
	tm.Expect("Test > ", wait)
	tm.Send("help ping\r")
	tm.Expect("answers", wait)
	tm.Expect("Test > ", wait)
	tm.Send("\x1b[A\x1b[A")
	time.Sleep(200 * time.Millisecond)
	tm.Send("\r")
	tm.Expect("pong-ok", wait)
	tm.Expect("Test > ", wait)
	tm.Send("exit\r")
	assert.Equal(t, ExitOK, tm.Wait(wait))
	assert.NotContains(t, tm.Output(), "unknown command")
}

// Issue 9 item 1, script mode: a signal while the script waits for its next
// line ends it with exit 1 at once; an end of input after one is not exit 0.
func TestRunScriptInterruptedWhileWaiting(t *testing.T) {
	var out, errOut ptytest.Buffer
	sh := NewShell(newFake("Fake"), &out, &errOut)
	sh.SetHistoryFile("")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	_, err = w.WriteString("show one\n")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- sh.RunScript(ctx, r) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "one") }, wait, 10*time.Millisecond)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, ExitFailed, code)
	case <-time.After(wait):
		t.Fatal("the script still waits for a line after the interrupt")
	}
	assert.Contains(t, errOut.String(), "error: interrupted")

	sh, _, _, errb := newTestShell(t)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	assert.Equal(t, ExitFailed, sh.RunScript(ctx, strings.NewReader("")), "EOF after an interrupt")
	assert.Contains(t, errb.String(), "interrupted")
}

// Issue 9 item 7 through the terminal: what the operator typed is in the
// history file without its secrets. Issue 10 §3: Tab completes a word with
// a trailing space, and the completed line runs.
func TestREPLHistoryAndCompletion(t *testing.T) {
	tm, hist := startREPL(t)
	for _, line := range []string{
		"connect --etcdPasword S3cr3t",
		"connect -etcdPassword S3cr3t",
		"connect --etcdUserName root S3cr3t",
		"connect ---x-pass=S3cr3t",
	} {
		tm.Send(line + "\r")
		tm.Expect("error: connect:", wait)
		tm.Expect("Test > ", wait)
	}
	tm.Send("pi\t\r")
	tm.Expect("pong-ok", wait)
	tm.Expect("Test > ", wait)
	tm.Send("connect --et\t\tx:1\r") // --etcd, --etcdUserName, --etcdPassword: the second Tab picks --etcdUserName
	tm.Expect("connected-ok", wait)
	tm.Send("exit\r")
	assert.Equal(t, ExitOK, tm.Wait(wait))
	assert.NotContains(t, tm.Output(), "S3cr3t\r\nerror", "errors do not repeat the stray word")
	b, err := os.ReadFile(hist)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "S3cr3t")
	assert.Equal(t, []string{
		"connect --etcdPasword ***",
		"connect -etcdPassword ***",
		"connect --etcdUserName root ***",
		"connect ---x-pass=***",
		"ping",
		"connect --etcdUserName x:1",
		"exit",
	}, lines(string(b)))
}

// Ask reads the operator's answer on the REPL's terminal: y and yes (any
// case) are a yes, anything else and Ctrl-C a no; the shell goes on.
func TestREPLAsk(t *testing.T) {
	tm, _ := startREPL(t)
	for _, tt := range []struct{ keys, want string }{
		{"y\r", "answer: yes=true asked=true"},
		{"YES\r", "answer: yes=true asked=true"},
		{"n\r", "answer: yes=false asked=true"},
		{"\r", "answer: yes=false asked=true"},
		{"\x03", "answer: yes=false asked=true"},
	} {
		tm.Send("ask\r")
		tm.Expect("apply these 3 key changes to by-dev? [y/N]", wait)
		time.Sleep(50 * time.Millisecond)
		tm.Send(tt.keys)
		tm.Expect(tt.want, wait)
		tm.Expect("Test > ", wait)
	}
	tm.Send("ping\r")
	tm.Expect("pong-ok", wait)
	tm.Send("exit\r")
	assert.Equal(t, ExitOK, tm.Wait(wait))
}

// ask is a write command's question, as the kit asks it: WriteIO.Approve.
func ask(ctx context.Context, w WriteIO) (yes, asked bool) {
	yes, err := w.Approve(ctx, Message("the plan"), 3, "by-dev")
	return yes && err == nil, w.Confirm != nil
}

func TestAskOutsideTheREPL(t *testing.T) {
	st := &fakeState{name: "t"}
	var yes, asked bool
	st.cmds = []*Command{WriteCommand(func(ctx context.Context, _ *askParams, _ Mode, w WriteIO) (Result, error) {
		yes, asked = ask(ctx, w)
		return nil, nil
	})}
	sh := NewShell(st, &discard{}, &discard{})
	assert.Equal(t, ExitOK, sh.RunScript(context.Background(), strings.NewReader("ask\n")))
	assert.False(t, asked, "script mode: nobody to ask")
	assert.True(t, yes, "script mode: the write goes ahead unasked")
}

// The REPL's question and the question before a write are one mechanism:
// the shell's Confirm.
func TestAskIsTheWriteQuestion(t *testing.T) {
	st := &fakeState{name: "t"}
	var yes, asked bool
	st.cmds = []*Command{WriteCommand(func(ctx context.Context, _ *askParams, _ Mode, w WriteIO) (Result, error) {
		yes, asked = ask(ctx, w)
		return nil, nil
	})}
	var errOut strings.Builder
	sh := NewShell(st, &discard{}, &errOut)
	sh.confirm = terminalConfirm(strings.NewReader("Yes\n"), &errOut)
	require.NoError(t, sh.Run(context.Background(), "ask"))
	assert.True(t, asked)
	assert.True(t, yes)
	assert.Equal(t, "apply these 3 key changes to by-dev? [y/N] ", errOut.String())
}
