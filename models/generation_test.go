package models_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/heron-shell/heron/models"
)

func TestGenerationOf(t *testing.T) {
	assert.Equal(t, models.GenerationPreStreaming, models.GenerationOf(map[string]int64{models.ChannelWatchPrefix: 2}))
	assert.Equal(t, models.GenerationPreStreaming, models.GenerationOf(map[string]int64{models.ChannelCPPrefix: 1, models.SegmentPrefix: 3}))
	assert.Equal(t, models.GenerationStreaming, models.GenerationOf(map[string]int64{"streamingcoord-meta/": 1, models.ChannelCPPrefix: 1}),
		"a 2.6 instance keeps datacoord positions too")
	assert.Equal(t, models.GenerationStreaming, models.GenerationOf(map[string]int64{"streamingnode-meta/": 1}))
	assert.Equal(t, models.GenerationEmpty, models.GenerationOf(map[string]int64{"root-coord/": 5}))
	assert.Equal(t, "channelwatch/ (2 keys)", models.DescribeCounts(models.DatacoordMarkers, map[string]int64{models.ChannelWatchPrefix: 2}))
}

func TestPulsarConfigKeys(t *testing.T) {
	for _, k := range []string{"config/pulsar.tenant", "config/pulsar/tenant", "config/PULSAR_TENANT", "config/pulsartenant"} {
		assert.True(t, models.IsConfigKeyFor(k, models.PulsarTenantFormatted), k)
		assert.False(t, models.IsConfigKeyFor(k, models.PulsarNamespaceFormatted), k)
	}
	assert.True(t, models.IsConfigKeyFor("config/pulsar.namespace", models.PulsarNamespaceFormatted))
	assert.False(t, models.IsConfigKeyFor("config/pulsar.tenants", models.PulsarTenantFormatted))
	assert.Equal(t, "config/pulsar_tenant", models.EffectiveConfigKey([]string{"config/pulsar.tenant", "config/pulsar_tenant", "config/mqtype"}, models.PulsarTenantFormatted))
}
