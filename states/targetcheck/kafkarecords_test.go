package targetcheck_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/heron-shell/heron/states/targetcheck"
)

// The first remaining record of each topic that holds records, with the
// time it was written; empty and absent topics have none.
func TestKafkaFirstRecordTimes(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, dml0, dml1))
	before := time.Now().Add(-time.Second)
	produce(t, c, dml1, 3)
	cfg := targetcheck.KafkaConfig{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second}
	topics, err := targetcheck.CheckKafka(context.Background(), cfg, []string{dml0, dml1, dml2})
	require.NoError(t, err)
	first, err := targetcheck.KafkaFirstRecordTimes(context.Background(), cfg, topics)
	require.NoError(t, err)
	require.Len(t, first, 1)
	assert.True(t, first[dml1].After(before) && first[dml1].Before(time.Now().Add(time.Second)), "%v", first[dml1])
}

// The last record of a topic, with its headers; an absent or empty topic
// has none.
func TestKafkaLastRecord(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, dml0, dml1))
	produce(t, c, dml1, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	require.NoError(t, cl.ProduceSync(context.Background(), &kgo.Record{Topic: dml1, Partition: 0, Value: []byte("y"),
		Headers: []kgo.RecordHeader{{Key: "_tt", Value: []byte("3krv5f9dkw00")}}}).FirstErr())
	cfg := targetcheck.KafkaConfig{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second}
	rec, ok, err := targetcheck.KafkaLastRecord(context.Background(), cfg, dml1)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, targetcheck.LastRecord{Topic: dml1, Offset: 3, Headers: map[string]string{"_tt": "3krv5f9dkw00"}}, rec)
	for _, pc := range []string{dml0, dml2} {
		_, ok, err := targetcheck.KafkaLastRecord(context.Background(), cfg, pc)
		require.NoError(t, err)
		assert.False(t, ok, pc)
	}
}
