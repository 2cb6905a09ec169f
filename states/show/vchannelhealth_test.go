package show

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

func channelState(now time.Time) *ChannelState {
	ts := func(ago time.Duration) uint64 { return uint64(now.Add(-ago).UnixMilli()) << 18 }
	return &ChannelState{
		Live:       map[string]int64{"p_1v0": 1, "p_1v1": 1, "p_1v2": 1},
		Registered: map[string]bool{models.VChannelMetaKey("p", "p_1v0"): true, models.VChannelMetaKey("p", "p_1v1"): true},
		Config:     map[string]string{},
		Sessions:   map[int64]instance.KV{},
		ChannelCPs: []ChannelCPEntry{
			{Key: models.ChannelCPKey("p_1v0"), VChannel: "p_1v0", Position: &ChannelPosition{Timestamp: ts(time.Minute), WAL: "kafka"}},
			{Key: models.ChannelCPKey("p_1v1"), VChannel: "p_1v1", Position: &ChannelPosition{Timestamp: ts(20 * time.Minute), WAL: "kafka"}},
			{Key: models.ChannelCPKey("p_9v0"), VChannel: "p_9v0", Position: &ChannelPosition{Timestamp: ^uint64(0), Dropped: true}},
			{Key: models.ChannelCPKey("p_8v0"), VChannel: "p_8v0", Position: &ChannelPosition{Timestamp: ts(100 * time.Hour)}},
		},
	}
}

// Lag is against wall clock under datacoord's 900 s default: the dropped
// marker (timestamp MaxUint64) is flagged DROPPED and changes no other
// row's lag (birdwatcher #527 took it as the newest checkpoint); a
// checkpoint without a live collection is not judged, as datacoord skips it.
func TestVChannelHealthAgainstWallClock(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	r := VChannelHealth(channelState(now), now, 0, io.Discard)
	assert.Equal(t, 900.0, r.MaxLagSeconds)
	assert.Equal(t, "default", r.MaxLagFrom)
	byName := map[string]VChannelHealthRow{}
	for _, v := range r.VChannels {
		byName[v.VChannel] = v
	}
	assert.Equal(t, int64(60), byName["p_1v0"].LagSeconds)
	assert.Empty(t, byName["p_1v0"].Flags)
	assert.Equal(t, []string{FlagOverMaxLag}, byName["p_1v1"].Flags)
	assert.Equal(t, []string{FlagDropped}, byName["p_9v0"].Flags)
	assert.Equal(t, []string{FlagNoCollection}, byName["p_8v0"].Flags)
	assert.Equal(t, []string{FlagNoChannelCP, FlagNotRegistered}, byName["p_1v2"].Flags)
	assert.Equal(t, 1, r.OverMaxLag)
	assert.Equal(t, 1, r.Dropped)

	// The instance's own rule, from its etcd config source.
	st := channelState(now)
	st.Config["config/dataCoord.compaction.channelMaxCPLag"] = "3600"
	r = VChannelHealth(st, now, 0, io.Discard)
	assert.Equal(t, 0, r.OverMaxLag)
	assert.Equal(t, "config/dataCoord.compaction.channelMaxCPLag", r.MaxLagFrom)
	r = VChannelHealth(st, now, 30*time.Second, io.Discard)
	assert.Equal(t, 2, r.OverMaxLag, "--max-lag wins")
}
