package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/configs"
)

// demoRows names, for each show command, the JSON array of its rows that
// the demo must fill, and the flags it needs. A show command missing here
// fails TestDemoFillsEveryShowCommand: give the demo sample what it lists.
var demoRows = map[string]struct{ flags, rows string }{
	"broadcast-task":   {"", "tasks"},
	"channel-watch":    {"", "watches"},
	"checkpoint":       {"", "pchannels"},
	"collections":      {"", "collections"},
	"config-etcd":      {"", "keys"},
	"database":         {"", "databases"},
	"etcd-kv":          {"--prefix /", "keys"},
	"index":            {"", "indexes"},
	"partition":        {"", "partitions"},
	"replica":          {"", "replicas"},
	"segment":          {"", "segments"},
	"session":          {"", "sessions"},
	"vchannel-health":  {"", "vchannels"},
	"wal-distribution": {"", "pchannels"},
	"replicate":        {"", "consume_checkpoints"},
}

var showCommandRE = regexp.MustCompile(`(?m)^  show ([a-z-]+) `)

// Issue 16 item 11: every show command has rows in `heron demo`, so that a
// newcomer sees what each one lists.
func TestDemoFillsEveryShowCommand(t *testing.T) {
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	sh, cleanup, err := start(ctx, "", commonpb.WALName_Pulsar, configs.DefaultRootPath, &stdout, &stderr)
	require.NoError(t, err)
	defer cleanup()
	run := func(line string) string {
		t.Helper()
		stdout.Reset()
		stderr.Reset()
		require.Equal(t, 0, sh.RunScript(ctx, strings.NewReader(line+"\n")), "%s: %s", line, stderr.String())
		return stdout.String()
	}

	names := showCommandRE.FindAllStringSubmatch(run("help"), -1)
	require.NotEmpty(t, names, "help lists the show commands")
	for _, m := range names {
		name := m[1]
		want, ok := demoRows[name]
		if !assert.True(t, ok, "show %s: not in demoRows (what must the demo fill?)", name) {
			continue
		}
		var doc map[string]json.RawMessage
		out := run("show " + name + " " + want.flags + " --format json")
		require.NoError(t, json.Unmarshal([]byte(out), &doc), "show %s: %s", name, out)
		var rows []json.RawMessage
		require.NoError(t, json.Unmarshal(doc[want.rows], &rows), "show %s: %q is not an array: %s", name, want.rows, out)
		assert.NotEmpty(t, rows, "show %s: no %s in the demo", name, want.rows)
	}

	// The stopped components' sessions hold no lease.
	var sessions struct {
		Sessions []struct{ Alive bool } `json:"sessions"`
		Alive    int                    `json:"alive"`
	}
	require.NoError(t, json.Unmarshal([]byte(run("show session --format json")), &sessions))
	assert.Zero(t, sessions.Alive)
	// Woodpecker's logs of the pchannels, with their segments, where
	// woodpecker v0.1.30+ keeps them (the demo runs on pulsar).
	var wp struct {
		Keys []struct{ Key string } `json:"keys"`
	}
	require.NoError(t, json.Unmarshal([]byte(run("show etcd-kv --prefix woodpecker/logs/ --format json")), &wp))
	var keys []string
	for _, k := range wp.Keys {
		keys = append(keys, k.Key)
	}
	assert.Contains(t, keys, "woodpecker/logs/by-dev-rootcoord-dml_1")
	assert.Contains(t, keys, "woodpecker/logs/by-dev-rootcoord-dml_0/segments/3")

	// Issue 38: show replicate has a replicate configuration to show (the
	// clusters dml_2's replicate_config and replicate_checkpoint name),
	// decoded from real protobuf bytes; the token is never shown.
	var rep struct {
		Configuration *struct {
			Clusters []struct {
				ID        string   `json:"cluster_id"`
				URI       string   `json:"uri"`
				Token     bool     `json:"token_set"`
				PChannels []string `json:"pchannels"`
			} `json:"clusters"`
			Topology []struct {
				Source string `json:"source_cluster_id"`
				Target string `json:"target_cluster_id"`
			} `json:"cross_cluster_topology"`
		} `json:"replicate_configuration"`
		Error string `json:"replicate_configuration_error"`
	}
	out := run("show replicate --format json")
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.NotNil(t, rep.Configuration, "a replicate configuration: %s", out)
	require.Empty(t, rep.Error)
	require.Len(t, rep.Configuration.Clusters, 2, out)
	primary, standby := rep.Configuration.Clusters[0], rep.Configuration.Clusters[1]
	assert.Equal(t, "by-dev-primary", primary.ID)
	assert.Equal(t, []string{"primary-rootcoord-dml_0", "primary-rootcoord-dml_1", "primary-rootcoord-dml_2"}, primary.PChannels)
	assert.True(t, primary.Token, "the primary's token is set, and not shown")
	assert.Equal(t, "by-dev-standby", standby.ID)
	assert.Equal(t, []string{"by-dev-rootcoord-dml_0", "by-dev-rootcoord-dml_1", "by-dev-rootcoord-dml_2"}, standby.PChannels)
	require.Len(t, rep.Configuration.Topology, 1)
	assert.Equal(t, "by-dev-primary", rep.Configuration.Topology[0].Source)
	assert.Equal(t, "by-dev-standby", rep.Configuration.Topology[0].Target)
	table := run("show replicate")
	assert.Contains(t, table, "  by-dev-primary replicates to by-dev-standby\n")
	assert.NotContains(t, table+out, "demo-token", "the token is never shown")
}
