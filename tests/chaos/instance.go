package chaos

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/tests/sampletest"
)

// The instance every schedule runs on: root by-dev, heron demo's instance
// (sample.Demo) and the damage the schedule seeds; beside it, under
// by-dev2/, another instance (sample.Build) no command may touch.
const (
	rootPath    = "by-dev"
	siblingRoot = "by-dev2"
	// replicaCluster is the cluster of the stale replicating-pchannel
	// record (not in the replicate configuration): what remove
	// replicate-pchannel removes.
	replicaCluster = "old"
	// The prefixes of keys the fault injectors write outside the
	// instance: never the instance's, so never heron's.
	fillPrefix  = "chaos-fill/"
	stormPrefix = "chaos-storm/"
)

// sampleVChannels are sample.Build's vchannels (books' two, movies', logs').
var sampleVChannels = []string{"by-dev-rootcoord-dml_0_100v0", "by-dev-rootcoord-dml_1_100v1", "by-dev-rootcoord-dml_1_200v0", "by-dev-rootcoord-dml_2_300v0"}

// seedValues is the schedule's instance and its sibling, every key and
// value (real protobuf bytes from models/sample).
func seedValues(s Schedule) (state, error) {
	wal, err := msgid.Parse(s.WAL)
	if err != nil {
		return nil, err
	}
	layout := models.NewLayout(rootPath, configs.DefaultMetaPath)
	in := sample.Demo(layout, wal)
	if got := in.VChannels; len(got) != len(sampleVChannels) || got[0] != sampleVChannels[0] {
		return nil, fmt.Errorf("sample vchannels are %v, not %v", got, sampleVChannels)
	}
	meta := layout.Meta
	base := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for j := range s.Segments {
		id := int64(5000 + j)
		v := sampleVChannels[j%2]
		ts := sample.TSO(base.Add(time.Duration(j)*time.Second), 0)
		in.KVs[meta(models.SegmentKey(100, 101, id))] = sample.Segment{
			ID: id, Collection: 100, Partition: 101, Channel: v, Rows: 100 + id, State: commonpb.SegmentState_Flushed,
			Start: sample.Position(v, sample.ID(wal, id), ts, commonpb.WALName_Unknown),
			DML:   sample.Position(v, sample.ID(wal, id+1), ts+1, commonpb.WALName_Unknown), Level: 2,
		}.Encode()
	}
	pchannelOf := func(v string) string { return v[:strings.LastIndex(v, "_")] }
	for _, v := range sampleVChannels[:s.SchemasLost] {
		prefix := meta(models.VChannelSchemaPrefix(pchannelOf(v), v))
		for k := range in.KVs {
			if strings.HasPrefix(k, prefix) {
				delete(in.KVs, k)
			}
		}
	}
	if s.RegistrationGone {
		v := sampleVChannels[0]
		delete(in.KVs, meta(models.VChannelMetaKey(pchannelOf(v), v)))
	}
	if s.PendingTask {
		in.KVs[meta(models.BroadcastTaskPrefix+"2")] = sampletest.AlterWALTask(int32(models.BroadcastPending), commonpb.WALName_Kafka, nil, sampleVChannels[:2], 1)
	}
	if s.Replicating {
		p0 := in.PChannels[0]
		in.KVs[meta(models.ReplicatingPChannelKey(replicaCluster, p0))] = sampletest.ReplicatingPChannel(p0, replicaCluster+"-rootcoord-dml_0", replicaCluster)
	}
	out := state(in.KVs)
	for k, v := range sample.Build(models.NewLayout(siblingRoot, configs.DefaultMetaPath), wal).KVs {
		out[k] = v
	}
	return out, nil
}

// load puts values into etcd (empty before), a few keys a transaction.
func load(ctx context.Context, cli *clientv3.Client, values state) error {
	var ops []clientv3.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err := cli.Txn(cctx).Then(ops...).Commit()
		ops = ops[:0]
		return err
	}
	for k, v := range values {
		ops = append(ops, clientv3.OpPut(k, string(v)))
		if len(ops) == 100 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
