package models

import (
	"fmt"
	"strconv"
)

// Milvus's topics on a Kafka or Pulsar WAL (pkg/v2@v2.6.23
// streaming/walimpls/impls/kafka/wal.go, impls/pulsar): one topic per
// pchannel, named after it.

// KafkaPartition is the one partition of a pchannel's Kafka topic Milvus
// writes and reads.
const KafkaPartition int32 = 0

// KafkaTopic is the Kafka topic of a pchannel: its name.
func KafkaTopic(pchannel string) string { return pchannel }

// PulsarTopic is the Pulsar topic of a pchannel under pulsar.tenant and
// pulsar.namespace: persistent://{tenant}/{namespace}/{pchannel}.
func PulsarTopic(tenant, namespace, pchannel string) string {
	return "persistent://" + tenant + "/" + namespace + "/" + pchannel
}

// messageTimeTickKey is the property that holds a WAL message's time tick,
// base-36 text (pkg/v2@v2.6.23 streaming/util/message properties.go "_tt",
// encoder.go EncodeUint64); the Kafka WAL writes every property as a record
// header (streaming/walimpls/impls/kafka/wal.go Append).
const messageTimeTickKey = "_tt"

// MessageTimeTick is the time tick of a WAL message from its properties (a
// Kafka record's headers).
func MessageTimeTick(properties map[string]string) (uint64, error) {
	v, ok := properties[messageTimeTickKey]
	if !ok {
		return 0, fmt.Errorf("no %s property (the message's time tick)", messageTimeTickKey)
	}
	tt, err := strconv.ParseUint(v, 36, 64)
	if err != nil {
		return 0, fmt.Errorf("property %s %q is not a base-36 time tick", messageTimeTickKey, v)
	}
	return tt, nil
}
