package models_test

import (
	"encoding/base64"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/wire"
)

func TestSecretKeys(t *testing.T) {
	for _, k := range []string{"sasl.password", "kafka.saslPassword", "SASL_PASSWORD", "config/kafka/saslPassword",
		"ssl.key.pem", "ssl.keystore.key", "tls.key", "minio.secretAccessKey", "minio.accessKeyID",
		"pulsar.authParams.token", "etcd.auth.password", "sasl.oauthbearer.client.secret", "pulsar.authParams",
		"sasl.jaas.config", "ssl.key.passphrase"} {
		assert.True(t, models.IsSecretKey(k), k)
	}
	for _, k := range []string{"mq.type", "mqtype", "sasl.mechanisms", "security.protocol", "kafka.brokerList",
		"dataCoord.compaction.channelMaxCPLag", "ssl.endpoint.identification.algorithm", "woodpecker.meta.prefix"} {
		assert.False(t, models.IsSecretKey(k), k)
	}
	assert.Equal(t, models.MaskedSecret, models.MaskSecret("sasl.password", "hunter2", false))
	assert.Equal(t, "hunter2", models.MaskSecret("sasl.password", "hunter2", true))
	assert.Equal(t, "kafka", models.MaskSecret("mq.type", "kafka", false))
	m := models.MaskSecrets(map[string]string{"sasl.password": "x", "mq.type": "kafka"}, false)
	assert.Equal(t, map[string]string{"sasl.password": models.MaskedSecret, "mq.type": "kafka"}, m)
}

// An AlterWAL broadcast task as Milvus stores it: the message's properties
// hold _t = 700, the broadcast header (_bh) and the specialized header (_h),
// each base64 protobuf; two vchannels, one acked.
func TestDecodeAlterWALBroadcastTask(t *testing.T) {
	entry := func(k, v string) []byte { return (&wire.Builder{}).String(1, k).String(2, v).Build() }
	bh := (&wire.Builder{}).Varint(1, 9).String(2, "dml_0_1v0").String(2, "dml_1_1v0").Build()
	h := (&wire.Builder{}).Varint(1, uint64(commonpb.WALName_Kafka)).Message(2, entry("sasl.password", "hunter2")).Build()
	msg := (&wire.Builder{}).Bytes(1, nil).
		Message(2, entry("_t", "700")).
		Message(2, entry("_bh", base64.StdEncoding.EncodeToString(bh))).
		Message(2, entry("_h", base64.StdEncoding.EncodeToString(h))).Build()
	acked := (&wire.Builder{}).Varint(3, 42).Build()
	v := (&wire.Builder{}).Message(1, msg).Varint(2, 1).Message(4, acked).Message(4, nil).Build()
	bt, err := models.DecodeBroadcastTask(v)
	require.NoError(t, err)
	assert.Equal(t, models.BroadcastPending, bt.State)
	assert.Equal(t, int64(models.MessageTypeAlterWAL), bt.MessageType)
	assert.Equal(t, []string{"dml_0_1v0", "dml_1_1v0"}, bt.VChannels)
	assert.Equal(t, 2, bt.AckedCheckpoint)
	assert.Equal(t, 1, bt.Acked)
	assert.Equal(t, []bool{true, false}, bt.AckedVChannels)
	require.NotNil(t, bt.AlterWAL)
	assert.Equal(t, commonpb.WALName_Kafka, bt.AlterWAL.Target)
	assert.Equal(t, "hunter2", bt.AlterWAL.Config["sasl.password"])
}

func TestStreamingNodeKeys(t *testing.T) {
	assert.Equal(t, "session/streamingnode-7", models.StreamingNodeSessionKey(7))
	assert.Equal(t, "streamingnode-meta/wal/p0/vchannel/p0_1v0", models.VChannelMetaKey("p0", "p0_1v0"))
	assert.Equal(t, "ASSIGNED", models.PChannelAssigned.String())
}

func TestMaskView(t *testing.T) {
	cp := &models.WALCheckpoint{AlterWAL: &models.AlterWALState{Configs: map[string]string{"kafka.saslPassword": "hunter2", "mq.type": "kafka"}}}
	m := models.MaskView(cp, false).(*models.WALCheckpoint)
	assert.Equal(t, models.MaskedSecret, m.AlterWAL.Configs["kafka.saslPassword"])
	assert.Equal(t, "kafka", m.AlterWAL.Configs["mq.type"])
	assert.Equal(t, "hunter2", cp.AlterWAL.Configs["kafka.saslPassword"], "the decoded value itself is kept")
	assert.Same(t, cp, models.MaskView(cp, true))

	bt := &models.BroadcastTask{Properties: map[string]string{"_h": "c2VjcmV0", "_t": "700"},
		AlterWAL: &models.AlterWALHeader{Config: map[string]string{"ssl.key.pem": "-----BEGIN PRIVATE KEY-----"}}}
	mb := models.MaskView(bt, false).(*models.BroadcastTask)
	assert.Equal(t, models.MaskedSecret, mb.AlterWAL.Config["ssl.key.pem"])
	assert.Equal(t, models.MaskedSecret, mb.Properties["_h"])
	assert.Equal(t, "700", mb.Properties["_t"])
	assert.Equal(t, "c2VjcmV0", bt.Properties["_h"])
}

// A message that cannot be read (a broken _bh header) leaves the state and
// the acks readable: the in-flight gate still decides.
func TestBroadcastTaskWithAnUnreadableMessage(t *testing.T) {
	entry := (&wire.Builder{}).String(1, "_bh").String(2, "not base64 !").Build()
	msg := (&wire.Builder{}).Message(2, entry).Build()
	v := (&wire.Builder{}).Message(1, msg).Varint(2, uint64(models.BroadcastReplicated)).Message(4, nil).Build()
	bt, err := models.DecodeBroadcastTask(v)
	require.NoError(t, err)
	assert.True(t, bt.State.InFlight())
	assert.Equal(t, 1, bt.AckedCheckpoint)
	assert.Contains(t, bt.MessageError, "broadcast header")
}
