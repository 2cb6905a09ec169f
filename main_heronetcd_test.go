package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// Issue 38: with HERON_ETCD set, a piped script (and --olc) starts
// connected as the terminal does, saying so on stderr's first line; a
// script that connects itself (its first command is connect, which reads
// HERON_ETCD too) is left to do so, so that it does not fail as already
// connected; an address that does not answer stops the script (exit 1)
// before its first command.
func TestHeronEtcdConnectsAPipedScript(t *testing.T) {
	t.Setenv("HERON_HOME", t.TempDir())
	cli, ep := etcdtest.Start(t)
	shelltest.Seed(t, cli, ep, configs.DefaultRootPath, commonpb.WALName_Pulsar)
	t.Setenv("HERON_ROOT_PATH", "by-dev")
	t.Setenv("HERON_ETCD", ep)
	said := "HERON_ETCD is set: connect (to " + ep + ")"

	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{name: "a piped script", stdin: "# the pchannels\n\nshow checkpoint --pchannels --format line\n"},
		{name: "--olc", args: []string{"--olc", "show checkpoint --pchannels --format line"}},
	} {
		var out, errOut bytes.Buffer
		code := run(tt.args, pipe(t, tt.stdin), &out, &errOut)
		assert.Equal(t, framework.ExitOK, code, "%s: %s", tt.name, errOut.String())
		assert.True(t, strings.HasPrefix(errOut.String(), said+"\n"), "%s: stderr's first line says so: %q", tt.name, errOut.String())
		assert.Contains(t, out.String(), "by-dev-rootcoord-dml_0", tt.name)
	}

	// The script connects itself: as before, no second connect.
	var out, errOut bytes.Buffer
	code := run(nil, pipe(t, "connect\nshow checkpoint --pchannels --format line\n"), &out, &errOut)
	assert.Equal(t, framework.ExitOK, code, errOut.String())
	assert.NotContains(t, errOut.String(), "already connected")
	assert.NotContains(t, errOut.String(), said)
	assert.Contains(t, out.String(), "by-dev-rootcoord-dml_0")

	// An address that does not answer: the script stops there.
	t.Setenv("HERON_ETCD", "127.0.0.1:1")
	out.Reset()
	errOut.Reset()
	code = run(nil, pipe(t, "version --format line\n"), &out, &errOut)
	assert.Equal(t, framework.ExitFailed, code, errOut.String())
	assert.Contains(t, errOut.String(), "cannot reach etcd at 127.0.0.1:1")
	assert.NotContains(t, out.String(), "heron=", "the script's command did not run")
}
