package show

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/sampletest"
)

func TestShowCheckpointKafkaTarget(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	pc := e.sample.PChannels
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, pc[0], pc[1]))
	require.NoError(t, err)
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	require.NoError(t, cl.ProduceSync(context.Background(), &kgo.Record{Topic: pc[0], Value: []byte("x")}, &kgo.Record{Topic: pc[0], Value: []byte("y")}).FirstErr())
	cl.Close()
	brokers := c.ListenAddrs()[0]

	res, _ := runJSON[CheckpointResult](e, "show checkpoint --kafka-brokers "+brokers)
	require.NotNil(t, res.Target)
	assert.Equal(t, TargetRow{WAL: "kafka", Endpoint: brokers}, *res.Target)
	assert.Equal(t, string(models.GenerationStreaming), res.Generation)
	states := map[string]string{}
	for _, p := range res.PChannels {
		require.NotNil(t, p.TargetTopic, p.Name)
		states[p.Name] = p.TargetTopic.State
	}
	assert.Equal(t, map[string]string{pc[0]: targetcheck.NotEmpty, pc[1]: targetcheck.Empty, pc[2]: targetcheck.Absent}, states)
	assert.Equal(t, int64(2), *res.PChannels[0].TargetTopic.HighWatermark)

	out, _ := e.mustRun("show checkpoint --kafka-brokers " + brokers)
	assert.Contains(t, out, "TARGET TOPICS (kafka at "+brokers)
	assert.Contains(t, out, "not empty (low 0, high 2)")
	lines, _ := e.mustRun("show checkpoint --format line --kafka-brokers " + brokers)
	assert.Contains(t, lines, "target_topic pchannel="+pc[0])

	// Without the flag: no target, no column.
	plain, _ := runJSON[CheckpointResult](e, "show checkpoint")
	assert.Nil(t, plain.Target)
	assert.Nil(t, plain.PChannels[0].TargetTopic)
	out, _ = e.mustRun("show checkpoint")
	assert.NotContains(t, out, "TARGET TOPICS")

	_, errs, code, _ := e.run("show checkpoint --kafka-brokers 127.0.0.1:1 --pulsar-admin http://127.0.0.1:1")
	assert.Equal(t, framework.ExitUsage, code, errs)
}

func TestShowCheckpointPulsarTarget(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/public/default/"+e.sample.PChannels[1]+"/internalStats") {
			_, _ = w.Write([]byte(`{"numberOfEntries":4}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer s.Close()
	res, _ := runJSON[CheckpointResult](e, "show checkpoint --pulsar-admin "+s.URL)
	require.NotNil(t, res.PChannels[1].TargetTopic)
	assert.Equal(t, targetcheck.NotEmpty, res.PChannels[1].TargetTopic.State)
	assert.Equal(t, "persistent://public/default/"+e.sample.PChannels[1], res.PChannels[1].TargetTopic.Topic)
	assert.Equal(t, targetcheck.Absent, res.PChannels[0].TargetTopic.State)

	s.Close()
	_, errs, code, _ := e.run("show checkpoint --pulsar-admin " + s.URL)
	assert.Equal(t, framework.ExitFailed, code)
	assert.Contains(t, errs, "is unreachable")
}

// A Milvus 2.5 root: show checkpoint works and says which generation it is.
func TestShowCheckpointPreStreaming(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "")
	in := sampletest.PreStreaming(layout, commonpb.WALName_Kafka)
	inst := instance.New(cli, layout, []string{ep})
	_, err := inst.Load(context.Background(), in.KeyValues())
	require.NoError(t, err)
	e := &env{t: t, cli: cli, inst: inst, sample: in}
	res, _ := runJSON[CheckpointResult](e, "show checkpoint")
	assert.Equal(t, "pre-streaming (2.5 or older)", res.Generation)
	out, _ := e.mustRun("show checkpoint")
	assert.True(t, strings.HasPrefix(out, "!!! MILVUS GENERATION: pre-streaming (2.5 or older) !!!"), out)
	assert.Contains(t, out, "channelwatch/ (4 keys)")
	e.mustRun("show channel-watch")
}
