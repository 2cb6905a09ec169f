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

// LastRecord is the last record of a pchannel's topic: its offset on
// partition 0 and its headers (Milvus's message properties).
type LastRecord struct {
	Topic   string
	Offset  int64
	Headers map[string]string
}

// KafkaLastRecord reads the last record of pchannel's topic (partition 0,
// the high watermark less one); ok is false when the topic is absent or
// holds no record. Read-only, as KafkaFirstRecordTimes.
func KafkaLastRecord(ctx context.Context, c KafkaConfig, pchannel string) (rec LastRecord, ok bool, err error) {
	topics, err := CheckKafka(ctx, c, []string{pchannel})
	if err != nil {
		return rec, false, err
	}
	t := topics[0]
	if t.State != NotEmpty {
		return rec, false, nil
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	last := *t.HighWatermark - 1
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := c.client(timeout, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
		t.Topic: {models.KafkaPartition: kgo.NewOffset().At(last)}}))
	if err != nil {
		return rec, false, err
	}
	defer cl.Close()
	brokers := strings.Join(c.Brokers, ",")
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			// A transaction marker at the last offset is no record a fetch returns.
			return rec, false, fmt.Errorf("kafka brokers %s: topic %s partition %d: no record at offset %d (the high watermark less one) within %s",
				brokers, t.Topic, models.KafkaPartition, last, timeout)
		}
		for _, fe := range fs.Errors() {
			return rec, false, fmt.Errorf("kafka brokers %s: topic %s partition %d: %w", brokers, fe.Topic, fe.Partition, fe.Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset == last {
				rec, ok = LastRecord{Topic: r.Topic, Offset: r.Offset, Headers: map[string]string{}}, true
				for _, h := range r.Headers {
					rec.Headers[h.Key] = string(h.Value)
				}
			}
		})
		if ok {
			return rec, true, nil
		}
	}
}
