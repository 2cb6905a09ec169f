package targetcheck_test

import (
	"context"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/targetcheck"
)

const (
	dml0 = "by-dev-rootcoord-dml_0"
	dml1 = "by-dev-rootcoord-dml_1"
	dml2 = "by-dev-rootcoord-dml_2"
	dml3 = "by-dev-rootcoord-dml_3"
)

func newCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// produce writes n records to partition 0 of topic.
func produce(t *testing.T, c *kfake.Cluster, topic string, n int, opts ...kgo.Opt) {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	require.NoError(t, err)
	defer cl.Close()
	for i := 0; i < n; i++ {
		require.NoError(t, cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Partition: 0, Value: []byte("x")}).FirstErr())
	}
}

func byPChannel(ts []targetcheck.Topic) map[string]targetcheck.Topic {
	m := map[string]targetcheck.Topic{}
	for _, t := range ts {
		m[t.PChannel] = t
	}
	return m
}

func TestKafkaStates(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, dml0, dml1, dml2), kfake.SeedTopics(3, dml3))
	produce(t, c, dml1, 3)
	produce(t, c, dml2, 4)
	// Retention deleted dml2's records: low == high > 0 is empty.
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer adm.Close()
	o := kadm.Offsets{}
	o.Add(kadm.Offset{Topic: dml2, Partition: 0, At: 4})
	_, err = kadm.NewClient(adm).DeleteRecords(context.Background(), o)
	require.NoError(t, err)

	got, err := targetcheck.CheckKafka(context.Background(), targetcheck.KafkaConfig{Brokers: c.ListenAddrs()}, []string{dml0, dml1, dml2, dml3, "by-dev-rootcoord-dml_9"})
	require.NoError(t, err)
	require.Len(t, got, 5)
	m := byPChannel(got)
	assert.Equal(t, targetcheck.Empty, m[dml0].State)
	assert.Equal(t, int64(0), *m[dml0].HighWatermark)
	assert.Equal(t, targetcheck.NotEmpty, m[dml1].State)
	assert.Equal(t, int64(0), *m[dml1].LowWatermark)
	assert.Equal(t, int64(3), *m[dml1].HighWatermark)
	assert.False(t, m[dml1].Fresh())
	assert.Equal(t, targetcheck.Empty, m[dml2].State, "records deleted by retention: low == high")
	assert.Equal(t, int64(4), *m[dml2].LowWatermark)
	assert.Equal(t, int64(4), *m[dml2].HighWatermark)
	assert.Equal(t, int32(3), m[dml3].Partitions)
	assert.Equal(t, targetcheck.Empty, m[dml3].State)
	assert.Equal(t, targetcheck.Absent, m["by-dev-rootcoord-dml_9"].State)
	assert.Nil(t, m["by-dev-rootcoord-dml_9"].HighWatermark)
	assert.Contains(t, m[dml1].Describe(), "low 0, high 3")

	// Partly deleted: low 2, high 3 still holds a record.
	o = kadm.Offsets{}
	o.Add(kadm.Offset{Topic: dml1, Partition: 0, At: 2})
	_, err = kadm.NewClient(adm).DeleteRecords(context.Background(), o)
	require.NoError(t, err)
	got, err = targetcheck.CheckKafka(context.Background(), targetcheck.KafkaConfig{Brokers: c.ListenAddrs()}, []string{dml1})
	require.NoError(t, err)
	assert.Equal(t, targetcheck.NotEmpty, got[0].State)
	assert.Equal(t, int64(2), *got[0].LowWatermark)

	// The check creates no topic, even on a broker that auto-creates them.
	md, err := kadm.NewClient(adm).ListTopics(context.Background())
	require.NoError(t, err)
	assert.False(t, md.Has("by-dev-rootcoord-dml_9"))
}

func TestKafkaNoAutoCreate(t *testing.T) {
	c := newCluster(t, kfake.AllowAutoTopicCreation())
	got, err := targetcheck.CheckKafka(context.Background(), targetcheck.KafkaConfig{Brokers: c.ListenAddrs()}, []string{dml0})
	require.NoError(t, err)
	assert.Equal(t, targetcheck.Absent, got[0].State)
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer adm.Close()
	md, err := kadm.NewClient(adm).ListTopics(context.Background())
	require.NoError(t, err)
	assert.False(t, md.Has(dml0), "the check must not create the topic it looks for")
}

func TestKafkaSASL(t *testing.T) {
	c := newCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "alice", "s3cret-plain"),
		kfake.Superuser("SCRAM-SHA-256", "bob", "s3cret-256"), kfake.Superuser("SCRAM-SHA-512", "carol", "s3cret-512"),
		kfake.SeedTopics(1, dml0))
	produce(t, c, dml0, 2, kgo.SASL(plain.Auth{User: "alice", Pass: "s3cret-plain"}.AsMechanism()))
	for _, u := range []struct{ mech, user, pass string }{
		{"PLAIN", "alice", "s3cret-plain"}, {"SCRAM-SHA-256", "bob", "s3cret-256"}, {"SCRAM-SHA-512", "carol", "s3cret-512"},
	} {
		got, err := targetcheck.CheckKafka(context.Background(), targetcheck.KafkaConfig{Brokers: c.ListenAddrs(),
			Mechanism: u.mech, User: u.user, Password: u.pass}, []string{dml0})
		require.NoError(t, err, u.mech)
		assert.Equal(t, targetcheck.NotEmpty, got[0].State, u.mech)
	}
	_, err := targetcheck.CheckKafka(context.Background(), targetcheck.KafkaConfig{Brokers: c.ListenAddrs(),
		Mechanism: "SCRAM-SHA-256", User: "bob", Password: "wrong-pw", Timeout: 3 * time.Second}, []string{dml0})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "wrong-pw")
	assert.NotContains(t, err.Error(), "s3cret")
	_, err = targetcheck.CheckKafka(context.Background(), targetcheck.KafkaConfig{Brokers: c.ListenAddrs(), Timeout: 2 * time.Second}, []string{dml0})
	require.Error(t, err, "no SASL on a SASL cluster")
}

func TestKafkaUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	_, err = targetcheck.CheckKafka(context.Background(), targetcheck.KafkaConfig{Brokers: []string{addr}, Timeout: time.Second}, []string{dml0})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kafka brokers "+addr+" are unreachable")
}

func TestFlagsValidate(t *testing.T) {
	for _, bad := range []struct {
		f      targetcheck.Flags
		target string
		want   string
	}{
		{targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: "k:9092"}}, "pulsar", "--kafka-brokers checks a Kafka target"},
		{targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarAdmin: "http://p:8080"}}, "woodpecker", "--pulsar-admin checks a Pulsar target"},
		{targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaSASLUsername: "u"}}, "kafka", "--kafka-sasl-username needs --kafka-brokers"},
		{targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarTenant: "t"}}, "pulsar", "--pulsar-tenant needs --pulsar-admin"},
		{targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: "k"}}, "kafka", "want HOST:PORT"},
		{targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: "k:1", KafkaSASLUsername: "u"}}, "kafka", "go together"},
		{targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: "k:1", KafkaSASLUsername: "u", KafkaSASLPassword: "p"}}, "kafka", "needs --kafka-sasl-mechanisms"},
		{targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: "k:1", KafkaSSLCACert: "ca.pem"}}, "kafka", "need --kafka-ssl-enabled"},
		{targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarAdmin: "pulsar:8080"}}, "pulsar", "want http://HOST:PORT"},
		{targetcheck.Flags{PulsarFlags: targetcheck.PulsarFlags{PulsarAdmin: "http://p:8080", PulsarTenant: "a/b"}}, "pulsar", "no '/'"},
	} {
		err := bad.f.Validate("reset checkpoint", bad.target)
		require.Error(t, err, bad.want)
		assert.Contains(t, err.Error(), bad.want)
	}
	ok := targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: "a:1, b:2", KafkaSASLUsername: "u", KafkaSASLPassword: "p", KafkaSASLMechanisms: "PLAIN", KafkaSecurityProtocol: "SASL_SSL"}}
	require.NoError(t, ok.Validate("reset checkpoint", "kafka"))
	c, err := ok.KafkaConfig()
	require.NoError(t, err)
	assert.Equal(t, []string{"a:1", "b:2"}, c.Brokers)
	assert.NotNil(t, c.TLS, "SASL_SSL is TLS")
	bad := targetcheck.Flags{KafkaFlags: targetcheck.KafkaFlags{KafkaBrokers: "a:1", KafkaSSLEnabled: true, KafkaSSLCACert: "/nonexistent/ca.pem"}}
	_, err = bad.KafkaConfig()
	assert.ErrorContains(t, err, "--kafka-ssl-ca-cert")
}

// Every secret flag is tagged secret (help and errors hide it) and has a
// name that framework/history.go redacts whatever the state ("pas").
func TestSecretFlagsRedacted(t *testing.T) {
	secrets := 0
	for _, f := range reflect.VisibleFields(reflect.TypeOf(targetcheck.Flags{})) {
		name := f.Tag.Get("name")
		if strings.Contains(name, "password") {
			secrets++
			assert.Equal(t, "true", f.Tag.Get("secret"), name)
			assert.NotEmpty(t, f.Tag.Get("env"), name)
			assert.True(t, framework.SecretFlagName(name), name)
		}
	}
	assert.Equal(t, 2, secrets)
}
