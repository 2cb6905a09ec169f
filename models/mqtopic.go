package models

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
