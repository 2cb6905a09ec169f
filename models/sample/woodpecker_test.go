package sample

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
)

// The hex below is what woodpecker v0.1.37's own generated types
// (github.com/zilliztech/woodpecker/proto, proto/meta.proto) marshal for the
// same values with google.golang.org/protobuf's proto.Marshal: the demo's
// woodpecker metadata is woodpecker's bytes, not a look-alike.
func TestWoodpeckerValuesAreWoodpeckersBytes(t *testing.T) {
	for _, c := range []struct {
		name, want string
		got        []byte
	}{
		{"LogMeta truncated at 1:41", "0801103c188080808001208080804028d8043180db0b6b000000003990e90b6b0000000040014829",
			WoodpeckerLog{ID: 1, Created: 1795939200, Modified: 1795942800, TruncatedSegment: 1, TruncatedEntry: 41}.Encode()},
		{"LogMeta never truncated (-1, -1)", "0803103c188080808001208080804028d8043180db0b6b000000003980db0b6b0000000040ffffffffffffffffff0148ffffffffffffffffff01",
			WoodpeckerLog{ID: 3, Created: 1795939200, Modified: 1795939200, TruncatedSegment: -1, TruncatedEntry: -1}.Encode()},
		{"SegmentMetadata sealed", "08031080b383daa234200328c0a1f1daa234301138806040a0f6f4daa2344a1908021001180120012a0f31302e302e302e31363a3138303830",
			WoodpeckerSegment{No: 3, State: WoodpeckerSealed, Created: 1796022000000, Completed: 1796023800000, Sealed: 1796023860000, LastEntry: 17, Size: 12288, Quorum: 2, Node: "10.0.0.16:18080"}.Encode()},
		{"SegmentMetadata 0, active (zero fields left out)", "10c0c0badba23430053880104a1908031001180120012a0f31302e302e302e31363a3138303830",
			WoodpeckerSegment{No: 0, State: WoodpeckerActive, Created: 1796025000000, LastEntry: 5, Size: 2048, Quorum: 3, Node: "10.0.0.16:18080"}.Encode()},
	} {
		assert.Equal(t, c.want, hex.EncodeToString(c.got), c.name)
	}
}

// The demo seeds woodpecker logs under {root}/woodpecker/logs/{pchannel}
// (woodpecker v0.1.30+ with the default woodpecker.meta.prefix,
// shared/milvus-metadata.md section 7) on pulsar and kafka instances only.
func TestDemoWoodpeckerLogs(t *testing.T) {
	layout := models.NewLayout("by-dev", "meta")
	in := Demo(layout, commonpb.WALName_Pulsar)
	var logs, segments []string
	for _, k := range in.Keys() {
		rest, ok := strings.CutPrefix(k, "by-dev/woodpecker/logs/")
		if !ok {
			continue
		}
		if strings.Contains(rest, "/segments/") {
			segments = append(segments, rest)
		} else {
			logs = append(logs, rest)
		}
	}
	assert.Equal(t, in.PChannels, logs)
	assert.Equal(t, []string{in.PChannels[0] + "/segments/2", in.PChannels[0] + "/segments/3", in.PChannels[2] + "/segments/0"}, segments)
	assert.Equal(t, "3", string(in.KVs["by-dev/woodpecker/logidgen"]))

	for _, wal := range []commonpb.WALName{commonpb.WALName_WoodPecker, commonpb.WALName_RocksMQ} {
		for _, k := range Demo(layout, wal).Keys() {
			require.NotContains(t, k, "woodpecker/", "%s: no woodpecker leftovers on an instance that runs on it or on rocksmq", wal)
		}
	}
	// Demo adds keys to Build and changes none of Build's.
	base := Build(layout, commonpb.WALName_Pulsar)
	for k, v := range base.KVs {
		assert.Equal(t, v, in.KVs[k], k)
	}
	assert.Greater(t, len(in.KVs), len(base.KVs))
}
