package models_test

import (
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
)

// showGolden reads tests/golden/testdata/show_protos.json: values marshaled by
// Milvus's own generated types (tests/golden/protos_show.go).
func showGolden(t *testing.T, typ string) map[string][]byte {
	t.Helper()
	return goldenFile(t, "show_protos.json", typ)
}

const (
	gCollID = int64(451234567890123456)
	gPartID = int64(451234567890123457)
	gSegID  = int64(451234567890123460)
	gSegID2 = int64(451234567890123461)
	gTS1    = uint64(456789012345671680)
	gTS2    = uint64(456789012607815680)
	gTS3    = uint64(456789015229251584)
	gVch0   = "by-dev-rootcoord-dml_0_451234567890123456v0"
	gVch1   = "by-dev-rootcoord-dml_1_451234567890123456v1"
)

func TestGoldenDatabaseInfo(t *testing.T) {
	g := showGolden(t, "etcdpb.DatabaseInfo")
	d, err := models.DecodeDatabaseInfo(g["default"])
	require.NoError(t, err)
	assert.Equal(t, models.DatabaseInfo{ID: 1, Name: "default", State: "DatabaseCreated", CreatedTime: gTS1, Properties: []models.KeyValue{}}, *d)

	d, err = models.DecodeDatabaseInfo(g["with_properties"])
	require.NoError(t, err)
	assert.Equal(t, int64(451234567890123490), d.ID)
	assert.Equal(t, "analytics", d.Name)
	assert.Equal(t, "tenant-a", d.TenantID)
	assert.Equal(t, gTS2, d.CreatedTime)
	assert.Equal(t, []models.KeyValue{{Key: "database.replica.number", Value: "2"}, {Key: "database.max.collections", Value: "64"}}, d.Properties)

	d, err = models.DecodeDatabaseInfo(g["dropping"])
	require.NoError(t, err)
	assert.Equal(t, "DatabaseDropping", d.State)
}

func TestGoldenPartitionInfo(t *testing.T) {
	g := showGolden(t, "etcdpb.PartitionInfo")
	p, err := models.DecodePartitionInfo(g["default"])
	require.NoError(t, err)
	assert.Equal(t, models.PartitionInfo{ID: gPartID, Name: "_default", CollectionID: gCollID, State: "PartitionCreated", CreatedTime: gTS1}, *p)
	p, err = models.DecodePartitionInfo(g["dropping"])
	require.NoError(t, err)
	assert.Equal(t, models.PartitionInfo{ID: gPartID + 1, Name: "p2026", CollectionID: gCollID, State: "PartitionDropping", CreatedTime: gTS2}, *p)
}

func TestGoldenChannelWatchInfo(t *testing.T) {
	// The vector of protos.json (pulsar, WAL_name Unknown) and the one of
	// show_protos.json (woodpecker, WAL_name set, schema and dbProperties set).
	old := goldenProtos(t, "datapb.ChannelWatchInfo")["watch_success_pulsar"]
	cw, err := models.DecodeChannelWatchInfo(old)
	require.NoError(t, err)
	assert.Equal(t, gCollID, cw.CollectionID)
	assert.Equal(t, gVch0, cw.VChannel)
	assert.Equal(t, "WatchSuccess", cw.State)
	assert.Equal(t, int64(451234567890123480), cw.OpID)
	assert.Equal(t, int64(1767225600), cw.StartTs)
	assert.Equal(t, []int64{gSegID2}, cw.UnflushedSegments)
	assert.Equal(t, []int64{gSegID}, cw.FlushedSegments)
	require.NotNil(t, cw.SeekPosition)
	assert.Equal(t, gTS2, cw.SeekPosition.GetTimestamp())
	assert.Equal(t, commonpb.WALName_Unknown, cw.SeekPosition.GetWALName())
	human, err := models.DescribeBytes(commonpb.WALName_Pulsar, cw.SeekPosition.GetMsgID())
	require.NoError(t, err)
	assert.Equal(t, "123456789:42:0:-1", human)
	require.NotNil(t, cw.DeleteCheckpoint)
	assert.Equal(t, gTS2-1, cw.DeleteCheckpoint.GetTimestamp())
	human, err = models.DescribeBytes(commonpb.WALName_Pulsar, cw.DeleteCheckpoint.GetMsgID())
	require.NoError(t, err)
	assert.Equal(t, "123456789:40:0:-1", human)

	cw, err = models.DecodeChannelWatchInfo(showGolden(t, "datapb.ChannelWatchInfo")["to_release_woodpecker"])
	require.NoError(t, err)
	assert.Equal(t, gVch1, cw.VChannel)
	assert.Equal(t, "ToRelease", cw.State)
	assert.Equal(t, []int64{gSegID, gSegID + 10}, cw.FlushedSegments)
	assert.Equal(t, []int64{451234567890123401}, cw.DroppedSegments)
	assert.Equal(t, []int64{451234567890123402}, cw.LevelZeroSegments)
	assert.Equal(t, commonpb.WALName_WoodPecker, cw.SeekPosition.GetWALName())
	assert.Equal(t, gVch1, cw.SeekPosition.GetChannelName())
	human, err = models.DescribeBytes(commonpb.WALName_WoodPecker, cw.SeekPosition.GetMsgID())
	require.NoError(t, err)
	assert.Equal(t, "3:12", human)
	assert.Equal(t, gTS2-1, cw.DeleteCheckpoint.GetTimestamp())
}

func TestGoldenReplica(t *testing.T) {
	g := showGolden(t, "querypb.Replica")
	r, err := models.DecodeReplica(g["two_channels"])
	require.NoError(t, err)
	assert.Equal(t, models.Replica{
		ID: 451234567890123520, CollectionID: gCollID, ResourceGroup: "__default_resource_group",
		Nodes: []int64{3, 4}, RONodes: []int64{5}, RWSQNodes: []int64{7}, ROSQNodes: []int64{8, 9},
		ChannelNodes: []models.ChannelNodes{{Channel: gVch0, RWNodes: []int64{3, 4}}, {Channel: gVch1, RWNodes: []int64{4}}},
	}, *r)
	r, err = models.DecodeReplica(g["minimal"])
	require.NoError(t, err)
	assert.Equal(t, models.Replica{ID: 451234567890123521, CollectionID: gCollID, ResourceGroup: "rg1",
		Nodes: []int64{}, RONodes: []int64{}, RWSQNodes: []int64{}, ROSQNodes: []int64{}, ChannelNodes: []models.ChannelNodes{}}, *r)
}

func TestGoldenIndex(t *testing.T) {
	fi := showGolden(t, "indexpb.FieldIndex")
	f, err := models.DecodeFieldIndex(fi["hnsw"])
	require.NoError(t, err)
	assert.Equal(t, gCollID, f.CollectionID)
	assert.Equal(t, int64(101), f.FieldID)
	assert.Equal(t, int64(451234567890123500), f.IndexID)
	assert.Equal(t, "vec_idx", f.Name)
	assert.Equal(t, "HNSW", f.IndexType())
	assert.Equal(t, []models.KeyValue{{Key: "dim", Value: "4"}}, f.TypeParams)
	assert.Len(t, f.IndexParams, 4)
	assert.Equal(t, []models.KeyValue{{Key: "index_type", Value: "HNSW"}, {Key: "metric_type", Value: "L2"}}, f.UserIndexParams)
	assert.False(t, f.Deleted)
	assert.False(t, f.AutoIndex)
	assert.Equal(t, gTS1, f.CreateTime)

	f, err = models.DecodeFieldIndex(fi["auto_deleted"])
	require.NoError(t, err)
	assert.True(t, f.Deleted)
	assert.True(t, f.AutoIndex)
	assert.Equal(t, "STL_SORT", f.IndexType())
	assert.Equal(t, "pk_idx", f.Name)

	si := showGolden(t, "indexpb.SegmentIndex")
	s, err := models.DecodeSegmentIndex(si["finished"])
	require.NoError(t, err)
	assert.Equal(t, models.SegmentIndex{CollectionID: gCollID, PartitionID: gPartID, SegmentID: gSegID, NumRows: 3000,
		IndexID: 451234567890123500, BuildID: 451234567890123510, NodeID: 7, IndexVersion: 1, State: "Finished",
		IndexFileKeys: []string{"HNSW_1", "HNSW_2"}, CreateTime: gTS2, SerializedSize: 123456}, *s)
	s, err = models.DecodeSegmentIndex(si["failed"])
	require.NoError(t, err)
	assert.Equal(t, "Failed", s.State)
	assert.Equal(t, "out of memory", s.FailReason)
	assert.Equal(t, gSegID2, s.SegmentID)
	assert.Equal(t, gTS3, s.CreateTime)
}
