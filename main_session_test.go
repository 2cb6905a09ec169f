package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/ptytest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// Issue 17 item 1 on a terminal: a datacoord session that registers while
// the REPL waits at [y/N] refuses the run after the answer (a refusal, exit
// 3 in script mode): nothing written, no backup, the session key, its role
// and its lease named.
func TestSessionAtTheQuestionOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("pty test")
	}
	cli, ep := etcdtest.Start(t)
	shelltest.Seed(t, cli, ep, configs.DefaultRootPath, commonpb.WALName_Pulsar)
	ctx := context.Background()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainChildEnv+"=1", "HERON_HOME="+t.TempDir(), "TERM=xterm")
	tm := ptytest.Start(t, cmd)
	const wait = 20 * time.Second
	tm.Expect("> ", wait)
	tm.Send("connect --etcd " + ep + " --rootPath by-dev\r")
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("reset checkpoint --target-wal kafka --run --backup-dir " + dir + "\r")
	tm.Expect("[y/N] ", wait)

	before, err := cli.Get(ctx, "x", clientv3.WithCountOnly())
	require.NoError(t, err)
	lease, err := cli.Grant(ctx, 300)
	require.NoError(t, err)
	session := "by-dev/meta/session/datacoord"
	_, err = cli.Put(ctx, session, `{"ServerID":21,"ServerName":"datacoord"}`, clientv3.WithLease(lease.ID))
	require.NoError(t, err)
	tm.Send("y\r")
	tm.Expect("refused after the question, nothing was written", wait)
	// The error line is wrapped at the terminal's width (at a space).
	tm.Expect("a Milvus component is", wait)
	tm.Expect(fmt.Sprintf("running: %s (datacoord, lease %016x)", session, int64(lease.ID)), wait)
	tm.Expect("Milvus(by-dev) > ", wait)
	tm.Send("exit\r")
	tm.Wait(wait)

	after, err := cli.Get(ctx, "x", clientv3.WithCountOnly())
	require.NoError(t, err)
	assert.Equal(t, before.Header.Revision+1, after.Header.Revision, "only the session was written")
	files, err := filepath.Glob(filepath.Join(dir, "heron-backup-*"))
	require.NoError(t, err)
	assert.Empty(t, files, "a refused run left a backup")
	assert.NotContains(t, tm.Output(), "verify: ok")
}
