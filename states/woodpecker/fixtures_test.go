package woodpecker

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Real-client fixtures: every etcd key woodpecker v0.1.37 wrote with
// Milvus's settings (copied from branch resetwal's
// states/resetwal/testdata, produced by tests/wpfixtures there; the
// README of that module describes the scenarios).
type wpFixture struct {
	Etcd []struct {
		Key         string `json:"key"`
		ValueBase64 string `json:"value_base64"`
	} `json:"etcd"`
}

func (f *fixture) seedFixture(name string) {
	f.t.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".json")
	require.NoError(f.t, err)
	var fx wpFixture
	require.NoError(f.t, json.Unmarshal(raw, &fx))
	for _, kv := range fx.Etcd {
		v, err := base64.StdEncoding.DecodeString(kv.ValueBase64)
		require.NoError(f.t, err)
		f.put(kv.Key, v)
	}
}

func checkFixtureLogs(t *testing.T, inv *Inventory, p string) {
	t.Helper()
	l0 := logNamed(t, inv, p, "by-dev-rootcoord-dml_0")
	assert.Equal(t, []int64{1, 1, 0, 0, -1, -1}, []int64{l0.ID, l0.Segments, l0.FirstSegment, l0.LastSegment, l0.TruncatedSegment, l0.TruncatedEntry})
	assert.True(t, l0.Locked)
	assert.Equal(t, int64(4), l0.Keys, "LogMeta, lock, segment, reader")
	assert.Zero(t, l0.Undecodable)

	l1 := logNamed(t, inv, p, "by-dev-rootcoord-dml_1")
	assert.Equal(t, []int64{2, 1, 0, 3}, []int64{l1.ID, l1.Segments, l1.TruncatedSegment, l1.TruncatedEntry}, "truncated at its last entry")

	l2 := logNamed(t, inv, p, "by-dev-rootcoord-dml_2")
	assert.Equal(t, []int64{3, 0, 0, 1}, []int64{l2.ID, l2.Segments, l2.TruncatedSegment, l2.TruncatedEntry}, "truncated, no segments: not fresh")
	assert.Equal(t, int64(2), l2.Keys)

	l10 := logNamed(t, inv, p, "by-dev-rootcoord-dml_10")
	assert.Equal(t, []int64{4, 1}, []int64{l10.ID, l10.Segments})
	assert.Empty(t, l10.ParkedIDs, "dml_1's and dml_10's keys stay apart")

	l3 := logNamed(t, inv, p, "by-dev-rootcoord-dml_3")
	assert.False(t, l3.HasMeta, "DeleteLog parked its LogMeta")
	assert.Equal(t, []int64{5}, l3.ParkedIDs)
	assert.Equal(t, int64(3), l3.Keys, "the writer's lock, the parked LogMeta and its parked segment")
	for _, l := range inv.Logs {
		assert.Zero(t, l.Undecodable, l.Name)
	}
}

func TestRealClientMilvus30(t *testing.T) {
	f := newFixture(t, "by-dev")
	f.seedFixture("wp_milvus30")
	inv := f.find(Options{PChannels: map[string]bool{
		"by-dev-rootcoord-dml_0": true, "by-dev-rootcoord-dml_1": true, "by-dev-rootcoord-dml_2": true,
		"by-dev-rootcoord-dml_3": true, "by-dev-rootcoord-dml_10": true,
	}})
	assert.Equal(t, "by-dev/woodpecker", inv.Effective.Prefix)
	assert.Equal(t, ReasonDefault, inv.Effective.Reason)
	checkFixtureLogs(t, inv, "by-dev/woodpecker")
	assert.Len(t, inv.InstanceLogs(nil), 5)
}

func TestRealClientLegacyShared(t *testing.T) {
	f := newFixture(t, "by-dev")
	f.seedFixture("wp_legacy")
	inv := f.find(Options{PChannels: map[string]bool{
		"by-dev-rootcoord-dml_0": true, "by-dev-rootcoord-dml_1": true, "by-dev-rootcoord-dml_2": true,
		"by-dev-rootcoord-dml_3": true, "by-dev-rootcoord-dml_10": true,
	}})
	assert.Equal(t, "woodpecker", inv.Effective.Prefix)
	assert.Equal(t, ReasonLegacy, inv.Effective.Reason)
	checkFixtureLogs(t, inv, "woodpecker")
	assert.Len(t, inv.InstanceLogs(nil), 5, "the other instance's logs are not this one's")
	assert.False(t, logNamed(t, inv, "woodpecker", "other-rootcoord-dml_0").PChannel)
}
