package targetcheck

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/heron-shell/heron/models"
)

// KafkaConfig is how to reach the Kafka target.
type KafkaConfig struct {
	Brokers []string
	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; "" without SASL.
	Mechanism, User, Password string
	TLS                       *tls.Config // nil: plaintext
	// Timeout bounds the whole check (0: DefaultTimeout).
	Timeout time.Duration
}

// CheckKafka reports, for each pchannel, its topic (named after it) on the
// Kafka target: absent, empty (low == high watermark on partition 0) or not
// empty. It fails when the brokers do not answer within the timeout, refuse
// the credentials, or return an error for a topic.
func CheckKafka(ctx context.Context, c KafkaConfig, pchannels []string) ([]Topic, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	brokers := strings.Join(c.Brokers, ",")
	cl, err := c.client(timeout)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if len(pchannels) == 0 {
		return []Topic{}, nil
	}
	topics := make([]string, len(pchannels))
	for i, pc := range pchannels {
		topics[i] = models.KafkaTopic(pc)
	}
	details, err := adm.ListTopics(ctx, topics...)
	if err != nil {
		return nil, kafkaError(ctx, brokers, timeout, err)
	}
	var present []string
	isPresent := map[string]bool{}
	out := make([]Topic, len(pchannels))
	for i, pc := range pchannels {
		topic := models.KafkaTopic(pc)
		out[i] = Topic{PChannel: pc, Topic: topic, State: Absent}
		d, ok := details[topic]
		switch {
		case !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition):
		case d.Err != nil:
			return nil, fmt.Errorf("kafka brokers %s: topic %s: %w", brokers, topic, d.Err)
		default:
			out[i].Partitions = int32(len(d.Partitions))
			present = append(present, topic)
			isPresent[topic] = true
		}
	}
	if len(present) == 0 {
		return out, nil
	}
	starts, err := adm.ListStartOffsets(ctx, present...)
	if err != nil {
		return nil, kafkaError(ctx, brokers, timeout, err)
	}
	ends, err := adm.ListEndOffsets(ctx, present...)
	if err != nil {
		return nil, kafkaError(ctx, brokers, timeout, err)
	}
	for i := range out {
		if !isPresent[out[i].Topic] {
			continue
		}
		pc := out[i].Topic
		lo, okLo := starts.Lookup(pc, models.KafkaPartition)
		hi, okHi := ends.Lookup(pc, models.KafkaPartition)
		if !okLo || !okHi {
			return nil, fmt.Errorf("kafka brokers %s: topic %s has no partition %d (Milvus writes partition %d only)", brokers, pc, models.KafkaPartition, models.KafkaPartition)
		}
		for _, o := range []kadm.ListedOffset{lo, hi} {
			if o.Err != nil {
				return nil, fmt.Errorf("kafka brokers %s: topic %s partition %d: %w", brokers, pc, models.KafkaPartition, o.Err)
			}
		}
		out[i].LowWatermark, out[i].HighWatermark = ptr(lo.Offset), ptr(hi.Offset)
		out[i].State = Empty
		if hi.Offset > lo.Offset {
			out[i].State = NotEmpty
		}
	}
	return out, nil
}

// client is a franz-go client of the brokers, with c's TLS and SASL, extra
// options after them.
func (c KafkaConfig) client(timeout time.Duration, extra ...kgo.Opt) (*kgo.Client, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(c.Brokers...), kgo.DialTimeout(min(dialTimeout, timeout)),
		kgo.RetryTimeout(timeout), kgo.ClientID("heron")}
	if c.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(c.TLS.Clone()))
	}
	if c.Mechanism != "" {
		m, err := mechanism(c)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka brokers %s: %w", strings.Join(c.Brokers, ","), err)
	}
	return cl, nil
}

func mechanism(c KafkaConfig) (sasl.Mechanism, error) {
	switch c.Mechanism {
	case "PLAIN":
		return plain.Auth{User: c.User, Pass: c.Password}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: c.User, Pass: c.Password}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: c.User, Pass: c.Password}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("kafka SASL mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", c.Mechanism)
}

// kafkaError says what failed talking to the brokers: no answer in time,
// refused credentials, or the broker's own error.
func kafkaError(ctx context.Context, brokers string, timeout time.Duration, err error) error {
	var netErr net.Error
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed), errors.Is(err, kerr.IllegalSaslState), errors.Is(err, kerr.UnsupportedSaslMechanism):
		return fmt.Errorf("kafka brokers %s refused the SASL credentials: %w", brokers, err)
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr):
		return fmt.Errorf("kafka brokers %s are unreachable (no answer within %s): %w; check --kafka-brokers and the network (nothing was written)", brokers, timeout, err)
	}
	return fmt.Errorf("kafka brokers %s: %w", brokers, err)
}
