package woodpecker

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedRekeyed seeds a real-client fixture with its prefix from moved to
// to: what woodpecker writes with woodpecker.meta.prefix set to another
// value (its keys are P/..., their values do not name P).
func (f *fixture) seedRekeyed(name, from, to string) {
	f.t.Helper()
	raw, err := os.ReadFile("testdata/" + name + ".json")
	require.NoError(f.t, err)
	var fx wpFixture
	require.NoError(f.t, json.Unmarshal(raw, &fx))
	for _, kv := range fx.Etcd {
		v, err := base64.StdEncoding.DecodeString(kv.ValueBase64)
		require.NoError(f.t, err)
		key, ok := strings.CutPrefix(kv.Key, from+"/")
		require.True(f.t, ok, kv.Key)
		f.put(to+"/"+key, v)
	}
}

var fixturePChannels = map[string]bool{
	"by-dev-rootcoord-dml_0": true, "by-dev-rootcoord-dml_1": true, "by-dev-rootcoord-dml_2": true,
	"by-dev-rootcoord-dml_3": true, "by-dev-rootcoord-dml_10": true,
}

// Issue 28 §3: a woodpecker.meta.prefix set only in milvus.yaml is not
// visible to heron; the logs it holds are found by their LogMeta under
// {root}/X/logs/{pchannel}, and read like those of any other prefix.
func TestFindsPrefixSetOnlyInMilvusYAML(t *testing.T) {
	f := newFixture(t, "by-dev")
	f.seedRekeyed("wp_milvus30", "by-dev/woodpecker", "by-dev/wpcustom")
	// Values at keys of the same shape that are not LogMeta: not a prefix.
	f.put("by-dev/meta/logs/by-dev-rootcoord-dml_0", []byte("not a LogMeta"))
	f.put("by-dev/kv/logs/by-dev-rootcoord-dml_1", []byte{})
	inv := f.find(Options{PChannels: fixturePChannels})
	assert.Equal(t, "by-dev/woodpecker", inv.Effective.Prefix, "the effective prefix stays what heron can tell")
	var found []string
	for _, p := range inv.Prefixes {
		if len(p.Roles) == 1 && p.Roles[0] == RoleFound {
			found = append(found, p.Prefix)
		}
	}
	assert.Equal(t, []string{"by-dev/wpcustom"}, found)
	checkFixtureLogs(t, inv, "by-dev/wpcustom")
	assert.Len(t, inv.InstanceLogs(nil), 5)
	assert.Contains(t, inv.Effective.Note, "exist under by-dev/wpcustom/, a prefix heron was not told of")
	assert.Contains(t, inv.Effective.Note, "milvus.yaml")

	// Told of it, heron reads it as the configured prefix, once.
	inv = f.find(Options{PChannels: fixturePChannels, MetaPrefix: "wpcustom"})
	n := 0
	for _, p := range inv.Prefixes {
		if p.Prefix == "by-dev/wpcustom" {
			n++
			assert.Equal(t, []string{RoleConfigured}, p.Roles)
		}
	}
	assert.Equal(t, 1, n)
}

// Issue 28 §3: top-level X/logs/{pchannel} (a prefix without the root
// path) is found too; another instance's logs there are not this one's.
func TestFindsTopLevelPrefix(t *testing.T) {
	f := newFixture(t, "by-dev")
	f.seedRekeyed("wp_milvus30", "by-dev/woodpecker", "wp-top")
	inv := f.find(Options{PChannels: fixturePChannels})
	checkFixtureLogs(t, inv, "wp-top")

	other := newFixture(t, "other")
	other.seedRekeyed("wp_milvus30", "by-dev/woodpecker", "wp-top")
	inv = other.find(Options{PChannels: map[string]bool{"other-rootcoord-dml_0": true}})
	assert.Empty(t, inv.InstanceLogs(nil), "no LogMeta of other's pchannels: the prefix is not looked at")
	for _, p := range inv.Prefixes {
		assert.NotEqual(t, "wp-top", p.Prefix)
	}
}

func TestFoundPrefixBounded(t *testing.T) {
	f := newFixture(t, "by-dev")
	f.seedRekeyed("wp_milvus30", "by-dev/woodpecker", "by-dev/wpcustom")
	// Keys-only listing: a segment costs one request whatever it holds.
	segs, complete, err := f.inst.Segments(context.Background(), "by-dev/", 0, 1)
	require.NoError(t, err)
	assert.False(t, complete)
	assert.Len(t, segs, 1)
	segs, complete, err = f.inst.Segments(context.Background(), "by-dev/", 0, 100)
	require.NoError(t, err)
	assert.True(t, complete)
	assert.Equal(t, []string{"meta", "wpcustom"}, segs)
}
