// Command etcdtool seeds and dumps a Milvus meta root for the e2e scripts:
//
//	etcdtool seed --etcd HOST:PORT --wal pulsar [--rootPath by-dev] [--gate live-session|growing|sealed|segment-assign|broadcast-pending|broadcast-waitack|broadcast-replicated] [--mqtype]
//	        [--demo]   (heron demo's instance: sessions without a lease, config overrides, woodpecker logs on pulsar and kafka)
//	        [--alter-stage none|flushing|advance-checkpoint]   (dml_0's consume checkpoint records Milvus's online switch to kafka)
//	etcdtool move --etcd HOST:PORT --wal kafka --pchannels P1,P2 [--rootPath by-dev]
//	        (the positions of those pchannels to the WAL's earliest, as an earlier run leaves them)
//	etcdtool dump --etcd HOST:PORT [--prefix by-dev/]   (key, tab, hex value; sorted)
//	etcdtool corrupt --etcd HOST:PORT --key KEY          (puts bytes that are not protobuf)
//	etcdtool switched --etcd HOST:PORT --wal kafka --situation S [--from pulsar] [--term N]
//	        (an instance restarted after a switch from --from to --wal, for `check`: S is one of
//	        pre, healthy, unassigned, no-session, old-wal, tick-back, lag, dropped-only,
//	        broadcast-pending, unregistered, online-flushing, online-advance, online-early-mqtype,
//	        online-secrets; the streaming node's session holds a 120 s lease)
//	etcdtool pchannel --etcd HOST:PORT --name P --term N   (puts P ASSIGNED on node 7 at term N)
//	etcdtool wpseed --etcd HOST:PORT --file F            (puts the etcd keys of a woodpecker
//	        fixture dump written by the real client, states/resetwal/testdata/wp_*.json)
//	etcdtool storm --etcd HOST:PORT [--prefix storm/] [--writers 16] [--retention 1000] [--every 100ms]
//	        (an unrelated writer and a compactor at revision-retention, until SIGTERM)
//
// Every subcommand also takes --cacert F [--cert F --key-file F] (https) and
// --user U (password from $ETCDTOOL_PASSWORD) to reach a secured etcd.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/sampletest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "etcdtool:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: etcdtool seed|dump|corrupt [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	endpoint := fs.String("etcd", configs.DefaultEtcd, "etcd address")
	walName := fs.String("wal", "pulsar", "WAL of the seeded positions")
	root := fs.String("rootPath", configs.DefaultRootPath, "root path")
	gate := fs.String("gate", "", "add a key that makes reset refuse")
	preStreaming := fs.Bool("pre-streaming", false, "seed the instance as Milvus 2.5 wrote it (no streaming keys, channelwatch positions)")
	mqtype := fs.Bool("mqtype", false, "add {rootPath}/config/mqtype naming the seeded WAL")
	demo := fs.Bool("demo", false, "seed heron demo's instance (sample.Demo) instead of sample.Build's")
	alterStage := fs.String("alter-stage", "", "add alter_wal_state (target kafka) in this stage to dml_0's consume checkpoint")
	pchannels := fs.String("pchannels", "", "move: comma-separated pchannels")
	prefix := fs.String("prefix", "", "dump only keys under this prefix")
	key := fs.String("key", "", "key to corrupt")
	file := fs.String("file", "", "wpseed: the fixture dump")
	situation := fs.String("situation", "healthy", "switched: the situation to seed")
	from := fs.String("from", "pulsar", "switched: the WAL before the switch")
	name := fs.String("name", "", "pchannel: its name")
	term := fs.Int64("term", 5, "switched, pchannel: the term of the pchannels")
	cacert := fs.String("cacert", "", "CA certificate (PEM): connect with TLS")
	cert := fs.String("cert", "", "client certificate (PEM)")
	keyFile := fs.String("key-file", "", "client key (PEM)")
	user := fs.String("user", "", "etcd user (password from $ETCDTOOL_PASSWORD)")
	writers := fs.Int("writers", 16, "storm: goroutines putting keys under --prefix")
	retention := fs.Int64("retention", 1000, "storm: compact to the revision less this")
	every := fs.Duration("every", 100*time.Millisecond, "storm: compaction interval")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := clientv3.Config{Endpoints: []string{*endpoint}, DialTimeout: 30 * time.Second}
	if *cacert != "" {
		tc, err := tlsConfig(*cacert, *cert, *keyFile)
		if err != nil {
			return err
		}
		cfg.TLS = tc
	}
	if *user != "" {
		cfg.Username, cfg.Password = *user, os.Getenv("ETCDTOOL_PASSWORD")
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return err
	}
	defer cli.Close()
	switch args[0] {
	case "seed":
		wal, err := msgid.Parse(*walName)
		if err != nil {
			return err
		}
		layout := models.NewLayout(*root, configs.DefaultMetaPath)
		in := sample.Build(layout, wal)
		if *demo {
			in = sample.Demo(layout, wal)
		}
		if *preStreaming {
			in = sampletest.PreStreaming(layout, wal)
		}
		if *mqtype {
			in.KVs[layout.Root("config/mqtype")] = []byte(msgid.Name(wal))
		}
		if *alterStage != "" {
			stage, ok := map[string]uint64{"none": 0, "flushing": 1, "advance-checkpoint": 2}[*alterStage]
			if !ok {
				return fmt.Errorf("unknown --alter-stage %q", *alterStage)
			}
			// streamingpb.AlterWALState (pkg/v2@v2.6.23 proto/streaming.proto):
			// target_wal_name 1, time_tick 2, configs 3, stage 4.
			entry := (&wire.Builder{}).String(1, "mq.type").String(2, "kafka").Build()
			st := (&wire.Builder{}).Varint(1, uint64(commonpb.WALName_Kafka)).Varint(2, sample.TSO(sample.Base, 0)).Message(3, entry).Varint(4, stage).Build()
			key := layout.Meta(models.ConsumeCheckpointKey(in.PChannels[0]))
			in.KVs[key] = (&wire.Builder{}).Raw(in.KVs[key]).Message(6, st).Build()
		}
		if _, err := instance.New(cli, layout, []string{*endpoint}).Load(ctx, in.KeyValues()); err != nil {
			return err
		}
		return addGate(ctx, cli, layout, wal, *gate)
	case "move":
		wal, err := msgid.Parse(*walName)
		if err != nil {
			return err
		}
		return move(ctx, cli, models.NewLayout(*root, configs.DefaultMetaPath), wal, strings.Split(*pchannels, ","))
	case "dump":
		resp, err := cli.Get(ctx, *prefix, clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
		if *prefix == "" {
			resp, err = cli.Get(ctx, "\x00", clientv3.WithFromKey(), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
		}
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			fmt.Printf("%s\t%s\n", kv.Key, hex.EncodeToString(kv.Value))
		}
		return nil
	case "load":
		return load(ctx, cli, *file)
	case "corrupt":
		_, err := cli.Put(ctx, *key, "\x0a\xff\xff not protobuf")
		return err
	case "wpseed":
		return wpseed(ctx, cli, *file)
	case "storm":
		if *prefix == "" {
			*prefix = "storm/"
		}
		return storm(cli, *prefix, *writers, *retention, *every)
	case "switched":
		to, err := msgid.Parse(*walName)
		if err != nil {
			return err
		}
		before, err := msgid.Parse(*from)
		if err != nil {
			return err
		}
		return switched(ctx, cli, models.NewLayout(*root, configs.DefaultMetaPath), before, to, *situation, *term)
	case "pchannel":
		layout := models.NewLayout(*root, configs.DefaultMetaPath)
		_, err := cli.Put(ctx, layout.Meta(models.PChannelPrefix+*name), string(sampletest.AssignedPChannel(*name, *term, 7, int32(models.PChannelAssigned), time.Now())))
		return err
	}
	return fmt.Errorf("unknown subcommand %q", args[0])
}

// load makes etcd hold exactly a dump (what dump prints): every key
// deleted, then the dump's keys put back.
func load(ctx context.Context, cli *clientv3.Client, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if _, err := cli.Delete(ctx, "\x00", clientv3.WithFromKey()); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		k, hv, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("%s: line %q is not KEY<TAB>HEX", file, line)
		}
		v, err := hex.DecodeString(hv)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", file, k, err)
		}
		if _, err := cli.Put(ctx, k, string(v)); err != nil {
			return err
		}
	}
	return nil
}

// wpseed puts the etcd keys of a woodpecker fixture dump (tests/wpfixtures).
func wpseed(ctx context.Context, cli *clientv3.Client, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var dump struct {
		Etcd []struct {
			Key   string `json:"key"`
			Value string `json:"value_base64"`
		} `json:"etcd"`
	}
	if err := json.Unmarshal(b, &dump); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for _, kv := range dump.Etcd {
		v, err := base64.StdEncoding.DecodeString(kv.Value)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", file, kv.Key, err)
		}
		if _, err := cli.Put(ctx, kv.Key, string(v)); err != nil {
			return err
		}
	}
	return nil
}

// move rewrites every position of pchannels to wal's earliest id with the
// models rewriters, key by key (not through heron's reset).
func move(ctx context.Context, cli *clientv3.Client, layout models.Layout, wal commonpb.WALName, pchannels []string) error {
	codec, err := msgid.For(wal)
	if err != nil {
		return err
	}
	id := codec.Earliest()
	in := map[string]bool{}
	for _, p := range pchannels {
		in[p] = true
	}
	resp, err := cli.Get(ctx, layout.MetaRoot(), clientv3.WithPrefix())
	if err != nil {
		return err
	}
	for _, kv := range resp.Kvs {
		rel, _ := layout.Rel(string(kv.Key))
		k := models.Classify(rel)
		var nv []byte
		switch k.Kind {
		case models.KindConsumeCheckpoint:
			if in[k.PChannel] {
				nv, err = models.RewriteWALCheckpoint(kv.Value, id)
			}
		case models.KindChannelCP:
			if pos, derr := models.DecodePosition(kv.Value); derr == nil && in[k.PChannel] && !models.IsDroppedChannelCP(pos) {
				nv, err = models.RewritePosition(kv.Value, id)
			}
		case models.KindSegment:
			if s, derr := models.DecodeSegmentInfo(kv.Value); derr == nil && in[models.PChannelOf(s.InsertChannel)] {
				nv, _, err = sampletest.RewriteSegmentPositions(kv.Value, id)
			}
		case models.KindCollectionInfo, models.KindLegacyCollection, models.KindSnapshotCollection:
			if !models.IsTombstone(kv.Value) {
				nv, _, err = sampletest.RewriteStartPositions(kv.Value, func(p string) bool { return in[p] }, id)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", kv.Key, err)
		}
		if nv != nil && string(nv) != string(kv.Value) {
			if _, err := cli.Put(ctx, string(kv.Key), string(nv)); err != nil {
				return err
			}
		}
	}
	return nil
}

func addGate(ctx context.Context, cli *clientv3.Client, layout models.Layout, wal commonpb.WALName, gate string) error {
	p0 := layout.RootPath + "-rootcoord-dml_0"
	v0 := p0 + "_100v0"
	put := func(rel string, v []byte, opts ...clientv3.OpOption) error {
		_, err := cli.Put(ctx, layout.Meta(rel), string(v), opts...)
		return err
	}
	segment := func(state commonpb.SegmentState) error {
		pos := sample.Position(v0, sample.ID(wal, 7), sample.TSO(sample.Base, 0), 0)
		return put(models.SegmentKey(100, 101, 1009), sample.Segment{ID: 1009, Collection: 100, Partition: 101,
			Channel: v0, Rows: 5, State: state, Start: pos}.Encode())
	}
	switch gate {
	case "":
		return nil
	case "live-session":
		lease, err := cli.Grant(ctx, 120)
		if err != nil {
			return err
		}
		return put(models.SessionPrefix+"querycoord", []byte(`{"ServerID":3,"ServerName":"querycoord","Address":"10.0.0.3:19531"}`), clientv3.WithLease(lease.ID))
	case "growing":
		return segment(commonpb.SegmentState_Growing)
	case "sealed":
		return segment(commonpb.SegmentState_Sealed)
	case "flushing":
		return segment(commonpb.SegmentState_Flushing)
	case "segment-assign":
		return put(models.SegmentAssignPrefix(p0)+"1010", sampletest.SegmentAssignment(100, 101, 1010, v0))
	case "broadcast-pending":
		return put(models.BroadcastTaskPrefix+"2", sample.BroadcastTask(int32(models.BroadcastPending)))
	case "broadcast-waitack":
		return put(models.BroadcastTaskPrefix+"2", sample.BroadcastTask(int32(models.BroadcastWaitAck)))
	case "broadcast-replicated":
		return put(models.BroadcastTaskPrefix+"2", sample.BroadcastTask(int32(models.BroadcastReplicated)))
	}
	return fmt.Errorf("unknown --gate %q", gate)
}

func tlsConfig(ca, cert, key string) (*tls.Config, error) {
	pem, err := os.ReadFile(ca)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", ca)
	}
	tc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// switched seeds an instance that was switched from before to wal and
// restarted, in a situation `check` judges (see the package comment).
func switched(ctx context.Context, cli *clientv3.Client, layout models.Layout, before, wal commonpb.WALName, situation string, term int64) error {
	now := time.Now()
	seedWAL := wal
	if situation == "pre" || strings.HasPrefix(situation, "online-") {
		seedWAL = before
	}
	in := sample.Build(layout, seedWAL)
	put := func(rel string, v []byte) { in.KVs[layout.Meta(rel)] = v }
	recent := sample.TSO(now, 0) // after the backup of the "pre" situation
	node := int64(7)
	for i, p := range in.PChannels {
		cpWAL, tick := wal, recent
		switch {
		case situation == "pre":
			cpWAL, tick = before, sample.TSO(sample.Base.Add(time.Hour), 0)
		case strings.HasPrefix(situation, "online-"):
			cpWAL = before
		case situation == "old-wal" && i == 0:
			cpWAL = before
		case situation == "tick-back" && i == 0:
			tick = sample.TSO(sample.Base, 0)
		}
		cp := sample.Checkpoint{ID: sample.ID(cpWAL, int64(50+i)), TimeTick: tick, RecoveryMagic: 1}
		if i == 2 {
			cp.Replicate = true
		}
		v := cp.Encode()
		if stage, ok := map[string]uint64{"online-flushing": 1, "online-advance": 2, "online-early-mqtype": 1, "online-secrets": 1}[situation]; ok {
			// streamingpb.AlterWALState (pkg/v2@v2.6.23 proto/streaming.proto):
			// target_wal_name 1, time_tick 2, configs 3, stage 4.
			e1 := (&wire.Builder{}).String(1, "mq.type").String(2, msgid.Name(wal)).Build()
			e2 := (&wire.Builder{}).String(1, "kafka.saslPassword").String(2, "hunter2-secret").Build()
			st := (&wire.Builder{}).Varint(1, uint64(wal)).Varint(2, recent).Message(3, e1).Message(3, e2).Varint(4, stage).Build()
			v = (&wire.Builder{}).Raw(v).Message(6, st).Build()
		}
		put(models.ConsumeCheckpointKey(p), v)
		state, n := int32(models.PChannelAssigned), node
		switch {
		case situation == "pre":
			term = int64(i + 1)
		case situation == "unassigned" && i == 0:
			state, n = int32(models.PChannelUninitialized), 0
		case situation == "no-session" && i == 1:
			n = 8
		}
		put(models.PChannelPrefix+p, sampletest.AssignedPChannel(p, term, n, state, now))
	}
	if situation != "pre" {
		chTS := recent
		if situation == "lag" {
			chTS = sample.TSO(now.Add(-time.Hour), 0)
		}
		for n, v := range []string{in.PChannels[0] + "_100v0", in.PChannels[1] + "_100v1"} {
			put(models.ChannelCPKey(v), sample.Position(v, sample.ID(seedWAL, int64(40+n)), chTS, seedWAL))
		}
	}
	switch situation {
	case "dropped-only":
		delete(in.KVs, layout.Meta(models.ChannelCPKey(in.PChannels[0]+"_100v0")))
		delete(in.KVs, layout.Meta(models.ChannelCPKey(in.PChannels[1]+"_100v1")))
	case "broadcast-pending":
		put(models.BroadcastTaskPrefix+"2", sample.BroadcastTask(int32(models.BroadcastPending)))
	case "unregistered":
		delete(in.KVs, layout.Meta(models.VChannelMetaKey(in.PChannels[0], in.PChannels[0]+"_100v0")))
	case "online-flushing", "online-advance", "online-early-mqtype", "online-secrets":
		put(models.BroadcastTaskPrefix+"3", sampletest.AlterWALTask(int32(models.BroadcastPending), wal,
			map[string]string{"mq.type": msgid.Name(wal), "kafka.saslPassword": "hunter2-secret"}, in.VChannels, 1))
	}
	mq := wal
	if situation == "pre" || (strings.HasPrefix(situation, "online-") && situation != "online-early-mqtype") {
		mq = before
	}
	in.KVs[layout.Root(models.MQTypeConfigKey)] = []byte(msgid.Name(mq))
	if _, err := instance.New(cli, layout, nil).Load(ctx, in.KeyValues()); err != nil {
		return err
	}
	if situation == "pre" {
		return nil
	}
	lease, err := cli.Grant(ctx, 120)
	if err != nil {
		return err
	}
	_, err = cli.Put(ctx, layout.Meta(models.StreamingNodeSessionKey(node)), string(sample.Session(node, models.StreamingNodeRole, "10.0.0.7:22222")), clientv3.WithLease(lease.ID))
	return err
}
