package targetcheck_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

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
