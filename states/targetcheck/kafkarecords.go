package targetcheck

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/heron-shell/heron/models"
)

// KafkaFirstRecordTimes reads, for each topic of topics that holds records
// (CheckKafka's NotEmpty), the timestamp of its first remaining record:
// partition 0 at the low watermark. `check` compares it with the switch:
// a record older than the switch is one Milvus replays from offset 0
// (milvus#47802). Read-only: the client joins no group and commits nothing.
func KafkaFirstRecordTimes(ctx context.Context, c KafkaConfig, topics []Topic) (map[string]time.Time, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	parts := map[string]map[int32]kgo.Offset{}
	for _, t := range topics {
		if t.State == NotEmpty && t.LowWatermark != nil {
			parts[t.Topic] = map[int32]kgo.Offset{models.KafkaPartition: kgo.NewOffset().At(*t.LowWatermark)}
		}
	}
	out := map[string]time.Time{}
	if len(parts) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := c.client(timeout, kgo.ConsumePartitions(parts))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	brokers := strings.Join(c.Brokers, ",")
	for len(out) < len(parts) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil, kafkaError(ctx, brokers, timeout, ctx.Err())
		}
		for _, fe := range fs.Errors() {
			return nil, fmt.Errorf("kafka brokers %s: topic %s partition %d: %w", brokers, fe.Topic, fe.Partition, fe.Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if _, done := out[r.Topic]; !done {
				out[r.Topic] = r.Timestamp.UTC()
			}
		})
	}
	return out, nil
}
