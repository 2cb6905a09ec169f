package targetcheck_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/states/targetcheck"
)

// pulsarAdmin answers internalStats like Pulsar's admin API: topics maps a
// topic path to its numberOfEntries; others get 404.
func pulsarAdmin(t *testing.T, token string, topics map[string]int64) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"reason":"Authentication required"}`))
			return
		}
		path, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/admin/v2/persistent/"), "/internalStats")
		n, found := topics[path]
		if !ok || !found || r.Method != http.MethodGet {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"reason":"Topic not found"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"entriesAddedCounter":7,"numberOfEntries":` + strconv.FormatInt(n, 10) + `,"totalSize":120,"currentLedgerEntries":0,"ledgers":[{"ledgerId":12,"entries":3}],"cursors":{}}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func TestPulsarStates(t *testing.T) {
	s := pulsarAdmin(t, "", map[string]int64{"public/default/" + dml0: 0, "public/default/" + dml1: 3, "tn/ns/" + dml0: 5})
	got, err := targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: s.URL, Tenant: "public", Namespace: "default"}, []string{dml0, dml1, dml2})
	require.NoError(t, err)
	m := byPChannel(got)
	assert.Equal(t, targetcheck.Empty, m[dml0].State)
	assert.Equal(t, targetcheck.NotEmpty, m[dml1].State)
	assert.Equal(t, int64(3), *m[dml1].Entries)
	assert.Equal(t, "persistent://public/default/"+dml1, m[dml1].Topic)
	assert.Equal(t, targetcheck.Absent, m[dml2].State)

	got, err = targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: s.URL, Tenant: "tn", Namespace: "ns"}, []string{dml0})
	require.NoError(t, err)
	assert.Equal(t, targetcheck.NotEmpty, got[0].State, "tenant and namespace name the topic")
}

func TestPulsarToken(t *testing.T) {
	s := pulsarAdmin(t, "tok-123", map[string]int64{"public/default/" + dml0: 0})
	_, err := targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: s.URL, Tenant: "public", Namespace: "default"}, []string{dml0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "401")
	assert.Contains(t, err.Error(), "--pulsar-token-file")

	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte("tok-123\n"), 0o600))
	f := targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarAdmin: s.URL + "/", PulsarTokenFile: file}}
	require.NoError(t, f.Validate("reset checkpoint", "pulsar"))
	c, err := f.PulsarConfig("public", "default")
	require.NoError(t, err)
	got, err := targetcheck.CheckPulsar(context.Background(), c, []string{dml0})
	require.NoError(t, err)
	assert.Equal(t, targetcheck.Empty, got[0].State)

	require.NoError(t, os.WriteFile(file, []byte("wrong"), 0o600))
	c, err = f.PulsarConfig("public", "default")
	require.NoError(t, err)
	_, err = targetcheck.CheckPulsar(context.Background(), c, []string{dml0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refused")
	assert.NotContains(t, err.Error(), "wrong")
}

func TestPulsarErrors(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"500 Internal Server Error": func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "broker down", http.StatusInternalServerError)
		},
		"not internalStats JSON": func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>proxy</html>")) },
		"no numberOfEntries":     func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"totalSize":1}`)) },
	} {
		// The partitioned-topic metadata says "not partitioned"; the
		// internalStats answer is the one at fault.
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/partitions") {
				_, _ = w.Write([]byte(`{"partitions":0,"deleted":false}`))
				return
			}
			h(w, r)
		}))
		_, err := targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: s.URL, Tenant: "public", Namespace: "default"}, []string{dml0})
		s.Close()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), name)
	}
	for name, body := range map[string]string{
		"not partitioned-topic metadata JSON": "<html>proxy</html>",
		"no partition count":                  `{"deleted":false}`,
	} {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
		_, err := targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: s.URL, Tenant: "public", Namespace: "default"}, []string{dml0})
		s.Close()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), name)
		assert.Contains(t, err.Error(), "/partitions")
	}
}

func TestPulsarSlowAndUnreachable(t *testing.T) {
	release := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer s.Close()
	defer close(release)
	_, err := targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: s.URL, Tenant: "public", Namespace: "default", Timeout: 300 * time.Millisecond}, []string{dml0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not answer within 300ms")

	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL
	gone.Close()
	_, err = targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: url, Tenant: "public", Namespace: "default", Timeout: time.Second}, []string{dml0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is unreachable")
}
