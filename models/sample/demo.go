package sample

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/wire"
)

// WoodpeckerMetaPart is where woodpecker v0.1.30+ keeps its metadata, under
// the root path with the default woodpecker.meta.prefix
// (shared/milvus-metadata.md section 7): {root}/woodpecker/.
const WoodpeckerMetaPart = "woodpecker/"

// Demo returns Build's instance with what the other show commands list, so
// that `heron demo` has rows for each: the databases, partitions, field
// indexes with their segment index builds, replicas and channel watches of
// its collections, mq-unrelated config overrides, sessions left by stopped
// components (no lease), and, on a pulsar or kafka instance, woodpecker logs
// left from an earlier run on woodpecker (under {root}/woodpecker/logs/: one
// with sealed segments, one truncated without segments, one with an active
// segment). The extra keys are no position heron rewrites.
func Demo(layout models.Layout, wal commonpb.WALName) *Instance {
	in := Build(layout, wal)
	ts := func(minutes int) uint64 { return TSO(Base.Add(time.Duration(minutes)*time.Minute), 0) }
	v := func(pchannel int, coll int64, shard int) string {
		return fmt.Sprintf("%s_%dv%d", in.PChannels[pchannel], coll, shard)
	}

	in.put(models.DatabasePrefix+"0", Database(0, "default", ts(0)))
	in.put(models.DatabasePrefix+"1", Database(1, "library", ts(0), "database.replica.number", "1"))

	for _, p := range []struct {
		coll, id int64
		name     string
	}{{100, 101, "_default"}, {100, 102, "2026"}, {200, 201, "_default"}, {300, 301, "_default"}} {
		in.put(fmt.Sprintf("%s%d/%d", models.PartitionPrefix, p.coll, p.id), Partition(p.coll, p.id, p.name, ts(1)))
	}

	in.put(models.FieldIndexPrefix+"100/500", FieldIndex(100, 101, 500, "vector_hnsw", ts(2), "HNSW", "L2"))
	in.put(models.FieldIndexPrefix+"200/501", FieldIndex(200, 101, 501, "vector_ivf", ts(2), "IVF_FLAT", "IP"))
	for _, s := range []struct {
		coll, seg, index, build int64
		state                   commonpb.IndexState
	}{{100, 1001, 500, 9001, commonpb.IndexState_Finished}, {100, 1002, 500, 9002, commonpb.IndexState_Finished}, {200, 2001, 501, 9003, commonpb.IndexState_InProgress}} {
		in.put(fmt.Sprintf("%s%d/%d/%d/%d", models.SegmentIndexPrefix, s.coll, s.coll+1, s.seg, s.build),
			SegmentIndex(s.coll, s.coll+1, s.seg, s.index, s.build, s.state, ts(3)))
	}

	in.put(models.ReplicaPrefix+"100/600", Replica(600, 100, []int64{5, 8}, map[string][]int64{v(0, 100, 0): {5}, v(1, 100, 1): {8}}))
	in.put(models.ReplicaPrefix+"200/601", Replica(601, 200, []int64{5}, map[string][]int64{v(1, 200, 0): {5}}))

	in.put(models.ChannelWatchPrefix+"4/"+v(0, 100, 0), ChannelWatch(100, v(0, 100, 0),
		Position(v(0, 100, 0), ID(wal, 40), ts(55), commonpb.WALName_Unknown), []int64{1001}, []int64{1003}))
	in.put(models.ChannelWatchPrefix+"4/"+v(1, 100, 1), ChannelWatch(100, v(1, 100, 1),
		Position(v(1, 100, 1), ID(wal, 41), ts(55), commonpb.WALName_Unknown), []int64{1002}, nil))

	for k, val := range map[string]string{"dataCoord/segment/maxSize": "2048", "quotaAndLimits/dml/enabled": "true"} {
		in.KVs[layout.Root(models.ConfigPrefix+k)] = []byte(val)
	}

	for _, s := range []struct {
		key, role string
		id        int64
		addr      string
	}{{"mixcoord", "mixcoord", 1, "10.0.0.11:53100"}, {"proxy-3", "proxy", 3, "10.0.0.13:19530"},
		{"querynode-5", "querynode", 5, "10.0.0.15:21123"}, {"streamingnode-6", "streamingnode", 6, "10.0.0.16:22222"}} {
		in.put(models.SessionPrefix+s.key, Session(s.id, s.role, s.addr))
	}

	// The replication dml_2's consume checkpoint takes part in (its
	// replicate_config and replicate_checkpoint, Checkpoint.Replicate):
	// by-dev-primary replicating to this instance, by-dev-standby.
	var primaryPChannels []string
	for i := range in.PChannels {
		primaryPChannels = append(primaryPChannels, fmt.Sprintf("primary-rootcoord-dml_%d", i))
	}
	in.put(models.ReplicateConfiguration, ReplicateConfigurationMeta(
		&commonpb.MilvusCluster{ClusterId: "by-dev-primary", Pchannels: primaryPChannels,
			ConnectionParam: &commonpb.ConnectionParam{Uri: "http://milvus-primary:19530", Token: "root:demo-token"}},
		&commonpb.MilvusCluster{ClusterId: "by-dev-standby", Pchannels: slices.Clone(in.PChannels),
			ConnectionParam: &commonpb.ConnectionParam{Uri: "http://milvus-standby:19530"}}))

	if wal == commonpb.WALName_Pulsar || wal == commonpb.WALName_Kafka {
		in.seedWoodpecker()
	}
	return in
}

// ReplicateConfigurationMeta encodes a streamingpb.ReplicateConfigurationMeta
// whose replicate_configuration (field 1, models/replicate.go) holds the
// clusters, the first replicating to each of the others.
func ReplicateConfigurationMeta(source *commonpb.MilvusCluster, targets ...*commonpb.MilvusCluster) []byte {
	rc := &commonpb.ReplicateConfiguration{Clusters: append([]*commonpb.MilvusCluster{source}, targets...)}
	for _, t := range targets {
		rc.CrossClusterTopology = append(rc.CrossClusterTopology, &commonpb.CrossClusterTopology{SourceClusterId: source.GetClusterId(), TargetClusterId: t.GetClusterId()})
	}
	b, _ := proto.Marshal(rc)
	var m wire.Builder
	return m.Message(1, b).Build()
}

// seedWoodpecker writes woodpecker logs of the instance's pchannels: dml_0
// with a truncation point and two segments, dml_1 truncated with no segment
// left (not fresh either: section 7), dml_2 with one active segment.
func (in *Instance) seedWoodpecker() {
	wp := func(rel string, v []byte) { in.KVs[in.Layout.Root(WoodpeckerMetaPart+rel)] = v }
	created := uint64(Base.Add(-24 * time.Hour).Unix())
	ms := func(minutes int) int64 { return Base.Add(time.Duration(minutes) * time.Minute).UnixMilli() }
	wp("logidgen", []byte(strconv.Itoa(len(in.PChannels))))
	logs := "logs/"
	p := in.PChannels
	wp(logs+p[0], WoodpeckerLog{ID: 1, Created: created, Modified: created + 3600, TruncatedSegment: 1, TruncatedEntry: 41}.Encode())
	wp(logs+p[0]+"/segments/2", WoodpeckerSegment{No: 2, State: WoodpeckerCompleted, Created: ms(-90), Completed: ms(-60), LastEntry: 63, Size: 48 << 10, Quorum: 1, Node: "10.0.0.16:18080"}.Encode())
	wp(logs+p[0]+"/segments/3", WoodpeckerSegment{No: 3, State: WoodpeckerSealed, Created: ms(-60), Completed: ms(-30), Sealed: ms(-29), LastEntry: 17, Size: 12 << 10, Quorum: 2, Node: "10.0.0.16:18080"}.Encode())
	wp(logs+p[1], WoodpeckerLog{ID: 2, Created: created, Modified: created + 7200, TruncatedSegment: 4, TruncatedEntry: 99}.Encode())
	wp(logs+p[2], WoodpeckerLog{ID: 3, Created: created, Modified: created, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	wp(logs+p[2]+"/segments/0", WoodpeckerSegment{No: 0, State: WoodpeckerActive, Created: ms(-10), LastEntry: 5, Size: 2 << 10, Quorum: 3, Node: "10.0.0.16:18080"}.Encode())
}

// Database encodes an etcdpb.DatabaseInfo in state DatabaseCreated with
// properties given as key, value pairs.
func Database(id int64, name string, created uint64, props ...string) []byte {
	var b wire.Builder
	b.String(2, name)
	if id != 0 {
		b.Varint(3, uint64(id))
	}
	b.Varint(4, 1).Varint(5, created)
	for i := 0; i+1 < len(props); i += 2 {
		b.Message(6, keyValue(props[i], props[i+1]))
	}
	return b.Build()
}

// Partition encodes an etcdpb.PartitionInfo in state PartitionCreated (0).
func Partition(collection, id int64, name string, created uint64) []byte {
	var b wire.Builder
	return b.Varint(1, uint64(id)).String(2, name).Varint(3, created).Varint(4, uint64(collection)).Build()
}

// FieldIndex encodes an indexpb.FieldIndex of a vector field.
func FieldIndex(collection, field, index int64, name string, created uint64, indexType, metric string) []byte {
	var info wire.Builder
	info.Varint(1, uint64(collection)).Varint(2, uint64(field)).String(3, name).Varint(4, uint64(index)).
		Message(5, keyValue("dim", "128")).
		Message(6, keyValue("index_type", indexType)).Message(6, keyValue("metric_type", metric)).
		Message(12, keyValue("index_type", indexType)).Message(12, keyValue("metric_type", metric))
	var b wire.Builder
	return b.Message(1, info.Build()).Varint(3, created).Build()
}

// SegmentIndex encodes an indexpb.SegmentIndex: one index build of a segment.
func SegmentIndex(collection, partition, segment, index, build int64, state commonpb.IndexState, created uint64) []byte {
	var b wire.Builder
	b.Varint(1, uint64(collection)).Varint(2, uint64(partition)).Varint(3, uint64(segment)).Varint(4, 1000).
		Varint(5, uint64(index)).Varint(6, uint64(build)).Varint(7, 5).Varint(8, 1).Varint(9, uint64(state))
	if state == commonpb.IndexState_Finished {
		b.String(11, "HNSW_0").String(11, "HNSW_1")
	}
	b.Varint(13, created)
	if state == commonpb.IndexState_Finished {
		b.Varint(14, 1<<20)
	}
	return b.Build()
}

// Replica encodes a querypb.Replica in the default resource group, with the
// read-write nodes of each channel.
func Replica(id, collection int64, nodes []int64, channels map[string][]int64) []byte {
	var b wire.Builder
	b.Varint(1, uint64(id)).Varint(2, uint64(collection)).Bytes(3, packed(nodes)).String(4, "__default_resource_group")
	for _, ch := range slices.Sorted(maps.Keys(channels)) {
		var info wire.Builder
		info.Bytes(6, packed(channels[ch]))
		var entry wire.Builder
		b.Message(6, entry.String(1, ch).Message(2, info.Build()).Build())
	}
	return b.Build()
}

// ChannelWatch encodes a datapb.ChannelWatchInfo in state WatchSuccess whose
// VchannelInfo has the seek position (also its delete checkpoint) and the
// flushed and dropped segment ids.
func ChannelWatch(collection int64, vchannel string, seek []byte, flushed, dropped []int64) []byte {
	var vi wire.Builder
	vi.Varint(1, uint64(collection)).String(2, vchannel).Message(3, seek).Bytes(8, packed(flushed))
	if len(dropped) > 0 {
		vi.Bytes(9, packed(dropped))
	}
	vi.Message(14, seek)
	var b wire.Builder
	return b.Message(1, vi.Build()).Varint(2, uint64(Base.Unix())).Varint(3, 3).Varint(7, 1).Build()
}

// Session encodes a component's session as Milvus's sessionutil writes it
// (JSON; a stopped component's key has no lease).
func Session(id int64, role, address string) []byte {
	b, _ := json.Marshal(struct {
		ServerID    int64
		ServerName  string
		Address     string
		Exclusive   bool
		TriggerKill bool
		Version     string
		HostName    string
	}{id, role, address, role == "mixcoord", true, "2.6.23", "milvus-" + role + "-0"})
	return b
}

func keyValue(k, v string) []byte {
	var b wire.Builder
	return b.String(1, k).String(2, v).Build()
}

func packed(ids []int64) []byte {
	var b []byte
	for _, id := range ids {
		b = protowire.AppendVarint(b, uint64(id))
	}
	return b
}
