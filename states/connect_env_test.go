package states

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connectEnv are the connection variables; each test starts with none set.
var connectEnv = []string{"HERON_ETCD", "HERON_ROOT_PATH", "HERON_META_PATH", "HERON_ETCD_TLS", "HERON_ETCD_CA",
	"HERON_ETCD_CERT", "HERON_ETCD_KEY", "HERON_ETCD_USER", "HERON_ETCD_PASSWORD", "ETCD_PASSWORD"}

func clearConnectEnv(t *testing.T) {
	for _, k := range connectEnv {
		t.Setenv(k, "")
	}
}

// connectedTo runs line and returns the endpoints and root path connect reports.
func connectedTo(t *testing.T, line string) (endpoints []string, root, meta string) {
	t.Helper()
	s := newShell(t)
	require.NoError(t, s.run(t, line+" --format json"), s.errOut.String())
	var r struct {
		Endpoints []string `json:"endpoints"`
		RootPath  string   `json:"root_path"`
		MetaPath  string   `json:"meta_path"`
	}
	require.NoError(t, json.Unmarshal(s.out.Bytes(), &r), s.out.String())
	return r.Endpoints, r.RootPath, r.MetaPath
}

// Issue 16 item 14: a Job passes the connection in the environment; a flag
// given wins over its variable.
func TestConnectFromEnvironment(t *testing.T) {
	clearConnectEnv(t)
	cli, ep := seeded(t)
	put(t, cli, "by-dev-2/milvus/session/id", "x")
	t.Setenv("HERON_ETCD", ep)
	t.Setenv("HERON_ROOT_PATH", "by-dev-2")
	t.Setenv("HERON_META_PATH", "milvus")

	eps, root, meta := connectedTo(t, "connect")
	assert.Equal(t, []string{ep}, eps)
	assert.Equal(t, "by-dev-2", root)
	assert.Equal(t, "milvus", meta)

	_, root, meta = connectedTo(t, "connect --rootPath by-dev --metaPath meta")
	assert.Equal(t, "by-dev", root, "the flag wins")
	assert.Equal(t, "meta", meta)

	t.Setenv("HERON_ETCD", "127.0.0.1")
	s := newShell(t)
	err := s.run(t, "connect")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing :PORT", "a bad address from the environment is refused like a flag's")
}

func TestConnectPasswordFromEnvironment(t *testing.T) {
	clearConnectEnv(t)
	cli, ep := seeded(t)
	enableRootAuth(t, cli)
	t.Setenv("HERON_ETCD", ep)
	t.Setenv("HERON_ETCD_USER", "root")

	t.Run("HERON_ETCD_PASSWORD", func(t *testing.T) {
		t.Setenv("HERON_ETCD_PASSWORD", "s3cret-pw")
		t.Setenv("ETCD_PASSWORD", "wrong-pw")
		eps, _, _ := connectedTo(t, "connect")
		assert.Equal(t, []string{ep}, eps, "HERON_ETCD_PASSWORD wins over ETCD_PASSWORD")
	})
	t.Run("ETCD_PASSWORD", func(t *testing.T) {
		t.Setenv("ETCD_PASSWORD", "s3cret-pw")
		connectedTo(t, "connect")
	})
	t.Run("no user: refused", func(t *testing.T) {
		t.Setenv("HERON_ETCD_PASSWORD", "s3cret-pw")
		t.Setenv("HERON_ETCD_USER", "")
		s := newShell(t)
		err := s.run(t, "connect")
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "s3cret-pw")
	})
	t.Run("wrong password: not repeated", func(t *testing.T) {
		t.Setenv("HERON_ETCD_PASSWORD", "wrong-pw")
		s := newShell(t)
		err := s.run(t, "connect")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `user "root"`)
		assert.NotContains(t, err.Error()+s.errOut.String()+s.out.String(), "wrong-pw")
	})
}

func TestConnectTLSFromEnvironment(t *testing.T) {
	clearConnectEnv(t)
	ep, ca := tlsEtcd(t)
	t.Setenv("HERON_ETCD", ep)
	t.Setenv("HERON_ETCD_CA", ca)

	s := newShell(t)
	err := s.run(t, "connect --force")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--rootCAPem needs --enableTLS")

	t.Setenv("HERON_ETCD_TLS", "true")
	eps, _, _ := connectedTo(t, "connect --force")
	assert.Equal(t, []string{ep}, eps)
}
