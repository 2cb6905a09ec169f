package reset

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/sampletest"
	"github.com/heron-shell/heron/tests/shelltest"
)

func kafkaCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func produceTo(t *testing.T, c *kfake.Cluster, topic string, n int, opts ...kgo.Opt) {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < n; i++ {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Value: []byte("old")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func findGate(s *Summary, name string) *Gate {
	for i := range s.Gates {
		if s.Gates[i].Name == name {
			return &s.Gates[i]
		}
	}
	return nil
}

// Issue 14: a Kafka target whose topics hold records refuses, naming each.
func TestKafkaTargetGate(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	c := kafkaCluster(t, kfake.SeedTopics(1, e.pc(0), e.pc(1)), kfake.SeedTopics(2, e.pc(2)))
	produceTo(t, c, e.pc(0), 3)
	produceTo(t, c, e.pc(2), 1)
	brokers := "--kafka-brokers " + strings.Join(c.ListenAddrs(), ",")
	for _, args := range []string{"--target-wal kafka " + brokers, "--target-wal kafka --run " + brokers} {
		msg := refusedUnchanged(t, e, args)
		mustContain(t, msg, gates.TargetName, e.pc(0)+": not empty (partition 0 watermarks low 0, high 3)",
			e.pc(2)+": not empty (partition 0 watermarks low 0, high 1; 2 partitions)",
			// Issue 27: the remedy is Kafka's command, a topic each; the bypass flag is not offered.
			"`kafka-topics.sh --bootstrap-server "+c.ListenAddrs()[0]+" --delete --topic "+e.pc(0)+"`",
			"`kafka-topics.sh --bootstrap-server "+c.ListenAddrs()[0]+" --delete --topic "+e.pc(2)+"`")
		if strings.Contains(msg, e.pc(1)+": not empty") || strings.Contains(msg, "--topic "+e.pc(1)+"`") {
			t.Fatal("the empty topic is named as not empty")
		}
		if strings.Contains(msg, "--allow-non-empty-target") {
			t.Fatal("the refusal offers the bypass flag")
		}
	}
	// Scoped to the empty topic's pchannel, the gate passes (the one-WAL gate refuses).
	out, _, _ := e.reset("--target-wal kafka --pchannel " + e.pc(1) + " --format json " + brokers)
	g := findGate(planJSON(t, out), gates.TargetName)
	if g == nil || !g.OK || !strings.Contains(g.Detail, "1 empty") {
		t.Fatalf("gate %+v", g)
	}

	res := runOK(t, e, "--target-wal kafka --allow-non-empty-target "+brokers)
	g = findGate(res.Plan, gates.TargetName)
	if g == nil || !g.OK || !g.Overridden {
		t.Fatalf("gate %+v", g)
	}
	w := strings.Join(res.Plan.Warnings, "\n")
	mustContain(t, w, "--allow-non-empty-target", e.pc(0)+": not empty", "has 2 partitions: Milvus writes and reads partition 0 only")
}

func TestKafkaTargetNotChecked(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	out, errs, code := e.reset("--target-wal kafka --format json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	s := planJSON(t, out)
	g := findGate(s, gates.TargetName)
	if g == nil || !g.OK || g.Overridden || !strings.Contains(g.Detail, "not checked: pass --kafka-brokers") {
		t.Fatalf("gate %+v", g)
	}
	mustContain(t, strings.Join(s.Reminders, "\n"), "heron did not check it", e.pc(0)+", "+e.pc(1)+", "+e.pc(2), "--kafka-brokers HOST:PORT")
	// Woodpecker and rocksmq targets have no topic gate.
	out, _, _ = e.reset("--target-wal woodpecker --format json")
	if findGate(planJSON(t, out), gates.TargetName) != nil {
		t.Fatal("a woodpecker target has the topic gate")
	}
	_, errs, code = e.reset("--target-wal woodpecker --kafka-brokers 127.0.0.1:9")
	if code != framework.ExitUsage || !strings.Contains(errs, "--kafka-brokers checks a Kafka target") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

func TestKafkaTargetUnreachable(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	before, r0 := e.dump(), e.rev()
	out, errs, code := e.reset("--target-wal kafka --run --kafka-brokers " + addr)
	if code != framework.ExitFailed || e.rev() != r0 || len(diffKeys(before, e.dump())) != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContain(t, errs, "kafka brokers "+addr+" are unreachable", "nothing was written")
	if files, _ := os.ReadDir(e.dir); len(files) != 0 {
		t.Fatalf("left %v", files)
	}
}

// SASL credentials reach the broker and never the output or the backup.
func TestKafkaTargetSASLSecrets(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Pulsar)
	const pass = "pa55-Kafka-XYZ"
	c := kafkaCluster(t, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "milvus", pass), kfake.SeedTopics(1, e.pc(0)))
	produceTo(t, c, e.pc(0), 1, kgo.SASL(scram.Auth{User: "milvus", Pass: pass}.AsSha512Mechanism()))
	t.Setenv("KAFKA_SASL_PASSWORD", pass)
	args := "--target-wal kafka --kafka-brokers " + c.ListenAddrs()[0] + " --kafka-sasl-username milvus --kafka-sasl-mechanisms SCRAM-SHA-512"
	msg := refusedUnchanged(t, e, args)
	mustContain(t, msg, e.pc(0)+": not empty (partition 0 watermarks low 0, high 1)")
	out, errs, code := e.reset(args + " --allow-non-empty-target --run")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(e.dir, "*"))
	if len(files) == 0 {
		t.Fatal("no backup")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), pass) {
			t.Fatalf("%s holds the password", f)
		}
	}
	if strings.Contains(msg+out+errs, pass) {
		t.Fatal("the password is printed")
	}
	// A wrong password fails (exit 1) without quoting it.
	t.Setenv("KAFKA_SASL_PASSWORD", "not-it-123")
	_, errs, code = e.reset(args)
	if code != framework.ExitFailed || strings.Contains(errs, "not-it-123") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// The Pulsar check: tenant and namespace from the instance's config overrides.
func TestPulsarTargetGate(t *testing.T) {
	e := newEnv(t, commonpb.WALName_Kafka)
	e.put(e.inst.Layout.Root("config/pulsar.tenant"), []byte("milvus-t"))
	e.put(e.inst.Layout.Root("config/PULSAR_NAMESPACE"), []byte("ns1"))
	// The check sends its requests side by side.
	var mu sync.Mutex
	var paths []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/admin/v2/persistent/milvus-t/ns1/" + e.pc(0) + "/internalStats":
			_, _ = w.Write([]byte(`{"numberOfEntries":12,"totalSize":900}`))
		case "/admin/v2/persistent/milvus-t/ns1/" + e.pc(1) + "/internalStats":
			_, _ = w.Write([]byte(`{"numberOfEntries":0,"totalSize":0}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// 2.6.9 and later write under pulsar.tenant/namespace only (issue 28 §1):
	// per pchannel the partitioned-topic metadata, then internalStats.
	args := "--target-wal pulsar --milvus-version 2.6.23 --pulsar-admin " + s.URL + " --pulsar-token-file " + tok
	msg := refusedUnchanged(t, e, args+" --run")
	mustContain(t, msg, "persistent://milvus-t/ns1/"+e.pc(0)+": not empty (12 entries)")
	if len(paths) != 6 {
		t.Fatalf("requests %v", paths)
	}
	out, _, code := e.reset(args + " --pulsar-tenant public --pulsar-namespace default --format json")
	g := findGate(planJSON(t, out), gates.TargetName)
	if code != 0 || g == nil || !g.OK || !strings.Contains(g.Detail, "3 absent") {
		t.Fatalf("exit %d gate %+v", code, g)
	}
	_, errs, code := e.reset("--target-wal pulsar --pulsar-admin " + s.URL)
	if code != framework.ExitFailed || !strings.Contains(errs, "401") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Unchecked, the reminder names the topics under the instance's tenant and namespace.
	out, _, code = e.reset("--target-wal pulsar --format json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	mustContain(t, strings.Join(planJSON(t, out).Reminders, "\n"), "persistent://milvus-t/ns1/"+e.pc(2), "--pulsar-admin URL")
}

// Issue 14 item 4: a Milvus 2.5 root is refused by every write command.
func TestPreStreamingRefused(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "")
	in := sampletest.PreStreaming(layout, commonpb.WALName_Kafka)
	s := shelltest.Seed(t, cli, ep, "other", commonpb.WALName_Kafka) // a 2.6 root beside it
	inst := instance.New(cli, layout, []string{ep})
	if _, err := inst.Load(context.Background(), in.KeyValues()); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, cli: cli, inst: inst, sample: in, dir: t.TempDir()}
	for _, args := range []string{"--target-wal woodpecker", "--target-wal woodpecker --run", "--target-wal kafka --run --allow-growing --allow-non-empty-target"} {
		msg := refusedUnchanged(t, e, args)
		mustContain(t, msg, gates.GenerationName, "pre-streaming (2.5 or older)", "channelwatch/ (4 keys)",
			"no consume checkpoints", "channelwatch positions", "exclusive", "no woodpecker MQ")
	}
	// The 2.6 root beside it passes the gate.
	g, err := gates.Generation(context.Background(), s.Inst, 0)
	if err != nil || !g.OK {
		t.Fatalf("%+v %v", g, err)
	}
}
