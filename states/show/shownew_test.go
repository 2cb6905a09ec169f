package show

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// showProtosFile holds the values of the show key kinds marshaled by Milvus's
// own generated types (tests/golden/protos_show.go).
const showProtosFile = "../../tests/golden/testdata/show_protos.json"

// showGolden returns the golden value typ/name.
func showGolden(t *testing.T, typ, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(showProtosFile)
	require.NoError(t, err)
	var vs []struct{ Type, Name, Hex string }
	require.NoError(t, json.Unmarshal(raw, &vs))
	for _, v := range vs {
		if v.Type == typ && v.Name == name {
			b, err := hex.DecodeString(v.Hex)
			require.NoError(t, err)
			return b
		}
	}
	t.Fatalf("no golden %s/%s", typ, name)
	return nil
}

// The ids and channels of tests/golden/protos_show.go.
const (
	snColl    int64 = 451234567890123456
	snPart    int64 = 451234567890123457
	snSeg     int64 = 451234567890123460
	snSeg2    int64 = 451234567890123461
	snIndex   int64 = 451234567890123500
	snBuild   int64 = 451234567890123510
	snReplica int64 = 451234567890123520
	snVch0          = "by-dev-rootcoord-dml_0_451234567890123456v0"
	snVch1          = "by-dev-rootcoord-dml_1_451234567890123456v1"
)

var corrupt = []byte{0x0a, 0x05, 0x01} // a length that runs past the value

// putRoot writes a key relative to the root path.
func (e *env) putRoot(rel string, v []byte) {
	e.t.Helper()
	if _, err := e.cli.Put(ctxT(e.t), e.inst.Layout.Root(rel), string(v)); err != nil {
		e.t.Fatal(err)
	}
}

// empty is an etcd holding nothing.
func empty(t *testing.T) *env {
	cli, endpoint := etcdtest.Start(t)
	inst := instance.New(cli, models.NewLayout("by-dev", "meta"), []string{endpoint})
	inst.PageSize = 3
	return &env{t: t, cli: cli, inst: inst}
}

func TestShowDatabase(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	e.put(models.DatabasePrefix+"1", showGolden(t, "etcdpb.DatabaseInfo", "default"))
	e.put(models.DatabasePrefix+"451234567890123490", showGolden(t, "etcdpb.DatabaseInfo", "with_properties"))
	e.put(models.DatabasePrefix+"9", corrupt)
	e.put(models.DatabasePrefix+"10", models.CollectionTombstone)

	res, stderr := runJSON[DatabaseResult](e, "show database")
	require.Len(t, res.Databases, 4)
	by := map[int64]DatabaseRow{}
	for _, d := range res.Databases {
		by[d.ID] = d
	}
	// The sample's collections of db 1: books and logs (the dropped one is a tombstone).
	assert.Equal(t, DatabaseRow{ID: 1, Name: "default", State: "DatabaseCreated", CreatedTime: 456789012345671680, Time: tsoTime(456789012345671680),
		Properties: []models.KeyValue{}, Collections: 2, Key: models.DatabasePrefix + "1"}, by[1])
	a := by[451234567890123490]
	assert.Equal(t, "analytics", a.Name)
	assert.Equal(t, "tenant-a", a.TenantID)
	assert.Equal(t, []models.KeyValue{{Key: "database.replica.number", Value: "2"}, {Key: "database.max.collections", Value: "64"}}, a.Properties)
	assert.Zero(t, a.Collections)
	assert.NotEmpty(t, by[9].Error, "corrupt value marked")
	assert.True(t, by[10].Tombstone)
	assert.Equal(t, 1, res.Undecoded)
	assert.Contains(t, stderr, "warning: database "+models.DatabasePrefix+"9 does not decode")

	table, _ := e.mustRun("show database")
	assert.Contains(t, table, "4 database(s), 1 not decoded")
	assert.Contains(t, table, "  database....", "a cut list keeps its start")
	wide, _ := e.mustRun("show database --wide")
	assert.Contains(t, wide, "database.replica.number=2,database.max.collections=64")
	lines, _ := e.mustRun("show database --format line")
	assert.Contains(t, lines, "kind=database id=1 name=default")
	assert.Contains(t, lines, "kind=databases count=4 undecoded=1")

	ee := empty(t)
	res, _ = runJSON[DatabaseResult](ee, "show database")
	assert.Empty(t, res.Databases)
	out, _ := ee.mustRun("show database --format line")
	assert.Equal(t, "kind=databases count=0 undecoded=0\n", out)
}

func partitionValue(coll, id int64, name string, state uint64) []byte {
	var b wire.Builder
	return b.Varint(1, uint64(id)).String(2, name).Varint(3, 456789012345671680).Varint(4, uint64(coll)).Varint(5, state).Build()
}

func TestShowPartition(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	e.put(models.PartitionPrefix+fmt.Sprintf("%d/%d", snColl, snPart), showGolden(t, "etcdpb.PartitionInfo", "default"))
	e.put(models.PartitionPrefix+fmt.Sprintf("%d/%d", snColl, snPart+1), showGolden(t, "etcdpb.PartitionInfo", "dropping"))
	e.put(models.PartitionPrefix+"100/101", partitionValue(100, 101, "_default", 0))
	e.put(models.PartitionPrefix+"100/102", models.CollectionTombstone)
	e.put(models.PartitionPrefix+"100/103", corrupt)
	// A collection id that is a prefix of another's must not match it.
	e.put(models.PartitionPrefix+"1000/1001", partitionValue(1000, 1001, "other", 0))

	res, stderr := runJSON[PartitionResult](e, "show partition")
	assert.Len(t, res.Partitions, 6)
	assert.Equal(t, 1, res.Undecoded)
	assert.Contains(t, stderr, "partition "+models.PartitionPrefix+"100/103 does not decode")

	res, _ = runJSON[PartitionResult](e, fmt.Sprintf("show partition --collection %d", snColl))
	require.Len(t, res.Partitions, 2)
	assert.Equal(t, PartitionRow{Collection: snColl, ID: snPart, Name: "_default", State: "PartitionCreated", CreatedTime: 456789012345671680,
		Time: tsoTime(456789012345671680), Key: models.PartitionPrefix + fmt.Sprintf("%d/%d", snColl, snPart)}, res.Partitions[0])
	assert.Equal(t, "PartitionDropping", res.Partitions[1].State)
	assert.Equal(t, "p2026", res.Partitions[1].Name)

	res, _ = runJSON[PartitionResult](e, "show partition --collection 100")
	require.Len(t, res.Partitions, 3)
	assert.Equal(t, "_default", res.Partitions[0].Name)
	assert.True(t, res.Partitions[1].Tombstone)
	assert.Equal(t, tombstoneState, res.Partitions[1].State)
	assert.NotEmpty(t, res.Partitions[2].Error)

	table, _, code, err := e.run("show partition --collection 100")
	assert.Equal(t, 0, code, "a corrupt value is not a failure: %v", err)
	assert.Contains(t, table, "3 partition(s), 1 not decoded")
	assert.Contains(t, table, "error: not a PartitionInfo")

	res, _ = runJSON[PartitionResult](e, "show partition --collection 555")
	assert.Empty(t, res.Partitions)
	out, _ := e.mustRun("show partition --collection 555")
	assert.Contains(t, out, "0 partition(s)")
}

func channelWatchValue(coll int64, vchannel string, seek, deleteCP []byte, state uint64, unflushed ...int64) []byte {
	var packed []byte
	for _, id := range unflushed {
		packed = protowire.AppendVarint(packed, uint64(id))
	}
	var v wire.Builder
	v.Varint(1, uint64(coll)).String(2, vchannel).Message(3, seek).Bytes(7, packed)
	if deleteCP != nil {
		v.Message(14, deleteCP)
	}
	var b wire.Builder
	return b.Message(1, v.Build()).Varint(2, 1767225600).Varint(3, state).Varint(7, 42).Build()
}

func TestShowChannelWatch(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	v0 := e.pch(0) + "_100v0"
	// Positions without WAL_name, as datacoord writes them: decoded with the
	// WAL of dml_0's consume checkpoint (pulsar).
	e.put(models.ChannelWatchPrefix+"5/"+v0, channelWatchValue(100, v0,
		sample.Position(v0, sample.ID(commonpb.WALName_Pulsar, 7), ts(30), commonpb.WALName_Unknown),
		sample.Position(v0, sample.ID(commonpb.WALName_Pulsar, 6), ts(29), commonpb.WALName_Unknown), 3, 1001, 1002))
	// Milvus's own bytes, with WAL_name WoodPecker: decoded as woodpecker whatever the checkpoint says.
	e.put(models.ChannelWatchPrefix+"7/"+snVch1, showGolden(t, "datapb.ChannelWatchInfo", "to_release_woodpecker"))
	e.put(models.ChannelWatchPrefix+"8/"+e.pch(1)+"_200v0", corrupt)
	e.put(models.ChannelWatchPrefix+"not-a-node-key", []byte("x"))

	res, stderr := runJSON[ChannelWatchResult](e, "show channel-watch")
	require.Len(t, res.Watches, 3)
	w := res.Watches[0]
	assert.Equal(t, int64(5), w.Node)
	assert.Equal(t, v0, w.VChannel)
	assert.Equal(t, int64(100), w.Collection)
	assert.Equal(t, "WatchSuccess", w.State)
	assert.Equal(t, int64(42), w.OpID)
	assert.Equal(t, 2, w.Unflushed)
	require.NotNil(t, w.SeekPosition)
	assert.Equal(t, WatchPositionRow{Channel: v0, PositionRow: PositionRow{WAL: "pulsar", WALGuessed: true,
		MessageIDHex: hex.EncodeToString(sample.ID(commonpb.WALName_Pulsar, 7).Bytes()), MessageIDBase64: base64.StdEncoding.EncodeToString(sample.ID(commonpb.WALName_Pulsar, 7).Bytes()),
		MessageIDHuman: human(commonpb.WALName_Pulsar, 7),
		Timestamp:      ts(30), Time: tsoTime(ts(30))}}, *w.SeekPosition)
	require.NotNil(t, w.DeleteCheckpoint)
	assert.Equal(t, human(commonpb.WALName_Pulsar, 6), w.DeleteCheckpoint.MessageIDHuman)
	assert.Equal(t, ts(29), w.DeleteCheckpoint.Timestamp)

	g := res.Watches[1]
	assert.Equal(t, int64(7), g.Node)
	assert.Equal(t, snColl, g.Collection)
	assert.Equal(t, "ToRelease", g.State)
	assert.Equal(t, [3]int{1, 2, 1}, [3]int{g.Unflushed, g.Flushed, g.Dropped})
	assert.Equal(t, "woodpecker", g.SeekPosition.WAL)
	assert.False(t, g.SeekPosition.WALGuessed)
	assert.Equal(t, "3:12", g.SeekPosition.MessageIDHuman)
	assert.Equal(t, "3:12", g.DeleteCheckpoint.MessageIDHuman)

	bad := res.Watches[2]
	assert.Equal(t, int64(8), bad.Node)
	assert.NotEmpty(t, bad.Error)
	assert.Nil(t, bad.SeekPosition)
	assert.Equal(t, 1, res.Undecoded)
	assert.Contains(t, stderr, "warning: channel watch "+models.ChannelWatchPrefix+"8/")
	assert.Contains(t, stderr, "not-a-node-key is not a channelwatch/{node}/{vchannel} key")

	table, _ := e.mustRun("show channel-watch")
	assert.Contains(t, table, "...", "the default table elides wide cells")
	table, _ = e.mustRun("show channel-watch --wide")
	assert.Contains(t, table, human(commonpb.WALName_Pulsar, 7)+" (pulsar?) @ "+tsoTime(ts(30)))
	assert.Contains(t, table, "3:12 (woodpecker) @")
	assert.Contains(t, table, "3 channel watch(es), 1 not decoded")
	lines, _ := e.mustRun("show channel-watch --format line")
	assert.Contains(t, lines, "kind=channel-watch node=7 vchannel="+snVch1)
	assert.Contains(t, lines, "kind=channel-watches count=3 undecoded=1")

	// A position that names no WAL on a pchannel without a consume checkpoint.
	ee := empty(t)
	ee.put(models.ChannelWatchPrefix+"1/x-dml_9_1v0", channelWatchValue(1, "x-dml_9_1v0",
		sample.Position("x-dml_9_1v0", sample.ID(commonpb.WALName_Kafka, 1), ts(1), commonpb.WALName_Unknown), nil, 2))
	r2, stderr := runJSON[ChannelWatchResult](ee, "show channel-watch")
	require.Len(t, r2.Watches, 1)
	assert.Contains(t, r2.Watches[0].SeekPosition.Error, "names no WAL")
	assert.Contains(t, stderr, "names no WAL")

	r3, _ := runJSON[ChannelWatchResult](empty(t), "show channel-watch")
	assert.Empty(t, r3.Watches)
}

func TestShowReplica(t *testing.T) {
	e := seeded(t, commonpb.WALName_RocksMQ)
	e.put(models.ReplicaPrefix+fmt.Sprintf("%d/%d", snColl, snReplica), showGolden(t, "querypb.Replica", "two_channels"))
	e.put(models.ReplicaPrefix+fmt.Sprintf("%d/%d", snColl, snReplica+1), showGolden(t, "querypb.Replica", "minimal"))
	e.put(models.ReplicaPrefix+"100/3", corrupt)

	res, stderr := runJSON[ReplicaResult](e, "show replica")
	require.Len(t, res.Replicas, 3)
	// Keys come in etcd order: "100/3" before "4512.../...".
	assert.NotEmpty(t, res.Replicas[0].Error)
	assert.Equal(t, int64(3), res.Replicas[0].ID)
	r := res.Replicas[1]
	assert.Equal(t, ReplicaRow{ID: snReplica, Collection: snColl, ResourceGroup: "__default_resource_group", Nodes: []int64{3, 4}, RONodes: []int64{5},
		RWSQNodes: []int64{7}, ROSQNodes: []int64{8, 9},
		ChannelNodes: []models.ChannelNodes{{Channel: snVch0, RWNodes: []int64{3, 4}}, {Channel: snVch1, RWNodes: []int64{4}}},
		Key:          models.ReplicaPrefix + fmt.Sprintf("%d/%d", snColl, snReplica)}, r)
	assert.Equal(t, "rg1", res.Replicas[2].ResourceGroup)
	assert.Contains(t, stderr, "warning: replica "+models.ReplicaPrefix+"100/3 does not decode")

	table, _ := e.mustRun("show replica")
	assert.Contains(t, table, "  dml_0_451...", "vchannels by the part that tells them apart, a cut list keeps its start")
	wide, _ := e.mustRun("show replica --wide")
	assert.Contains(t, wide, snVch0+"=3,4 "+snVch1+"=4")
	assert.Contains(t, table, "3 replica(s), 1 not decoded")

	r2, _ := runJSON[ReplicaResult](empty(t), "show replica")
	assert.Empty(t, r2.Replicas)
}

func segmentIndexValue(coll, part, seg, index, build int64, state commonpb.IndexState, deleted bool) []byte {
	var b wire.Builder
	b.Varint(1, uint64(coll)).Varint(2, uint64(part)).Varint(3, uint64(seg)).Varint(5, uint64(index)).Varint(6, uint64(build)).Varint(9, uint64(state))
	if deleted {
		b.Varint(12, 1)
	}
	return b.Build()
}

func TestShowIndex(t *testing.T) {
	e := seeded(t, commonpb.WALName_WoodPecker)
	fkey := func(coll, idx int64) string { return models.FieldIndexPrefix + fmt.Sprintf("%d/%d", coll, idx) }
	skey := func(coll, part, seg, build int64) string {
		return models.SegmentIndexPrefix + fmt.Sprintf("%d/%d/%d/%d", coll, part, seg, build)
	}
	e.put(fkey(snColl, snIndex), showGolden(t, "indexpb.FieldIndex", "hnsw"))
	e.put(fkey(snColl, snIndex+1), showGolden(t, "indexpb.FieldIndex", "auto_deleted"))
	e.put(fkey(100, 5), corrupt)
	e.put(skey(snColl, snPart, snSeg, snBuild), showGolden(t, "indexpb.SegmentIndex", "finished"))
	e.put(skey(snColl, snPart, snSeg2, snBuild+1), showGolden(t, "indexpb.SegmentIndex", "failed"))
	e.put(skey(snColl, snPart, snSeg2, snBuild+2), segmentIndexValue(snColl, snPart, snSeg2, snIndex, snBuild+2, commonpb.IndexState_Finished, false))
	e.put(skey(snColl, snPart, snSeg2, snBuild+3), segmentIndexValue(snColl, snPart, snSeg2, snIndex, snBuild+3, commonpb.IndexState_Finished, true))
	e.put(skey(snColl, snPart, snSeg2, snBuild+4), segmentIndexValue(snColl, snPart, snSeg2, 77, snBuild+4, commonpb.IndexState_InProgress, false))
	e.put(skey(100, 101, 1001, 9), corrupt)

	res, stderr := runJSON[IndexResult](e, "show index")
	require.Len(t, res.Indexes, 3)
	assert.NotEmpty(t, res.Indexes[0].Error, "field-index/100/5 is corrupt")
	h := res.Indexes[1]
	assert.Equal(t, snIndex, h.IndexID)
	assert.Equal(t, "vec_idx", h.Name)
	assert.Equal(t, int64(101), h.FieldID)
	assert.Equal(t, "HNSW", h.IndexType)
	assert.Equal(t, "L2", h.MetricType)
	assert.False(t, h.Deleted)
	assert.Equal(t, map[string]int{"Finished": 2, "Failed": 1, "deleted": 1}, h.SegmentIndexes)
	auto := res.Indexes[2]
	assert.True(t, auto.AutoIndex)
	assert.True(t, auto.Deleted)
	assert.Equal(t, "STL_SORT", auto.IndexType)
	assert.Equal(t, map[string]int{}, auto.SegmentIndexes)
	assert.Equal(t, []OrphanSegmentIndexes{{Collection: snColl, IndexID: 77, Count: 1}}, res.Orphans)
	assert.Equal(t, 1, res.Undecoded)
	assert.Equal(t, 1, res.UndecodedSegmentIndexes)
	assert.Contains(t, stderr, "warning: field index "+fkey(100, 5)+" does not decode")
	assert.Contains(t, stderr, "warning: segment index "+skey(100, 101, 1001, 9)+" does not decode")
	assert.Contains(t, stderr, "have no field-index key")

	res, _ = runJSON[IndexResult](e, "show index --collection 100")
	require.Len(t, res.Indexes, 1)
	assert.Empty(t, res.Orphans)
	assert.Equal(t, 1, res.UndecodedSegmentIndexes)

	table, _ := e.mustRun(fmt.Sprintf("show index --collection %d", snColl))
	assert.Contains(t, table, "Failed=1 Finished=2 deleted=1")
	assert.Contains(t, table, "2 index(es)")
	assert.Contains(t, table, fmt.Sprintf("orphan: 1 segment index(es) of collection %d index 77", snColl))

	r2, _ := runJSON[IndexResult](e, "show index --collection 555")
	assert.Empty(t, r2.Indexes)
	assert.Empty(t, r2.Orphans)
}

func TestShowConfigEtcd(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	e.putRoot("config/mq.type", []byte("pulsar"))
	e.putRoot("config/mqtype", []byte("kafka"))
	e.putRoot("config/pulsar.address", []byte("pulsar://10.0.0.1:6650"))
	e.putRoot("config/odd\x01key", []byte("a\x00b"))
	e.putRoot("configuration-not-config/mqtype", []byte("rocksmq"))

	res, stderr := runJSON[ConfigEtcdResult](e, "show config-etcd")
	require.Len(t, res.Keys, 4)
	by := map[string]ConfigRow{}
	for _, k := range res.Keys {
		by[k.Key] = k
	}
	assert.Equal(t, ConfigRow{Key: "mq.type", Value: "pulsar", FormattedKey: "mqtype", MQType: true}, by["mq.type"])
	// "mq.type" < "mqtype" in key order: Milvus ends up with the later one.
	assert.Equal(t, ConfigRow{Key: "mqtype", Value: "kafka", FormattedKey: "mqtype", MQType: true, Effective: true}, by["mqtype"])
	assert.False(t, by["pulsar.address"].MQType)
	assert.Equal(t, "pulsaraddress", by["pulsar.address"].FormattedKey)
	assert.Equal(t, &MQTypeOverride{Key: "mqtype", Value: "kafka"}, res.MQType)
	assert.Contains(t, stderr, "set mq.type with different values; Milvus reads mqtype=kafka")

	table, _ := e.mustRun("show config-etcd")
	assert.Contains(t, table, `odd\x01key`)
	assert.Contains(t, table, `a\x00b`)
	assert.Contains(t, table, "mq.type (effective)")
	assert.Contains(t, table, "mq.type (overridden by a later key)")
	assert.Contains(t, table, "mq.type override: by-dev/config/mqtype = kafka")
	lines, _ := e.mustRun("show config-etcd --format line")
	assert.Contains(t, lines, `kind=config key=mqtype value=kafka formatted_key=mqtype mq_type=true effective=true`)
	assert.Contains(t, lines, `kind=config-summary keys=4 mq_type_key=mqtype mq_type=kafka`)

	ee := empty(t)
	r2, _ := runJSON[ConfigEtcdResult](ee, "show config-etcd")
	assert.Empty(t, r2.Keys)
	assert.Nil(t, r2.MQType)
	out, _ := ee.mustRun("show config-etcd")
	assert.Contains(t, out, "no mq.type override in etcd")
}

func TestShowEtcdKV(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)

	res, _ := runJSON[EtcdKVResult](e, "show etcd-kv --key meta/session/id")
	require.Len(t, res.Keys, 1)
	k := res.Keys[0]
	assert.Equal(t, "meta/session/id", k.Key)
	assert.Equal(t, base64.StdEncoding.EncodeToString([]byte("7")), k.ValueBase64)
	require.NotNil(t, k.ValueText)
	assert.Equal(t, "7", *k.ValueText)
	assert.Empty(t, k.Kind, "no --decode: no kind")
	// A leading slash is the same key.
	res, _ = runJSON[EtcdKVResult](e, "show etcd-kv --key /meta/session/id")
	assert.Len(t, res.Keys, 1)

	res, stderr := runJSON[EtcdKVResult](e, "show etcd-kv --key meta/no/such/key")
	assert.Empty(t, res.Keys)
	assert.Contains(t, stderr, "no key by-dev/meta/no/such/key")

	// Binary values and control characters in keys.
	e.put("odd\x01key", []byte("\xff\x00ab\n\\"))
	table, _ := e.mustRun("show etcd-kv --prefix meta/odd")
	assert.Contains(t, table, `meta/odd\x01key`)
	assert.Contains(t, table, `\xff\x00ab\n\`+"\n")
	res, _ = runJSON[EtcdKVResult](e, "show etcd-kv --prefix meta/odd")
	require.Len(t, res.Keys, 1)
	assert.Equal(t, "meta/odd\x01key", res.Keys[0].Key)
	assert.Nil(t, res.Keys[0].ValueText, "not printable: base64 only")
	raw, _ := base64.StdEncoding.DecodeString(res.Keys[0].ValueBase64)
	assert.Equal(t, []byte("\xff\x00ab\n\\"), raw)
	lines, _ := e.mustRun("show etcd-kv --prefix meta/odd --format line")
	assert.Contains(t, lines, `key="meta/odd\\x01key"`)

	// --limit: 100 in table mode by default, all in json and line.
	for i := 0; i < 120; i++ {
		e.put(fmt.Sprintf("zz/%03d", i), []byte("v"))
	}
	table, _ = e.mustRun("show etcd-kv --prefix meta/zz/")
	assert.Equal(t, 101, strings.Count(table, "meta/zz/"), "100 rows and the summary")
	assert.Contains(t, table, "20 more, --limit 0 for all")
	res, _ = runJSON[EtcdKVResult](e, "show etcd-kv --prefix meta/zz/")
	assert.Len(t, res.Keys, 120)
	assert.Zero(t, res.More)
	res, _ = runJSON[EtcdKVResult](e, "show etcd-kv --prefix meta/zz/ --limit 7")
	assert.Len(t, res.Keys, 7)
	assert.Equal(t, int64(113), res.More)
	assert.Equal(t, "meta/zz/006", res.Keys[6].Key)
	table, _ = e.mustRun("show etcd-kv --prefix meta/zz/ --limit 0")
	assert.NotContains(t, table, "more")
	lines, _ = e.mustRun("show etcd-kv --prefix meta/zz/ --limit 5 --format line")
	assert.Contains(t, lines, "kind=etcd-kv-summary keys=5 more=115")

	// The whole root: meta and the keys beside it.
	res, _ = runJSON[EtcdKVResult](e, "show etcd-kv --prefix /")
	assert.Equal(t, len(e.sample.KVs)+121, len(res.Keys))
	assert.Equal(t, "by-dev/", res.Root)

	// --decode: every known kind, an unknown one, a value that does not decode.
	e.put(models.PartitionPrefix+"100/101", partitionValue(100, 101, "_default", 0))
	e.put(models.PartitionPrefix+"100/102", corrupt)
	e.put(models.ReplicaPrefix+fmt.Sprintf("%d/%d", snColl, snReplica), showGolden(t, "querypb.Replica", "two_channels"))
	e.putRoot("config/mq_type", []byte("woodpecker"))
	e.put(models.SessionPrefix+"datacoord", []byte(`{"ServerID":4,"ServerName":"datacoord","Address":"10.0.0.4:13333"}`))
	e.put(models.DatabasePrefix+"1", showGolden(t, "etcdpb.DatabaseInfo", "default"))
	e.put(models.ChannelWatchPrefix+"7/"+snVch1, showGolden(t, "datapb.ChannelWatchInfo", "to_release_woodpecker"))
	e.put(models.FieldIndexPrefix+fmt.Sprintf("%d/%d", snColl, snIndex), showGolden(t, "indexpb.FieldIndex", "hnsw"))
	e.put(models.SegmentIndexPrefix+fmt.Sprintf("%d/%d/%d/%d", snColl, snPart, snSeg, snBuild), showGolden(t, "indexpb.SegmentIndex", "finished"))
	res, stderr = runJSON[EtcdKVResult](e, "show etcd-kv --prefix / --decode")
	kinds := map[string]int{}
	for _, k := range res.Keys {
		kinds[k.Kind]++
	}
	for _, kind := range []string{models.KindNameConsumeCheckpoint, models.KindNameChannelCP, models.KindNameCollectionInfo, models.KindNameSegment,
		models.KindNameQueryTarget, models.KindNameBroadcastTask, models.KindNamePChannel, models.KindNameChannelRemoval,
		models.KindNamePartition, models.KindNameReplica, models.KindNameConfig, models.KindNameSession, models.KindNameDatabase,
		models.KindNameChannelWatch, models.KindNameFieldIndex, models.KindNameSegmentIndex, unknownKind} {
		assert.NotZero(t, kinds[kind], "no key of kind %s", kind)
	}
	assert.Equal(t, 1, res.Undecoded)
	assert.Contains(t, stderr, "warning: meta/"+models.PartitionPrefix+"100/102: value does not decode as partition")
	byKey := map[string]KVRow{}
	for _, k := range res.Keys {
		byKey[k.Key] = k
	}
	assert.Equal(t, unknownKind, byKey["meta/zz/000"].Kind)
	assert.Equal(t, unknownKind, byKey["kv/gid/idTimestamp"].Kind)
	assert.Contains(t, byKey["meta/"+models.PartitionPrefix+"100/102"].Error, "does not decode as partition")
	decoded, _ := json.Marshal(byKey["config/mq_type"].Decoded)
	assert.JSONEq(t, `{"key":"mq_type","formatted_key":"mqtype","value":"woodpecker","mq_type_override":true}`, string(decoded))
	decoded, _ = json.Marshal(byKey["meta/"+models.SessionPrefix+"datacoord"].Decoded)
	assert.JSONEq(t, `{"key":"session/datacoord","role":"datacoord","server_id":4,"address":"10.0.0.4:13333","lease":0,"alive":false}`, string(decoded))
	decoded, _ = json.Marshal(byKey["meta/"+models.ChannelWatchPrefix+"7/"+snVch1].Decoded)
	assert.Contains(t, string(decoded), `"state":"ToRelease"`)
	assert.Contains(t, string(decoded), `"vchannel":"`+snVch1+`"`)
	decoded, _ = json.Marshal(byKey["meta/"+models.PartitionPrefix+"100/101"].Decoded)
	assert.JSONEq(t, `{"id":101,"name":"_default","collection_id":100,"state":"PartitionCreated","created_time":456789012345671680}`, string(decoded))

	table, _, code, _ := e.run("show etcd-kv --prefix meta/root-coord/partitions/ --decode --wide")
	assert.Equal(t, 0, code)
	assert.Contains(t, table, `{"id":101,"name":"_default"`)
	assert.Contains(t, table, "error: does not decode as partition")
	assert.Contains(t, table, "1 value(s) do not decode as their key kind")
	table, _ = e.mustRun("show etcd-kv --prefix meta/zz/00 --decode")
	assert.Contains(t, table, "unknown kind")

	// Long values are elided in the table only.
	e.put("long", []byte(strings.Repeat("x", 500)))
	table, _ = e.mustRun("show etcd-kv --key meta/long")
	assert.Contains(t, table, "...(500 bytes)")
	lines, _ = e.mustRun("show etcd-kv --key meta/long --format line")
	assert.Contains(t, lines, strings.Repeat("x", 500))

	for _, bad := range []string{"show etcd-kv", "show etcd-kv --key a --prefix b", "show etcd-kv --prefix a --limit -2"} {
		_, _, code, err := e.run(bad)
		assert.Equal(t, 2, code, "%s: %v", bad, err)
	}
	_, _, _, err := e.run("show etcd-kv")
	assert.ErrorContains(t, err, "give --key KEY or --prefix PREFIX")

	r2, _ := runJSON[EtcdKVResult](empty(t), "show etcd-kv --prefix /")
	assert.Empty(t, r2.Keys)
}

// Every new command renders each format and refuses an unknown one.
func TestShowNewFormats(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	e.put(models.DatabasePrefix+"1", showGolden(t, "etcdpb.DatabaseInfo", "default"))
	for _, l := range []string{"show etcd-kv --prefix meta/ --decode", "show database", "show partition", "show channel-watch",
		"show replica", "show index", "show config-etcd"} {
		for _, f := range []string{"table", "json", "line"} {
			if _, _, code, err := e.run(l + " --format " + f); code != 0 {
				t.Errorf("%s --format %s: exit %d: %v", l, f, code, err)
			}
		}
		if _, _, code, _ := e.run(l + " --format xml"); code != 2 {
			t.Errorf("%s --format xml: exit %d, want 2", l, code)
		}
	}
}

func TestEscape(t *testing.T) {
	assert.Equal(t, `a\x00\xff\é\u200b\n\t"`, escape("a\x00\xff\\é\u200b\n\t\""))
	out, cut := cutEscaped("ab\x01cd", 4)
	assert.Equal(t, "ab", out, "an escape is never split")
	assert.True(t, cut)
	out, cut = cutEscaped("abc", 3)
	assert.Equal(t, "abc", out)
	assert.False(t, cut)
	assert.True(t, printable([]byte("{\"a\": 1}\n")))
	assert.False(t, printable([]byte("a\x00")))
	assert.False(t, printable([]byte{0xff}))
}
