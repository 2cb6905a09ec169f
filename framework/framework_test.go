package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{ErrExit, ExitOK},
		{errors.New("x"), ExitFailed},
		{Usagef("bad %s", "flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", Usagef("bad")), ExitUsage},
		{UsageError{Err: errors.New("value form")}, ExitUsage},
		{Refusedf("gate"), ExitRefused},
		{fmt.Errorf("wrapped: %w", &RefusedError{Err: errors.New("gate")}), ExitRefused},
		{RefusedError{Err: errors.New("value form")}, ExitRefused},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ExitCode(tt.err), "%v", tt.err)
	}
	assert.Equal(t, "bad flag", Usagef("bad %s", "flag").Error())
	assert.True(t, errors.Is(Usagef("x: %w", io.EOF), io.EOF), "Unwrap")
}

func TestParseSpecTags(t *testing.T) {
	c := Read(0, func(context.Context, int, *echoParams, IO) (Result, error) { return nil, nil })
	assert.Equal(t, "echo", c.Path())
	assert.Equal(t, "print the params", c.Help())
	assert.Equal(t, []string{"format", "name", "item", "id", "count", "big", "force", "mode", "kind", "password", "apiKey"}, c.Flags())
	format := c.spec.flag("format")
	assert.Equal(t, "table", format.Default)
	assert.Equal(t, []string{"table", "json", "line"}, format.Enum)
	pw := c.spec.flag("password")
	assert.True(t, pw.Secret)
	assert.Equal(t, "FAKE_PASSWORD", pw.Env)
	assert.Equal(t, kindStrings, c.spec.flag("item").Kind)
	assert.Equal(t, kindInt64s, c.spec.flag("id").Kind)

	w := WriteCommand(func(context.Context, *planParams, Mode, WriteIO) (Result, error) { return nil, nil })
	assert.Equal(t, "reset thing", w.Path())
	assert.Contains(t, w.Flags(), "run")

	v := Read(0, func(context.Context, int, *validParams, IO) (Result, error) { return nil, nil })
	assert.True(t, v.spec.flag("collection").Required)
	assert.NotNil(t, v.spec.flag("filled"), "untagged exported field gets a lowerCamel name")
}

type noBase struct{ X string }
type badDefault struct {
	ParamBase `use:"x"`
	N         int `name:"n" default:"ten"`
}
type badEnumDefault struct {
	ParamBase `use:"x"`
	M         string `name:"m" default:"z" enum:"a,b"`
}
type badKind struct {
	ParamBase `use:"x"`
	F         float64 `name:"f"`
}
type dupFlag struct {
	ParamBase `use:"x"`
	Output
	F string `name:"format"`
}
type declaresRun struct {
	ParamBase `use:"x"`
	Run       bool `name:"run"`
}

func TestParseSpecErrorsPanic(t *testing.T) {
	tests := []struct {
		name string
		mk   func()
		want string
	}{
		{"no ParamBase", func() { Read(0, func(context.Context, int, *noBase, IO) (Result, error) { return nil, nil }) }, "ParamBase"},
		{"bad default", func() { Read(0, func(context.Context, int, *badDefault, IO) (Result, error) { return nil, nil }) }, "bad default"},
		{"enum default", func() { Read(0, func(context.Context, int, *badEnumDefault, IO) (Result, error) { return nil, nil }) }, "not one of"},
		{"kind", func() { Read(0, func(context.Context, int, *badKind, IO) (Result, error) { return nil, nil }) }, "unsupported flag type"},
		{"dup", func() { Read(0, func(context.Context, int, *dupFlag, IO) (Result, error) { return nil, nil }) }, "declared twice"},
		{"run", func() {
			WriteCommand(func(context.Context, *declaresRun, Mode, WriteIO) (Result, error) { return nil, nil })
		}, "--run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				require.NotNil(t, r, "expected a panic")
				assert.Contains(t, fmt.Sprint(r), tt.want)
			}()
			tt.mk()
		})
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		env   string
		code  int
		check func(t *testing.T, p *echoParams)
		err   string
	}{
		{name: "defaults", line: "echo", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "world", p.Name)
			assert.Equal(t, 3, p.Count)
			assert.Equal(t, "a", p.Mode)
			assert.Equal(t, "table", p.Format)
			assert.Empty(t, p.Items)
			assert.False(t, p.Force)
		}},
		{name: "all kinds", line: "echo --name bob --count=7 --big 9000000000 --force --mode c --id 1 --id 2,3", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "bob", p.Name)
			assert.Equal(t, 7, p.Count)
			assert.Equal(t, int64(9000000000), p.Big)
			assert.True(t, p.Force)
			assert.Equal(t, "c", p.Mode)
			assert.Equal(t, []int64{1, 2, 3}, p.IDs)
		}},
		{name: "repeated and comma-separated", line: "echo --item a --item b,c --item=d", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, []string{"a", "b", "c", "d"}, p.Items)
		}},
		{name: "quotes", line: `echo --name "two words" --item 'x y'`, check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "two words", p.Name)
			assert.Equal(t, []string{"x y"}, p.Items)
		}},
		{name: "env fills a secret", line: "echo", env: "s3cret", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "s3cret", p.Password)
		}},
		{name: "flag beats env", line: "echo --password flagpw", env: "s3cret", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "flagpw", p.Password)
		}},
		{name: "enum rejected", line: "echo --mode z", code: ExitUsage, err: `bad value "z" for --mode: must be one of a, b, c`},
		{name: "enum on list rejected", line: "echo --kind x,q", code: ExitUsage, err: `bad value "q" for --kind`},
		{name: "format rejected", line: "echo --format xml", code: ExitUsage, err: "--format"},
		{name: "bad int", line: "echo --count ten", code: ExitUsage, err: "--count"},
		{name: "bad int64 list", line: "echo --id 1,x", code: ExitUsage, err: "--id"},
		{name: "unknown flag", line: "echo --nope", code: ExitUsage, err: "unknown flag: --nope"},
		{name: "missing value", line: "echo --name", code: ExitUsage, err: "--name"},
		{name: "extra argument", line: "echo stray", code: ExitUsage, err: `unexpected argument "stray"`},
		{name: "unknown command", line: "frobnicate --x", code: ExitUsage, err: `unknown command "frobnicate"`},
		{name: "unknown subcommand", line: "show three", code: ExitUsage, err: `unknown command "show three" (show has: one, two)`},
		{name: "missing subcommand", line: "show", code: ExitUsage, err: `"show" needs a subcommand: one, two`},
		{name: "unterminated quote", line: `echo --name "bob`, code: ExitUsage, err: "split"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FAKE_PASSWORD", tt.env)
			sh, st, out, _ := newTestShell(t)
			err := sh.Run(context.Background(), tt.line)
			require.Equal(t, tt.code, ExitCode(err), "err=%v", err)
			if tt.err != "" {
				assert.Contains(t, err.Error(), tt.err)
				assert.Empty(t, out.String(), "nothing on stdout for a usage error")
			}
			if tt.check != nil {
				require.NotNil(t, st.got)
				tt.check(t, st.got)
			}
		})
	}
}

func TestSecretNeverInErrors(t *testing.T) {
	sh, _, _, _ := newTestShell(t)
	t.Setenv("FAKE_PASSWORD", "")
	err := sh.Run(context.Background(), "echo --password hunter2 --bogus")
	require.Equal(t, ExitUsage, ExitCode(err))
	assert.NotContains(t, err.Error(), "hunter2")
}

func TestCompleteAndValidate(t *testing.T) {
	tests := []struct {
		line string
		code int
		out  string
		err  string
	}{
		{"valid --collection 5", ExitOK, "collection 5 completed\n", ""},
		{"valid --collection 5 --filled given", ExitOK, "collection 5 given\n", ""},
		{"valid --collection -1", ExitUsage, "", "--collection must be >= 0"},
		{"valid", ExitUsage, "", "flag --collection is required"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			sh, _, out, _ := newTestShell(t)
			err := sh.Run(context.Background(), tt.line)
			require.Equal(t, tt.code, ExitCode(err), "err=%v", err)
			assert.Equal(t, tt.out, out.String())
			if tt.err != "" {
				assert.Contains(t, err.Error(), tt.err)
			}
		})
	}
}

func TestWriteCommands(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		code      int
		applied   int
		stdout    string
		stderr    string
		errString string
	}{
		{name: "dry run by default", line: "reset thing", stdout: "PLAN put k v\n", stderr: "dry run: nothing was written"},
		{name: "dry run json", line: "reset thing --format json", stdout: "{\n  \"plan\": \"put k v\"\n}\n"},
		{name: "run applies and prints only its result", line: "reset thing --run --format json", applied: 1,
			stdout: "{\n  \"message\": \"applied 1 key\"\n}\n", stderr: "applying..."},
		{name: "refusal exits 3 with the plan printed", line: "reset thing --refuse --run", code: ExitRefused,
			stdout: "PLAN put k v\n", errString: "segment 7 is Growing"},
		{name: "plain refusal is wrapped", line: "reset thing --plain --run", code: ExitRefused,
			stdout: "PLAN put k v\n", errString: "a component is alive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, st, out, errOut := newTestShell(t)
			err := sh.Run(context.Background(), tt.line)
			require.Equal(t, tt.code, ExitCode(err), "err=%v", err)
			assert.Equal(t, tt.applied, st.applied, "Apply calls")
			assert.Equal(t, tt.stdout, out.String())
			assert.Contains(t, errOut.String(), tt.stderr)
			if tt.errString != "" {
				assert.Contains(t, err.Error(), tt.errString)
				var re *RefusedError
				assert.True(t, errors.As(err, &re))
			}
			if tt.code == ExitRefused || tt.applied > 0 {
				assert.NotContains(t, errOut.String(), "dry run")
			}
		})
	}
}

func TestJSONIsOneDocument(t *testing.T) {
	for _, line := range []string{
		"echo --format json --item a --item b",
		"show one --format json",
		"reset thing --format json",
		"reset thing --format json --run",
		"reset thing --format json --refuse",
	} {
		t.Run(line, func(t *testing.T) {
			sh, _, out, _ := newTestShell(t)
			_ = sh.Run(context.Background(), line)
			dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
			var v any
			require.NoError(t, dec.Decode(&v), "stdout: %q", out.String())
			require.ErrorIs(t, dec.Decode(&v), io.EOF, "exactly one JSON document")
		})
	}
}

func TestFormats(t *testing.T) {
	tests := []struct{ format, want string }{
		{"table", "a message\n"},
		{"json", "{\n  \"message\": \"a message\"\n}\n"},
		{"line", "message=\"a message\"\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		require.NoError(t, Render(&b, Message("a %s", "message"), tt.format))
		assert.Equal(t, tt.want, b.String())
	}
	assert.Equal(t, ExitUsage, ExitCode(Render(io.Discard, Message("x"), "xml")))

	var b bytes.Buffer
	require.NoError(t, WriteLine(&b, "a", 1, "b", "", "c", "x=y", "d", "plain"))
	assert.Equal(t, "a=1 b=\"\" c=\"x=y\" d=plain\n", b.String())
}

func TestPanicBecomesError(t *testing.T) {
	sh, _, out, _ := newTestShell(t)
	err := sh.Run(context.Background(), "boom")
	require.Error(t, err)
	assert.Equal(t, ExitFailed, ExitCode(err))
	var pe *PanicError
	require.True(t, errors.As(err, &pe))
	assert.Contains(t, err.Error(), "boom: internal error (panic)")
	assert.Contains(t, err.Error(), "nil map")
	// The shell still works.
	require.NoError(t, sh.Run(context.Background(), "show one"))
	assert.Equal(t, "one\n", out.String())
}

func TestStdoutOnlyResults(t *testing.T) {
	sh, _, out, errOut := newTestShell(t)
	require.NoError(t, sh.Run(context.Background(), "echo --name x"))
	assert.Equal(t, "NAME\nx\n", out.String())
	assert.Equal(t, "notice: echo ran\n", errOut.String())
}

func TestTransition(t *testing.T) {
	sh, st, out, _ := newTestShell(t)
	require.NoError(t, sh.Run(context.Background(), "go"))
	assert.Equal(t, "moving\n", out.String())
	assert.Equal(t, "other > ", sh.State().Prompt())
	assert.Equal(t, 1, st.closed, "the state left is closed")
	require.NoError(t, sh.Close())
	assert.Equal(t, 1, sh.State().(*fakeState).closed)
}

func TestBuiltins(t *testing.T) {
	sh, _, out, _ := newTestShell(t)
	ctx := context.Background()
	assert.ErrorIs(t, sh.Run(ctx, "exit"), ErrExit)
	assert.ErrorIs(t, sh.Run(ctx, "quit"), ErrExit)
	assert.NoError(t, sh.Run(ctx, ""))
	assert.NoError(t, sh.Run(ctx, "   "))

	require.NoError(t, sh.Run(ctx, "help"))
	for _, w := range []string{"echo", "print the params", "show one", "reset thing", "help", "exit"} {
		assert.Contains(t, out.String(), w)
	}
	out.Reset()
	require.NoError(t, sh.Run(ctx, "help reset thing"))
	assert.Contains(t, out.String(), "--run")
	assert.Contains(t, out.String(), "--format table|json|line")
	out.Reset()
	require.NoError(t, sh.Run(ctx, "echo --help"))
	assert.Contains(t, out.String(), "--password STRING") // issue 10 §3: the type word names the value
	assert.Contains(t, out.String(), "env $FAKE_PASSWORD")
	out.Reset()
	require.NoError(t, sh.Run(ctx, "help show"))
	assert.Contains(t, out.String(), "show two")
	assert.NotContains(t, out.String(), "echo")
	assert.Equal(t, ExitUsage, ExitCode(sh.Run(ctx, "help nothing")))
}

func TestDuplicateCommand(t *testing.T) {
	st := newFake("dup")
	st.cmds = append(st.cmds, st.cmds[0])
	sh := NewShell(st, io.Discard, io.Discard)
	err := sh.Run(context.Background(), "echo")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "registered twice")
}

func TestRunScript(t *testing.T) {
	tests := []struct {
		name   string
		script string
		code   int
		stdout string
		stderr string
	}{
		{name: "comments and blanks skipped", script: "# a comment\n\n   \nshow one\n  # indented comment\nshow two\n", stdout: "one\ntwo\n"},
		{name: "stops at the first failure", script: "show one\nfail\nshow two\n", code: ExitFailed, stdout: "one\n", stderr: "error: it failed\n"},
		{name: "usage error exits 2", script: "show one\nnope\nshow two\n", code: ExitUsage, stdout: "one\n", stderr: "error: unknown command \"nope\""},
		{name: "refusal exits 3", script: "reset thing --refuse\nshow two\n", code: ExitRefused, stdout: "PLAN put k v\n", stderr: "error: segment 7 is Growing"},
		{name: "exit ends the script with 0", script: "show one\nexit\nfail\n", stdout: "one\n"},
		{name: "panic stops it with 1", script: "boom\nshow one\n", code: ExitFailed, stderr: "error: boom: internal error"},
		{name: "CRLF lines", script: "show one\r\nshow two\r\n", stdout: "one\ntwo\n"},
		{name: "no trailing newline", script: "show one", stdout: "one\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, _, out, errOut := newTestShell(t)
			code := sh.RunScript(context.Background(), strings.NewReader(tt.script))
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stdout, out.String())
			assert.Contains(t, errOut.String(), tt.stderr)
		})
	}
}

func TestRunScriptCancelled(t *testing.T) {
	sh, _, _, errOut := newTestShell(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Equal(t, ExitFailed, sh.RunScript(ctx, strings.NewReader("show one\n")))
	assert.Contains(t, errOut.String(), "interrupted")
}

func TestSplitOLC(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"show one", []string{"show one"}},
		{"show one, show two", []string{"show one", "show two"}},
		{"show one,show two ,  exit", []string{"show one", "show two", "exit"}},
		{`connect --etcd "a:1,b:2", show one`, []string{`connect --etcd "a:1,b:2"`, "show one"}},
		{`echo --name 'x,y', echo --name a\,b`, []string{`echo --name 'x,y'`, `echo --name a\,b`}},
		{"", []string{""}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, SplitOLC(tt.in), tt.in)
	}
}

func TestRunOLC(t *testing.T) {
	tests := []struct {
		olc    string
		code   int
		stdout string
	}{
		{"show one, show two", ExitOK, "one\ntwo\n"},
		{"show one, fail, show two", ExitFailed, "one\n"},
		{"show one,, show two,", ExitOK, "one\ntwo\n"},
		{"echo --name 'a,b' --format line", ExitOK, "name=a,b\n"},
		{"show one, bogus", ExitUsage, "one\n"},
	}
	for _, tt := range tests {
		t.Run(tt.olc, func(t *testing.T) {
			sh, _, out, _ := newTestShell(t)
			assert.Equal(t, tt.code, sh.RunOLC(context.Background(), tt.olc))
			assert.Equal(t, tt.stdout, out.String())
		})
	}
}

func TestRedactLine(t *testing.T) {
	sh, _, _, _ := newTestShell(t)
	tests := []struct {
		line string
		want string
		ok   bool
	}{
		{"show one", "show one", true},
		{"connect --etcd a:2379 --etcdPassword hunter2", "connect --etcd a:2379 --etcdPassword ***", true},
		{"connect --etcdPassword=hunter2 --rootPath x", "connect --etcdPassword=*** --rootPath x", true},
		{`connect --etcdPassword "two words" --force`, "connect --etcdPassword *** --force", true},
		{"echo --password p1 --apiKey k1", "echo --password *** --apiKey ***", true},
		{"echo --name 'a b' --apiKey=k1", "echo --name 'a b' --apiKey=***", true},
		{`connect --etcdPassword "unterminated`, "", false},
		{`echo --name "unterminated`, `echo --name "unterminated`, true},
	}
	for _, tt := range tests {
		got, ok := redactLine(tt.line, sh.isSecretFlag, nil)
		assert.Equal(t, tt.ok, ok, tt.line)
		assert.Equal(t, tt.want, got, tt.line)
		assert.NotContains(t, got, "hunter2")
	}
}

func TestHistoryFileNeverStoresSecrets(t *testing.T) {
	sh, _, _, _ := newTestShell(t)
	path := filepath.Join(t.TempDir(), "sub", "history")
	var hist []string
	var err error
	for _, l := range []string{
		"show one",
		"connect --etcd 10.0.0.1:2379 --etcdUserName root --etcdPassword hunter2",
		"connect --etcdPassword=hunter2",
		`connect --etcdPassword "hunter2`,
		"echo --password hunter2",
		"show one",
		"show one",
	} {
		hist, err = sh.recordHistory(path, hist, l)
		require.NoError(t, err)
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "hunter2")
	assert.NotContains(t, strings.Join(hist, "\n"), "hunter2")
	assert.Equal(t, []string{
		"show one",
		"connect --etcd 10.0.0.1:2379 --etcdUserName root --etcdPassword ***",
		"connect --etcdPassword=***",
		"echo --password ***",
		"show one",
	}, lines(string(b)))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.Equal(t, lines(string(b)), loadHistory(path))
}

func TestLoadHistoryTrims(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	var sb strings.Builder
	for i := 0; i < historyKeep+10; i++ {
		fmt.Fprintf(&sb, "show one %d\n", i)
	}
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o600))
	h := loadHistory(path)
	require.Len(t, h, historyKeep)
	assert.Equal(t, "show one 10", h[0])
	assert.Len(t, loadHistory(path), historyKeep)
	assert.Nil(t, loadHistory(filepath.Join(t.TempDir(), "missing")))
}

func TestSuggest(t *testing.T) {
	sh, _, _, _ := newTestShell(t)
	tests := []struct {
		before string
		want   []string
	}{
		{"", []string{"boom", "echo", "fail", "go", "reset", "show", "valid", "help", "exit", "clear"}},
		{"sh", []string{"show"}},
		{"show ", []string{"one", "two"}},
		{"show t", []string{"two"}},
		{"show one ", []string{"--format"}},
		{"show one --format ", []string{"table", "json", "line"}},
		{"show one --format j", []string{"json"}},
		{"show one --format=l", []string{"--format=line"}},
		{"reset thing --r", []string{"--refuse", "--run"}},
		{"echo --name bob --na", nil},
		{"echo --item a --it", []string{"--item"}},
		{"echo --mode ", []string{"a", "b", "c"}},
		{"echo --name ", nil},
		{"help sh", []string{"show"}},
		{"help show ", []string{"one", "two"}},
		{"nothing ", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, suggestTexts(sh, tt.before), "%q", tt.before)
	}
}

func TestRefusalNamesFailedGates(t *testing.T) {
	if err := Refusal("reset checkpoint", []Gate{{Name: "a", OK: true}}); err != nil {
		t.Fatalf("all gates passed, got %v", err)
	}
	err := Refusal("reset checkpoint", []Gate{{Name: "a", OK: true}, {Name: "no live Milvus component", Detail: "1 session holds a lease"}})
	if ExitCode(err) != ExitRefused {
		t.Fatalf("exit %d, want %d", ExitCode(err), ExitRefused)
	}
	if want := "reset checkpoint refused, nothing was written: no live Milvus component: 1 session holds a lease"; err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
}

// A read command gets the shell's writers in its IO (not from its context).
func TestReadGetsIO(t *testing.T) {
	type ioParams struct {
		ParamBase `use:"io" desc:"writes to its IO"`
	}
	st := &fakeState{name: "Test"}
	st.cmds = []*Command{Read(st, func(_ context.Context, _ *fakeState, _ *ioParams, out IO) (Result, error) {
		fmt.Fprintln(out.Stderr, "via IO")
		return Message("done"), nil
	})}
	var out, errOut bytes.Buffer
	sh := NewShell(st, &out, &errOut)
	require.NoError(t, sh.Run(context.Background(), "io"))
	assert.Equal(t, "done\n", out.String())
	assert.Equal(t, "via IO\n", errOut.String())

	// Without writers (a command run outside a shell) output is discarded, never a nil writer.
	var got IO
	c := Read(0, func(_ context.Context, _ int, _ *ioParams, out IO) (Result, error) { got = out; return nil, nil })
	_, err := c.exec(context.Background(), &ioParams{}, Mode{}, WriteIO{})
	require.NoError(t, err)
	assert.Equal(t, io.Discard, got.Stdout)
	assert.Equal(t, io.Discard, got.Stderr)
}
