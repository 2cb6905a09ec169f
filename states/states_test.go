package states

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

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
	assert.Equal(t, "other", v["root_path"])
	assert.Equal(t, "other/meta/", v["meta_root"])
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

// enableRootAuth turns etcd's auth on with the user root (password
// s3cret-pw, role root).
func enableRootAuth(t *testing.T, cli *clientv3.Client) {
	t.Helper()
	ctx := context.Background()
	_, err := cli.RoleAdd(ctx, "root")
	require.NoError(t, err)
	_, err = cli.UserAdd(ctx, "root", "s3cret-pw")
	require.NoError(t, err)
	_, err = cli.UserGrantRole(ctx, "root", "root")
	require.NoError(t, err)
	_, err = cli.AuthEnable(ctx)
	require.NoError(t, err)
}

func TestConnectAuth(t *testing.T) {
	cli, ep := seeded(t)
	enableRootAuth(t, cli)

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
	assert.Contains(t, help, "(default "+configs.DefaultRootPath+";")
	assert.Contains(t, help, "(default "+configs.DefaultMetaPath+";")
	assert.Contains(t, help, "env $HERON_ETCD_PASSWORD")
	assert.Contains(t, help, "$ETCD_PASSWORD")
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
		assert.NotEmpty(t, v["go_api"])
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

func TestNotConnectedMessage(t *testing.T) {
	s := newShell(t)
	for _, line := range []string{"show checkpoint", "show segment --format json", "reset checkpoint --target-wal kafka", "restore --file x", "disconnect", "show",
		"repair wal-broadcast-task --id 7"} { // heron's repair, not birdwatcher's repair verb
		err := s.run(t, line)
		require.Error(t, err, line)
		assert.Equal(t, framework.ExitUsage, framework.ExitCode(err), line)
		assert.Equal(t, "not connected: run connect --etcd HOST:PORT first", err.Error(), line)
	}
	err := s.run(t, "shwo checkpoint")
	assert.Equal(t, framework.ExitUsage, framework.ExitCode(err))
	assert.Contains(t, err.Error(), `unknown command "shwo"`, "a typo is still unknown")
	err = s.run(t, "repair segment --segment 1")
	assert.Equal(t, framework.ExitUsage, framework.ExitCode(err))
	assert.Contains(t, err.Error(), "heron does not do repair segment (a birdwatcher write): heron has the repairs of what check finds", "a repair heron does not have")
}

func TestAlreadyConnectedMessage(t *testing.T) {
	_, ep := seeded(t)
	s := newShell(t)
	require.NoError(t, s.run(t, "connect --etcd "+ep))
	err := s.run(t, "connect --etcd "+ep+" --rootPath other --etcdUserName root --etcdPassword hunter2")
	require.Error(t, err)
	assert.Equal(t, framework.ExitUsage, framework.ExitCode(err))
	assert.Equal(t, "already connected to "+ep+" (root path by-dev): disconnect first", err.Error())
	assert.NotContains(t, err.Error(), "hunter2")
	assert.Equal(t, "Milvus(by-dev) > ", s.sh.State().Prompt(), "still connected to the first")
}

// TestConnectedCommandsListNamespaces: a connected state built with
// ConnectedCommands (as the demo does) has every namespace.
func TestConnectedCommandsListNamespaces(t *testing.T) {
	var paths []string
	for _, c := range NewConnected(instance.New(nil, models.NewLayout("by-dev", "meta"), nil), ConnectedCommands(nil)).Commands() {
		paths = append(paths, c.Path())
	}
	for _, want := range []string{"disconnect", "version", "show checkpoint", "reset checkpoint", "restore"} {
		assert.Contains(t, paths, want)
	}
}

// rawServer answers every connection with reply(first bytes read).
func rawServer(t *testing.T, reply func(req []byte) string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64)
				n, _ := c.Read(buf)
				_, _ = c.Write([]byte(reply(buf[:n])))
			}()
		}
	}()
	return l.Addr().String()
}

func TestConnectHTTPServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	// Python's http.server answers the HTTP/2 preface with a bare HTML page
	// and an HTTP/1.1 request with a status line.
	pythonLike := rawServer(t, func(req []byte) string {
		if bytes.HasPrefix(req, []byte("PRI ")) {
			return "<!DOCTYPE HTML>\n<html><p>Error code: 505</p></html>\n"
		}
		return "HTTP/1.0 200 OK\r\n\r\n"
	})
	ssh := rawServer(t, func([]byte) string { return "SSH-2.0-OpenSSH_9.6\r\n" })
	tests := []struct{ addr, want string }{
		{srv.Listener.Addr().String(), " answered, but not as etcd (HTTP/1.x)"},
		{pythonLike, " answered, but not as etcd (HTTP/1.x)"},
		{ssh, " answered, but not as etcd (not HTTP/2)"},
	}
	for _, tt := range tests {
		s := newShell(t)
		start := time.Now()
		err := s.run(t, "connect --etcd "+tt.addr+" --etcdUserName root --etcdPassword hunter2")
		require.Error(t, err)
		assert.Less(t, time.Since(start), 3*time.Second, "the server answered: no waiting for the timeout")
		assert.Equal(t, framework.ExitFailed, framework.ExitCode(err))
		assert.Equal(t, tt.addr+tt.want, err.Error())
		assert.NotContains(t, s.errOut.String(), "hunter2")
		assert.Equal(t, "Offline > ", s.sh.State().Prompt())
	}
}

func TestConnectEndpointWithoutPort(t *testing.T) {
	for _, ep := range []string{"127.0.0.1", "localhost", "http://127.0.0.1"} {
		s := newShell(t)
		start := time.Now()
		err := s.run(t, "connect --etcd "+ep)
		require.Error(t, err)
		assert.Less(t, time.Since(start), time.Second)
		assert.Equal(t, framework.ExitUsage, framework.ExitCode(err), ep)
		assert.Contains(t, err.Error(), ep+": missing :PORT (etcd's default client port is 2379)")
	}
}

func TestConnectUserWithoutPassword(t *testing.T) {
	t.Setenv("ETCD_PASSWORD", "")
	t.Setenv("HERON_ETCD_PASSWORD", "")
	_, ep := seeded(t)
	s := newShell(t)
	err := s.run(t, "connect --etcd "+ep+" --etcdUserName root")
	require.Error(t, err)
	assert.Equal(t, framework.ExitUsage, framework.ExitCode(err))
	assert.Equal(t, "connect: no password: set $HERON_ETCD_PASSWORD or $ETCD_PASSWORD (or give --etcdPassword)", err.Error())
}

// tlsEtcd starts an embedded etcd that serves clients over TLS only, with a
// throwaway CA; it returns the endpoint and the CA file.
func tlsEtcd(t *testing.T) (endpoint, caFile string) {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "heron-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	require.NoError(t, err)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return p
	}
	caFile = write("ca.pem", "CERTIFICATE", caDER)
	certFile := write("server.pem", "CERTIFICATE", srvDER)
	keyFile := write("server-key.pem", "EC PRIVATE KEY", keyDER)

	cfg := embed.NewConfig()
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.Name = "tls"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client, _ := url.Parse("https://" + refusedAddr(t))
	peer, _ := url.Parse("http://" + refusedAddr(t))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.ClientTLSInfo = transport.TLSInfo{CertFile: certFile, KeyFile: keyFile}
	e, err := embed.StartEtcd(cfg)
	require.NoError(t, err)
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		t.Fatal("TLS etcd not ready")
	}
	return client.Host, caFile
}

func TestConnectPlainTextToTLSEtcd(t *testing.T) {
	ep, ca := tlsEtcd(t)
	s := newShell(t)
	start := time.Now()
	err := s.run(t, "connect --etcd "+ep+" --force")
	require.Error(t, err)
	assert.Less(t, time.Since(start), 3*time.Second, "the server answered: no waiting for the timeout")
	assert.Equal(t, framework.ExitFailed, framework.ExitCode(err))
	assert.Equal(t, ep+": the server expects TLS: add --enableTLS", err.Error())

	require.NoError(t, s.run(t, "connect --etcd "+ep+" --force --enableTLS --rootCAPem "+ca), "the same server with --enableTLS")
	assert.Equal(t, "Milvus(by-dev) > ", s.sh.State().Prompt())
}

func TestConnectTLSToPlainTextEtcd(t *testing.T) {
	_, ep := seeded(t)
	s := newShell(t)
	start := time.Now()
	err := s.run(t, "connect --etcd "+ep+" --enableTLS")
	require.Error(t, err)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.Equal(t, framework.ExitFailed, framework.ExitCode(err))
	assert.Equal(t, ep+": the server does not use TLS: drop --enableTLS", err.Error())
}

// Issue 27 item 7: every command answers --format json: help (of the
// offline and the connected state) prints a JSON document, disconnect
// prints one, and help --format json lists --format among the flags of
// every command of both states.
func TestEveryCommandAnswersFormatJSON(t *testing.T) {
	_, ep := seeded(t)
	s := newShell(t)
	helpJSON := func() []map[string]any {
		t.Helper()
		s.out.Reset()
		require.NoError(t, s.run(t, "help --format json"))
		var doc struct {
			Commands []map[string]any `json:"commands"`
		}
		require.NoError(t, json.Unmarshal(s.out.Bytes(), &doc), "help --format json: %s", s.out.String())
		return doc.Commands
	}
	check := func(cmds []map[string]any) {
		t.Helper()
		for _, c := range cmds {
			name, _ := c["command"].(string)
			if name == "help [command]" || name == "exit" || name == "clear" {
				continue
			}
			s.out.Reset()
			require.NoError(t, s.run(t, "help "+name+" --format json"))
			assert.Regexp(t, `"name": *"--format"`, s.out.String(), "%s has no --format", name)
		}
	}
	offline := helpJSON()
	assert.NotEmpty(t, offline)
	check(offline)
	require.NoError(t, s.run(t, "connect --etcd "+ep))
	connected := helpJSON()
	assert.Greater(t, len(connected), len(offline))
	check(connected)

	s.out.Reset()
	require.NoError(t, s.run(t, "disconnect --format json"))
	var msg map[string]string
	require.NoError(t, json.Unmarshal(s.out.Bytes(), &msg), "disconnect --format json: %s", s.out.String())
	assert.Contains(t, msg["message"], "disconnected from etcd "+ep)
}
