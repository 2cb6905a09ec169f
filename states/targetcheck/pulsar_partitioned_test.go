package targetcheck_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/states/targetcheck"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

// recordedAdmin answers each path with a recorded body; other paths 404 as
// Pulsar does ({"reason":"Topic not found"}).
func recordedAdmin(t *testing.T, token string, bodies map[string][]byte) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"reason":"HTTP 401 Unauthorized"}`))
			return
		}
		b, ok := bodies[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"reason":"Topic not found"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

const base = "/admin/v2/persistent/public/default/"

// Issue 28 §2: a partitioned topic's base name has no internalStats (404):
// heron asks the partitioned-topic metadata first and sums every partition,
// so data in -partition-1 is not called absent.
func TestPulsarPartitionedTopic(t *testing.T) {
	s := recordedAdmin(t, "", map[string][]byte{
		base + dml0 + "/partitions":                fixture(t, "pulsar_partitions_3.json"),
		base + dml0 + "-partition-0/internalStats": fixture(t, "pulsar_internalstats_empty.json"),
		base + dml0 + "-partition-1/internalStats": fixture(t, "pulsar_internalstats_3_entries.json"),
		base + dml1 + "/partitions":                fixture(t, "pulsar_partitions_3.json"),
		base + dml1 + "-partition-2/internalStats": fixture(t, "pulsar_internalstats_empty.json"),
		base + dml2 + "/partitions":                fixture(t, "pulsar_partitions_0.json"),
		base + dml2 + "/internalStats":             fixture(t, "pulsar_internalstats_3_entries.json"),
	})
	got, err := targetcheck.CheckPulsar(context.Background(), targetcheck.PulsarConfig{Admin: s.URL, Tenant: "public", Namespace: "default"}, []string{dml0, dml1, dml2})
	require.NoError(t, err)
	m := byPChannel(got)
	assert.Equal(t, targetcheck.NotEmpty, m[dml0].State, "partition 1 holds 3 entries")
	assert.Equal(t, int64(3), *m[dml0].Entries)
	assert.Equal(t, int32(3), m[dml0].Partitions)
	assert.False(t, m[dml0].Fresh())
	assert.Contains(t, m[dml0].Describe(), "partitioned: 3 entries in 3 partitions")
	assert.Equal(t, targetcheck.Empty, m[dml1].State, "partitions not created yet hold nothing")
	assert.Equal(t, targetcheck.NotEmpty, m[dml2].State, "a non-partitioned topic is read by its base name")
	assert.Zero(t, m[dml2].Partitions)
}

// Issue 28 §2: a broker that does not own the topic answers 307 to its
// owner. heron follows it with the bearer token kept, even to another host
// (Go's client drops Authorization there), and only within the admin URL's
// scheme.
func TestPulsarRedirectKeepsToken(t *testing.T) {
	owner := recordedAdmin(t, "tok-9", map[string][]byte{
		base + dml0 + "/partitions":    fixture(t, "pulsar_partitions_0.json"),
		base + dml0 + "/internalStats": fixture(t, "pulsar_internalstats_3_entries.json"),
	})
	// Another host name for the owner: Go keeps Authorization for the same
	// host, so the test would pass without heron's handling.
	ownerURL := strings.Replace(owner.URL, "127.0.0.1", "localhost", 1)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-9" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, ownerURL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	c := targetcheck.PulsarConfig{Admin: redirecting.URL, Tenant: "public", Namespace: "default", Token: "tok-9"}
	got, err := targetcheck.CheckPulsar(context.Background(), c, []string{dml0})
	require.NoError(t, err)
	assert.Equal(t, targetcheck.NotEmpty, got[0].State)

	toHTTPS := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://"+strings.TrimPrefix(ownerURL, "http://")+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer toHTTPS.Close()
	c.Admin = toHTTPS.URL
	_, err = targetcheck.CheckPulsar(context.Background(), c, []string{dml0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirected to https://localhost")
	assert.Contains(t, err.Error(), "not http like --pulsar-admin")
	assert.NotContains(t, err.Error(), "tok-9")
}
