package show

import (
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/tests/sampletest"
)

// Secrets stored in the metastore (an online switch's config, a SASL
// password override) are masked in config-etcd and in the etcd-kv dump,
// raw and decoded, in every format; --show-secrets prints them.
func TestSecretsMasked(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	e.putRoot("config/kafka.saslPassword", []byte("hunter2"))
	entry := (&wire.Builder{}).String(1, "ssl.key.pem").String(2, "PEMSECRET").Build()
	st := (&wire.Builder{}).Varint(1, uint64(commonpb.WALName_Kafka)).Message(3, entry).Varint(4, 1).Build()
	key := models.ConsumeCheckpointKey(e.pch(0))
	cp := sample.Checkpoint{ID: sample.ID(commonpb.WALName_Pulsar, 50), TimeTick: ts(60), RecoveryMagic: 1}.Encode()
	e.put(key, (&wire.Builder{}).Raw(cp).Message(6, st).Build())
	e.put(models.BroadcastTaskPrefix+"5", sampletest.AlterWALTask(1, commonpb.WALName_Kafka, map[string]string{"sasl.password": "TASKSECRET"}, []string{e.pch(0) + "_100v0"}, 0))

	for _, line := range []string{"show config-etcd", "show config-etcd --format json", "show config-etcd --format line",
		"show etcd-kv --prefix /", "show etcd-kv --prefix / --decode", "show etcd-kv --prefix / --decode --format json", "show etcd-kv --prefix / --decode --format line"} {
		out, _ := e.mustRun(line)
		for _, secret := range []string{"hunter2", "PEMSECRET", "TASKSECRET"} {
			assert.NotContains(t, out, secret, line)
		}
		if line != "show etcd-kv --prefix / --decode" { // its table shows the decoded column, elided
			assert.Contains(t, out, "(masked:", line) // tables elide wide cells
		}
	}
	out, _ := e.mustRun("show config-etcd --show-secrets")
	assert.Contains(t, out, "hunter2")
	out, _ = e.mustRun("show etcd-kv --prefix / --decode --format json --show-secrets")
	assert.Contains(t, out, "PEMSECRET")
	assert.Contains(t, out, "TASKSECRET")
}

// An AlterWAL broadcast task shows its type and how many of its vchannels
// acked; a task whose message has no type shows none.
func TestShowBroadcastTaskTypeAndAcks(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	e.put(models.BroadcastTaskPrefix+"6", sampletest.AlterWALTask(int32(models.BroadcastPending), commonpb.WALName_Kafka, nil, []string{"a_1v0", "b_1v0"}, 1))
	res, _ := runJSON[BroadcastResult](e, "show broadcast-task")
	assert.Len(t, res.Tasks, 2)
	assert.Equal(t, "", res.Tasks[0].Type, "the sample tombstone's message has no _t")
	alter := res.Tasks[1]
	assert.Equal(t, "AlterWAL", alter.Type)
	assert.Equal(t, 2, alter.VChannels)
	assert.Equal(t, 1, alter.Acked)
	table, _ := e.mustRun("show broadcast-task")
	assert.Contains(t, table, "1 of 2 vchannels acked")
	assert.Contains(t, table, "AlterWAL")
}
