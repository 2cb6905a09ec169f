package show

import (
	"bytes"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// Each pchannel with its node, whether that node's session holds a lease,
// its consume checkpoint's WAL and an online switch's stage.
func TestWALDistribution(t *testing.T) {
	st := &ChannelState{
		PChannels: []PChannelEntry{
			{Key: models.PChannelPrefix + "p0", Meta: &models.PChannelMeta{Name: "p0", Term: 5, State: models.PChannelAssigned, Node: &models.StreamingNode{ServerID: 7},
				Histories: []models.PChannelAssignment{{Term: 3, Node: &models.StreamingNode{ServerID: 1}}, {Term: 4}}}},
			{Key: models.PChannelPrefix + "p1", Meta: &models.PChannelMeta{Name: "p1", Term: 2, State: models.PChannelAssigned, Node: &models.StreamingNode{ServerID: 8}}},
			{Key: models.PChannelPrefix + "p2", Meta: &models.PChannelMeta{Name: "p2", State: models.PChannelUninitialized}},
		},
		Sessions: map[int64]instance.KV{7: {Lease: 0x694d}, 8: {}},
		ConsumeCPs: map[string]ConsumeCP{"p0": {Key: models.ConsumeCheckpointKey("p0"), CP: &models.WALCheckpoint{HasMessageID: true, WAL: commonpb.WALName_Kafka,
			AlterWAL: &models.AlterWALState{Stage: models.AlterWALStageFlushing}}}},
	}
	r := WALDistribution(st)
	require.Len(t, r.PChannels, 3)
	p0, p1, p2 := r.PChannels[0], r.PChannels[1], r.PChannels[2]
	assert.True(t, p0.Alive)
	assert.Equal(t, "000000000000694d", p0.Lease)
	assert.Equal(t, "kafka", p0.WAL)
	assert.Equal(t, "FLUSHING", p0.AlterStage)
	assert.Equal(t, "t3:n1 t4:n-", HistoryText(p0.History))
	assert.False(t, p1.Alive, "a session without a lease is not alive")
	assert.Equal(t, "session/streamingnode-8", p1.Session)
	assert.Equal(t, "UNINITIALIZED", p2.State)
	assert.Empty(t, p2.Session)
	assert.Equal(t, 2, r.Assigned)
	assert.Equal(t, 1, r.Alive)
	var b bytes.Buffer
	require.NoError(t, r.Table(&b))
	assert.Contains(t, b.String(), "kafka (FLUSHING)")
	assert.Contains(t, b.String(), "3 pchannel(s), 2 assigned, 1 on a live streaming node")
}
