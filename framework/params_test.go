package framework

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// credParams is a command that takes credentials, named like heron's connect.
type credParams struct {
	ParamBase `use:"connect" desc:"takes credentials"`
	Etcd      []string `name:"etcd" default:"127.0.0.1:2379"`
	User      string   `name:"etcdUserName"`
	Password  string   `name:"etcdPassword" secret:"true"`
	Force     bool     `name:"force"`
	Count     int      `name:"count"`
}

func newCredShell(t *testing.T) (*Shell, **credParams) {
	t.Helper()
	got := new(*credParams)
	st := &fakeState{name: "Offline"}
	st.cmds = []*Command{Read(st, func(_ context.Context, _ *fakeState, p *credParams, _ IO) (Result, error) {
		*got = p
		return Message("ok"), nil
	})}
	sh := NewShell(st, &discard{}, &discard{})
	sh.SetHistoryFile("")
	return sh, got
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Issue 9 item 5: flag rules the framework applies to every command.
func TestFlagRules(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		err   string // "" : accepted
		check func(t *testing.T, p *echoParams)
	}{
		{name: "empty list value", line: "echo --item ''", err: "empty value for --item"},
		{name: "empty list value with =", line: "echo --item=", err: "empty value for --item"},
		{name: "empty list element", line: "echo --item ,", err: "empty element in --item"},
		{name: "empty element among others", line: "echo --item a,,b", err: "empty element in --item"},
		{name: "empty int list value", line: "echo --id ''", err: "empty value for --id"},
		{name: "empty after a good one", line: "echo --item a --item ''", err: "empty value for --item"},
		{name: "scalar twice, different", line: "echo --name a --name b", err: `--name given twice with different values ("a", then "b")`},
		{name: "enum twice, different", line: "echo --mode a --mode b", err: "--mode given twice"},
		{name: "bool twice, different", line: "echo --force --force=false", err: "--force given twice"},
		{name: "scalar twice, same", line: "echo --name a --name=a", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "a", p.Name)
		}},
		{name: "int twice, same number", line: "echo --count 7 --count 07", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, 7, p.Count)
		}},
		{name: "enum any case, stored canonical", line: "echo --mode C --format JSON", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "c", p.Mode)
			assert.Equal(t, "json", p.Format)
		}},
		{name: "enum twice, same up to case", line: "echo --mode b --mode B", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, "b", p.Mode)
		}},
		{name: "enum list any case", line: "echo --kind X --kind y,Y", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, []string{"x", "y", "y"}, p.Kinds)
		}},
		{name: "list elements trimmed", line: "echo --item 'a, b'", check: func(t *testing.T, p *echoParams) {
			assert.Equal(t, []string{"a", "b"}, p.Items)
		}},
		{name: "bad enum names the flag", line: "echo --mode z", err: `bad value "z" for --mode: must be one of a, b, c`},
		{name: "bad int names the flag", line: "echo --count ten", err: `bad value "ten" for --count: want an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, st, out, _ := newTestShell(t)
			err := sh.Run(context.Background(), tt.line)
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, ExitUsage, ExitCode(err), "err=%v", err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Empty(t, out.String())
				return
			}
			require.NoError(t, err)
			tt.check(t, st.got)
		})
	}
}

func TestSecretNotRepeatedWhenGivenTwice(t *testing.T) {
	sh, _, _, _ := newTestShell(t)
	err := sh.Run(context.Background(), "echo --password hunter1 --password hunter2")
	require.Equal(t, ExitUsage, ExitCode(err))
	assert.Contains(t, err.Error(), "--password given twice")
	assert.NotContains(t, err.Error(), "hunter")
}

// Issue 9 item 7: no error message of connect repeats one of its arguments.
func TestCredentialCommandErrorsRepeatNoArgument(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"connect --etcdUserName root S3cr3t", "connect: unexpected argument 3: not a flag"},
		{"connect S3cr3t", "connect: unexpected argument 1"},
		{"connect --force S3cr3t", "connect: unexpected argument 2"},
		{"connect --etcd a:1 -- S3cr3t", "connect: unexpected argument 4"},
		{"connect --force=S3cr3t", "bad value for --force"},
		{"connect --count S3cr3t", "bad value for --count"},
		{"connect --etcdUserName S3cr3t --etcdUserName other", "--etcdUserName given twice with different values"},
		{"connect -etcdPassword S3cr3t", "connect: cannot read the flags"},
		{"connect -etcdPassword=S3cr3t", "connect: cannot read the flags"},
		{"connect --etcdPasword S3cr3t", "unknown flag: --etcdPasword"},
		{"connect --etcdPasword=S3cr3t", "unknown flag: --etcdPasword"},
		{"connect --etcd ''", "empty value for --etcd"},
		{"connect --etcd S3cr3t,", "empty element in --etcd"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			sh, _ := newCredShell(t)
			err := sh.Run(context.Background(), tt.line)
			require.Error(t, err)
			assert.Equal(t, ExitUsage, ExitCode(err))
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "S3cr3t")
		})
	}
	sh, got := newCredShell(t)
	require.NoError(t, sh.Run(context.Background(), "connect --etcd a:1,b:2 --etcdUserName root --etcdPassword pw --force"))
	assert.Equal(t, []string{"a:1", "b:2"}, (*got).Etcd)
	assert.Equal(t, "pw", (*got).Password)
}

// Issue 38: a value echoed in a usage error is cut after a few hundred
// bytes, with an ellipsis and its length: a 1 MB flag value is not echoed
// whole into the terminal or a log, whichever error quotes it (the
// framework's flag rules, an argument that is no flag, a command's own
// Validate through Usagef).
func TestUsageErrorsCutLongValues(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	for _, line := range []string{"echo --count " + big, "echo --name a --name " + big, "echo --mode " + big, "echo " + big, "echo --id 1," + big} {
		sh, _, _, _ := newTestShell(t)
		err := sh.Run(context.Background(), line)
		require.Error(t, err)
		assert.Equal(t, ExitUsage, ExitCode(err))
		msg := err.Error()
		assert.Less(t, len(msg), 600, "%.300s", msg)
		assert.Contains(t, msg, `"`+strings.Repeat("x", maxEchoed)+`"... (1048576 bytes)`, "%.300s", msg)
	}
	sh, _, _, _ := newTestShell(t)
	err := sh.Run(context.Background(), "echo --"+big)
	assert.Equal(t, "echo: unknown flag: --"+strings.Repeat("x", maxEchoed-len("unknown flag: --"))+"... (1048592 bytes)", err.Error())
	err = Usagef("repair checkpoint: --vchannel %q: want a vchannel name", big)
	assert.Equal(t, `repair checkpoint: --vchannel "`+strings.Repeat("x", maxEchoed)+`"... (1048576 bytes): want a vchannel name`, err.Error())
	// A short value, and a value cut within a rune, stay valid quotes.
	assert.Equal(t, `--vchannel "dml_0": bad`, Usagef("--vchannel %q: bad", "dml_0").Error())
	cut := QuoteValue(strings.Repeat("é", maxEchoed))
	assert.True(t, strings.HasPrefix(cut, `"`+strings.Repeat("é", maxEchoed/2)+`"...`), cut)
}
