package models_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/wire"
)

// The rule of pkg/v2 v2.6.23 config/config.go formatKey.
func TestFormatConfigKey(t *testing.T) {
	for key, want := range map[string]string{
		"mqtype": "mqtype", "mq.type": "mqtype", "mq_type": "mqtype", "MQ.TYPE": "mqtype", "mq/type": "mqtype",
		"Mq_Type.": "mqtype", "pulsar.address": "pulsaraddress", "knowhere.Some_Key": "knowhere.Some_Key",
	} {
		assert.Equal(t, want, models.FormatConfigKey(key), key)
	}
	for _, k := range []string{"mqtype", "mq.type", "MQ_TYPE", "mq/type"} {
		assert.True(t, models.IsMQTypeConfigKey(models.ConfigPrefix+k), k)
	}
	for _, k := range []string{"mq.types", "a/mq.type", "mq.type.x", "knowhere.mqtype.", "common.mqtype"} {
		assert.False(t, models.IsMQTypeConfigKey(models.ConfigPrefix+k), k)
	}
}

func TestShowKeyParsers(t *testing.T) {
	if id, ok := models.ParseDatabaseKey("root-coord/database/db-info/7"); assert.True(t, ok) {
		assert.Equal(t, int64(7), id)
	}
	_, ok := models.ParseDatabaseKey("root-coord/database/db-info/x")
	assert.False(t, ok)
	c, p, ok := models.ParsePartitionKey("root-coord/partitions/100/101")
	assert.True(t, ok)
	assert.Equal(t, [2]int64{100, 101}, [2]int64{c, p})
	_, _, ok = models.ParsePartitionKey("root-coord/partitions/100")
	assert.False(t, ok)
	n, v, ok := models.ParseChannelWatchKey("channelwatch/5/by-dev-rootcoord-dml_0_100v0")
	assert.True(t, ok)
	assert.Equal(t, int64(5), n)
	assert.Equal(t, "by-dev-rootcoord-dml_0_100v0", v)
	for _, bad := range []string{"channelwatch/x/v", "channelwatch/5", "channelwatch/5/", "channelwatch/5/a/b"} {
		_, _, ok := models.ParseChannelWatchKey(bad)
		assert.False(t, ok, bad)
	}
	c, r, ok := models.ParseReplicaKey("querycoord-replica/100/9")
	assert.True(t, ok)
	assert.Equal(t, [2]int64{100, 9}, [2]int64{c, r})
	c, i, ok := models.ParseFieldIndexKey("field-index/100/3")
	assert.True(t, ok)
	assert.Equal(t, [2]int64{100, 3}, [2]int64{c, i})
	sk, ok := models.ParseSegmentIndexKey("segment-index/100/101/1001/5")
	assert.True(t, ok)
	assert.Equal(t, models.SegmentIndexKey{Collection: 100, Partition: 101, Segment: 1001, Build: 5}, sk)
	_, ok = models.ParseSegmentIndexKey("segment-index/100/101/1001")
	assert.False(t, ok)
}

// Repeated int64 fields read packed (proto3) and unpacked alike.
func TestReplicaUnpackedNodes(t *testing.T) {
	var b wire.Builder
	b.Varint(1, 9).Varint(2, 100).Varint(3, 4).Varint(3, 5)
	r, err := models.DecodeReplica(b.Build())
	require.NoError(t, err)
	assert.Equal(t, []int64{4, 5}, r.Nodes)
	_, err = models.DecodeReplica([]byte{0x1a, 0x02, 0x80}) // packed varint cut short
	assert.Error(t, err)
}

func TestDecodeAny(t *testing.T) {
	l := models.NewLayout("by-dev", "meta")
	g := showGolden(t, "etcdpb.PartitionInfo")
	kind, view, err := models.DecodeAny(l, l.Meta("root-coord/partitions/1/2"), g["default"], 0)
	require.NoError(t, err)
	assert.Equal(t, models.KindNamePartition, kind)
	assert.Equal(t, "_default", view.(*models.PartitionInfo).Name)

	kind, view, err = models.DecodeAny(l, l.Meta("root-coord/partitions/1/3"), models.CollectionTombstone, 0)
	require.NoError(t, err)
	assert.Equal(t, models.KindNamePartition, kind)
	assert.Equal(t, &models.Tombstone{Tombstone: true}, view)

	kind, view, err = models.DecodeAny(l, l.Meta("field-index/1/2"), []byte{0xff}, 0)
	assert.Equal(t, models.KindNameFieldIndex, kind)
	assert.Nil(t, view)
	assert.Error(t, err)

	kind, view, err = models.DecodeAny(l, l.Root("config/MQ_TYPE"), []byte("kafka"), 0)
	require.NoError(t, err)
	assert.Equal(t, models.KindNameConfig, kind)
	assert.Equal(t, &models.ConfigEntry{Key: "MQ_TYPE", FormattedKey: "mqtype", Value: "kafka", MQType: true}, view)

	for _, abs := range []string{l.Root("kv/gid/timestamp"), l.Meta("session/id"), l.Meta("something/else"), "other-root/x"} {
		kind, view, err = models.DecodeAny(l, abs, []byte("1"), 0)
		assert.Equal(t, "", kind, abs)
		assert.Nil(t, view, abs)
		assert.NoError(t, err, abs)
	}
}
