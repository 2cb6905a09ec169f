package states

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

type shellOut struct {
	sh          *framework.Shell
	out, errOut *bytes.Buffer
}

func newShell(t *testing.T) *shellOut {
	t.Helper()
	var out, errOut bytes.Buffer
	sh := framework.NewShell(NewOffline(), &out, &errOut)
	t.Cleanup(func() { _ = sh.Close() })
	return &shellOut{sh, &out, &errOut}
}

func (s *shellOut) run(t *testing.T, line string) error {
	t.Helper()
	s.out.Reset()
	s.errOut.Reset()
	return s.sh.Run(context.Background(), line)
}

func put(t *testing.T, cli *clientv3.Client, kvs ...string) {
	t.Helper()
	for i := 0; i < len(kvs); i += 2 {
		_, err := cli.Put(context.Background(), kvs[i], kvs[i+1])
		require.NoError(t, err)
	}
}

// seeded starts an etcd with two Milvus roots and some unrelated keys.
func seeded(t *testing.T) (*clientv3.Client, string) {
	cli, ep := etcdtest.Start(t)
	put(t, cli,
		"by-dev/meta/root-coord/database/collection-info/1/100", "x",
		"by-dev/kv/gid/timestamp", "x",
		"by-dev-2/meta/session/id", "x",
		"a", "x",
		"a-b/meta/c", "x",
		"junk/data/1", "x",
		"junk/data/2", "x",
		"other/meta/datacoord-meta/s/1/2/3", "x",
		"zzz", "x",
		"zzz/other/key", "x",
	)
	return cli, ep
}

func TestConnectAndDisconnect(t *testing.T) {
	_, ep := seeded(t)
	s := newShell(t)
	assert.Equal(t, "Offline > ", s.sh.State().Prompt())

	require.NoError(t, s.run(t, "connect --etcd "+ep))
	assert.Equal(t, "Milvus(by-dev) > ", s.sh.State().Prompt())
	assert.Contains(t, s.errOut.String(), "connected to etcd "+ep+", root path by-dev", "the notice is a diagnostic")
	assert.Empty(t, s.out.String(), "stdout stays clean for the results of later commands")
	conn, ok := s.sh.State().(*Connected)
	require.True(t, ok)
	inst := conn.Instance()
	assert.Equal(t, "by-dev/meta/", inst.Layout.MetaRoot())
	assert.Equal(t, []string{ep}, inst.Endpoints)
	_, found, err := inst.Get(context.Background(), "by-dev/kv/gid/timestamp", 0)
	require.NoError(t, err)
	assert.True(t, found)

	require.NoError(t, s.run(t, "help"))
	assert.Contains(t, s.out.String(), "disconnect")
	assert.NotContains(t, s.out.String(), "  connect ")
	assert.Equal(t, framework.ExitUsage, framework.ExitCode(s.run(t, "connect --etcd "+ep)), "no connect while connected")

	require.NoError(t, s.run(t, "disconnect"))
	assert.Equal(t, "Offline > ", s.sh.State().Prompt())
	assert.Contains(t, s.out.String(), "disconnected from etcd "+ep)
	_, _, err = inst.Get(context.Background(), "by-dev/kv/gid/timestamp", 0)
	assert.Error(t, err, "disconnect closes the client")
}

func TestConnectJSONAndOtherRoot(t *testing.T) {
	_, ep := seeded(t)
	s := newShell(t)
	require.NoError(t, s.run(t, "connect --etcd "+ep+" --rootPath other --format json"))
	var v map[string]any
	require.NoError(t, json.Unmarshal(s.out.Bytes(), &v))
	assert.Equal(t, "other", v["rootPath"])
	assert.Equal(t, "other/meta/", v["metaRoot"])
	assert.Contains(t, v["message"], "connected")
	assert.Equal(t, "Milvus(other) > ", s.sh.State().Prompt())
}

func TestConnectWrongRootListsRoots(t *testing.T) {
	_, ep := seeded(t)
	s := newShell(t)
	err := s.run(t, "connect --etcd "+ep+" --rootPath nope")
	require.Error(t, err)
	assert.Equal(t, framework.ExitFailed, framework.ExitCode(err))
	msg := err.Error()
	assert.Contains(t, msg, `root path "nope" holds no Milvus metadata`)
	assert.Contains(t, msg, "root paths with Milvus metadata: a-b, by-dev, by-dev-2, other")
	for _, not := range []string{"junk", "zzz", "a,"} {
		assert.NotContains(t, msg, not)
	}
	assert.Equal(t, "Offline > ", s.sh.State().Prompt())
	assert.Empty(t, s.out.String())
}

func TestConnectEmptyEtcd(t *testing.T) {
	_, ep := etcdtest.Start(t)
	s := newShell(t)
	err := s.run(t, "connect --etcd "+ep)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no root path in this etcd holds metadata")
}

func TestFindRootsCaps(t *testing.T) {
	cli, _ := seeded(t)
	ctx := context.Background()
	in := func(meta string) *instance.Instance { return instance.New(cli, models.NewLayout("any", meta), nil) }
	roots, complete, err := in("meta").FindRoots(ctx, 2, 100)
	require.NoError(t, err)
	assert.False(t, complete)
	assert.Equal(t, []string{"a-b", "by-dev-2"}, roots, "the first two in key order")
	roots, complete, err = in("meta").FindRoots(ctx, 50, 100)
	require.NoError(t, err)
	assert.True(t, complete)
	assert.Equal(t, []string{"a-b", "by-dev", "by-dev-2", "other"}, roots)
	roots, _, err = in("data").FindRoots(ctx, 50, 100)
	require.NoError(t, err)
	assert.Equal(t, []string{"junk"}, roots)
}

func TestConnectForce(t *testing.T) {
	_, ep := seeded(t)
	s := newShell(t)
	require.NoError(t, s.run(t, "connect --etcd "+ep+" --rootPath nope --force"))
	assert.Equal(t, "Milvus(nope) > ", s.sh.State().Prompt())
	assert.Contains(t, s.errOut.String(), "warning: root path nope holds no Milvus metadata")
}

// refusedAddr is a loopback address where nothing listens.
func refusedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// silentAddr accepts TCP connections and never answers.
func silentAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

func TestConnectUnreachable(t *testing.T) {
	tests := []struct {
		name string
		addr func(t *testing.T) []string
	}{
		{"refused", func(t *testing.T) []string { return []string{refusedAddr(t)} }},
		{"two refused", func(t *testing.T) []string { return []string{refusedAddr(t), refusedAddr(t)} }},
		{"silent", func(t *testing.T) []string { return []string{silentAddr(t)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addrs := tt.addr(t)
			s := newShell(t)
			start := time.Now()
			err := s.run(t, "connect --etcd "+strings.Join(addrs, ",")+" --etcdUserName root --etcdPassword hunter2")
			elapsed := time.Since(start)
			require.Error(t, err)
			assert.Less(t, elapsed, 11*time.Second)
			assert.Equal(t, framework.ExitFailed, framework.ExitCode(err))
			for _, a := range addrs {
				assert.Contains(t, err.Error(), a)
			}
			assert.Contains(t, err.Error(), "cannot reach etcd")
			assert.NotContains(t, err.Error(), "hunter2")
			assert.NotContains(t, s.errOut.String(), "hunter2")
			assert.Equal(t, "Offline > ", s.sh.State().Prompt())
		})
	}
}

func TestConnectAuth(t *testing.T) {
	cli, ep := seeded(t)
	ctx := context.Background()
	_, err := cli.RoleAdd(ctx, "root")
	require.NoError(t, err)
	_, err = cli.UserAdd(ctx, "root", "s3cret-pw")
	require.NoError(t, err)
	_, err = cli.UserGrantRole(ctx, "root", "root")
	require.NoError(t, err)
	_, err = cli.AuthEnable(ctx)
	require.NoError(t, err)

	t.Run("wrong password", func(t *testing.T) {
		s := newShell(t)
		err := s.run(t, "connect --etcd "+ep+" --etcdUserName root --etcdPassword wrong-pw")
		require.Error(t, err)
		assert.Contains(t, err.Error(), ep)
		assert.Contains(t, err.Error(), `user "root"`)
		assert.NotContains(t, err.Error(), "wrong-pw")
	})
	t.Run("password flag", func(t *testing.T) {
		s := newShell(t)
		require.NoError(t, s.run(t, "connect --etcd "+ep+" --etcdUserName root --etcdPassword s3cret-pw"))
		assert.Equal(t, "Milvus(by-dev) > ", s.sh.State().Prompt())
	})
	t.Run("password from ETCD_PASSWORD", func(t *testing.T) {
		t.Setenv("ETCD_PASSWORD", "s3cret-pw")
		s := newShell(t)
		require.NoError(t, s.run(t, "connect --etcd "+ep+" --etcdUserName root"))
		assert.Equal(t, "Milvus(by-dev) > ", s.sh.State().Prompt())
	})
}

func TestConnectUsageAndTLSErrors(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	missing := filepath.Join(dir, "missing.pem")
	addr := refusedAddr(t)
	tests := []struct {
		line string
		code int
		err  string
	}{
		{"connect --etcd ''", framework.ExitUsage, "--etcd needs at least one address"},
		{"connect --rootPath /", framework.ExitUsage, "--rootPath must not be empty"},
		{"connect --metaPath ''", framework.ExitUsage, "--metaPath must not be empty"},
		{"connect --etcdCert c.pem", framework.ExitUsage, "--etcdCert and --etcdKey go together"},
		{"connect --rootCAPem ca.pem", framework.ExitUsage, "--rootCAPem needs --enableTLS"},
		{"connect --format xml", framework.ExitUsage, "--format"},
		{"connect --bogus", framework.ExitUsage, "unknown flag: --bogus"},
		{"connect --etcd " + addr + " --enableTLS --rootCAPem " + missing, framework.ExitFailed, missing},
		{"connect --etcd " + addr + " --enableTLS --rootCAPem " + notPEM, framework.ExitFailed, notPEM + " holds no PEM certificate"},
		{"connect --etcd " + addr + " --enableTLS --etcdCert " + notPEM + " --etcdKey " + missing, framework.ExitFailed, "--etcdCert " + notPEM},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			s := newShell(t)
			err := s.run(t, tt.line)
			require.Error(t, err)
			assert.Equal(t, tt.code, framework.ExitCode(err), "%v", err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestConnectDefaultsMatchConfigs(t *testing.T) {
	var out bytes.Buffer
	sh := framework.NewShell(NewOffline(), &out, &out)
	require.NoError(t, sh.Run(context.Background(), "help connect"))
	help := out.String()
	assert.Contains(t, help, "(default "+configs.DefaultEtcd)
	assert.Contains(t, help, "(default "+configs.DefaultRootPath+")")
	assert.Contains(t, help, "(default "+configs.DefaultMetaPath+")")
	assert.Contains(t, help, "env $ETCD_PASSWORD")
}

func TestVersion(t *testing.T) {
	for _, st := range []framework.State{NewOffline(), NewConnected(instance.New(nil, models.NewLayout("by-dev", "meta"), nil), nil)} {
		var out bytes.Buffer
		sh := framework.NewShell(st, &out, &out)
		require.NoError(t, sh.Run(context.Background(), "version --format json"))
		var v map[string]string
		require.NoError(t, json.Unmarshal(out.Bytes(), &v))
		assert.Equal(t, Version, v["heron"])
		assert.True(t, strings.HasPrefix(v["go"], "go"), v["go"])
		assert.NotEmpty(t, v["goApi"])
		out.Reset()
		require.NoError(t, sh.Run(context.Background(), "version"))
		assert.Contains(t, out.String(), "go-api/v3")
	}
}

func TestConnectedStateHoldsGivenCommands(t *testing.T) {
	type pingParams struct {
		framework.ParamBase `use:"ping" desc:"test namespace"`
	}
	ping := func(inst *instance.Instance) []*framework.Command {
		return []*framework.Command{framework.Read(inst, func(_ context.Context, inst *instance.Instance, _ *pingParams, _ framework.IO) (framework.Result, error) {
			return framework.Message("pong from %s", inst.Layout.RootPath), nil
		})}
	}
	_, ep := seeded(t)
	var out, errOut bytes.Buffer
	s := &shellOut{framework.NewShell(&Offline{commands: ping}, &out, &errOut), &out, &errOut}
	t.Cleanup(func() { _ = s.sh.Close() })
	assert.Equal(t, framework.ExitUsage, framework.ExitCode(s.run(t, "ping")), "not offline")
	require.NoError(t, s.run(t, "connect --etcd "+ep))
	require.NoError(t, s.run(t, "ping"))
	assert.Equal(t, "pong from by-dev\n", s.out.String())
	assert.Equal(t, framework.ExitUsage, framework.ExitCode(s.run(t, "show checkpoint")), "only the given commands")
	require.NoError(t, s.run(t, "disconnect"))
	require.NoError(t, s.run(t, "connect --etcd "+ep))
	require.NoError(t, s.run(t, "ping"), "disconnect goes back to the same offline state")
}

func TestScriptAgainstEtcd(t *testing.T) {
	_, ep := seeded(t)
	var out, errOut bytes.Buffer
	sh := framework.NewShell(NewOffline(), &out, &errOut)
	defer sh.Close()
	script := "# connect then leave\nconnect --etcd " + ep + "\n\ndisconnect\nconnect --etcd " + ep + " --rootPath nope\nversion\n"
	code := sh.RunScript(context.Background(), strings.NewReader(script))
	assert.Equal(t, framework.ExitFailed, code)
	assert.Contains(t, errOut.String(), `error: root path "nope" holds no Milvus metadata`)
	assert.NotContains(t, out.String(), "heron ", "stopped before version")
}
