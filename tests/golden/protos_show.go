package main

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus/pkg/v2/proto/datapb"
	"github.com/milvus-io/milvus/pkg/v2/proto/etcdpb"
	"github.com/milvus-io/milvus/pkg/v2/proto/indexpb"
	"github.com/milvus-io/milvus/pkg/v2/proto/querypb"
	wplog "github.com/zilliztech/woodpecker/woodpecker/log"

	mqwp "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/wp"
)

// writeShowProtos writes testdata/show_protos.json: the values read by the
// show commands database, partition, channel-watch, replica and index, marshaled
// with Milvus's generated types (same entry shape as protos.json).
func writeShowProtos(out string) {
	vs := showProtoVectors()
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].Type != vs[j].Type {
			return vs[i].Type < vs[j].Type
		}
		return vs[i].Name < vs[j].Name
	})
	seen := map[string]bool{}
	for _, v := range vs {
		k := v.Type + "/" + v.Name
		check(!seen[k], "duplicate show proto vector %s", k)
		seen[k] = true
	}
	writeJSON(filepath.Join(out, "show_protos.json"), vs)
	fmt.Printf("wrote %d show proto vectors to %s\n", len(vs), out)
}

const (
	indexID  int64 = 451234567890123500
	buildID  int64 = 451234567890123510
	replica1 int64 = 451234567890123520
	db2ID    int64 = 451234567890123490
)

func showProtoVectors() []protoVector {
	var out []protoVector
	out = append(out, databaseVectors()...)
	out = append(out, partitionVectors()...)
	out = append(out, channelWatchShowVectors()...)
	out = append(out, replicaVectors()...)
	out = append(out, indexVectors()...)
	return out
}

func kvs(pairs ...string) []*commonpb.KeyValuePair {
	var out []*commonpb.KeyValuePair
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, &commonpb.KeyValuePair{Key: pairs[i], Value: pairs[i+1]})
	}
	return out
}

func databaseVectors() []protoVector {
	t := "etcdpb.DatabaseInfo"
	return []protoVector{
		pv(t, "default", &etcdpb.DatabaseInfo{Name: "default", Id: dbID, State: etcdpb.DatabaseState_DatabaseCreated, CreatedTime: ts1}, "the default database, id 1"),
		pv(t, "with_properties", &etcdpb.DatabaseInfo{
			TenantId: "tenant-a", Name: "analytics", Id: db2ID, State: etcdpb.DatabaseState_DatabaseCreated, CreatedTime: ts2,
			Properties: kvs("database.replica.number", "2", "database.max.collections", "64"),
		}, ""),
		pv(t, "dropping", &etcdpb.DatabaseInfo{Name: "old", Id: db2ID + 1, State: etcdpb.DatabaseState_DatabaseDropping, CreatedTime: ts1}, ""),
	}
}

func partitionVectors() []protoVector {
	t := "etcdpb.PartitionInfo"
	return []protoVector{
		pv(t, "default", &etcdpb.PartitionInfo{PartitionID: partID, PartitionName: "_default", PartitionCreatedTimestamp: ts1, CollectionId: collID,
			State: etcdpb.PartitionState_PartitionCreated}, "state Created is 0: not on the wire"),
		pv(t, "dropping", &etcdpb.PartitionInfo{PartitionID: partID + 1, PartitionName: "p2026", PartitionCreatedTimestamp: ts2, CollectionId: collID,
			State: etcdpb.PartitionState_PartitionDropping}, ""),
	}
}

func channelWatchShowVectors() []protoVector {
	wpID := mqwp.NewWoodpeckerID(&wplog.LogMessageId{SegmentId: 3, EntryId: 12}).Serialize()
	cw := &datapb.ChannelWatchInfo{
		Vchan: &datapb.VchannelInfo{
			CollectionID:           collID,
			ChannelName:            vch1,
			SeekPosition:           pos(vch1, wpID, ts2, commonpb.WALName_WoodPecker),
			UnflushedSegmentIds:    []int64{segID2},
			FlushedSegmentIds:      []int64{segID, segID + 10},
			DroppedSegmentIds:      []int64{451234567890123401},
			LevelZeroSegmentIds:    []int64{451234567890123402},
			PartitionStatsVersions: map[int64]int64{partID: 7},
			DeleteCheckpoint:       pos(vch1, wpID, ts2-1, commonpb.WALName_WoodPecker),
		},
		StartTs: 1767225600,
		State:   datapb.ChannelWatchState_ToRelease,
		Schema: &schemapb.CollectionSchema{Name: "heron_golden", Fields: []*schemapb.FieldSchema{
			{FieldID: 100, Name: "pk", IsPrimaryKey: true, DataType: schemapb.DataType_Int64},
		}},
		OpID:         451234567890123481,
		DbProperties: kvs("database.replica.number", "1"),
	}
	return []protoVector{pv("datapb.ChannelWatchInfo", "to_release_woodpecker", cw,
		"vchan.seek_position and delete_checkpoint woodpecker s3_e12 with WAL_name WoodPecker; schema (5) and dbProperties (8) set")}
}

func replicaVectors() []protoVector {
	r := &querypb.Replica{
		ID:            replica1,
		CollectionID:  collID,
		Nodes:         []int64{3, 4},
		ResourceGroup: "__default_resource_group",
		RoNodes:       []int64{5},
		ChannelNodeInfos: map[string]*querypb.ChannelNodeInfo{
			vch1: {RwNodes: []int64{4}},
			vch0: {RwNodes: []int64{3, 4}},
		},
		RwSqNodes: []int64{7},
		RoSqNodes: []int64{8, 9},
	}
	return []protoVector{
		pv("querypb.Replica", "two_channels", r, "channel_node_infos is a map: marshaled in key order (Deterministic)"),
		pv("querypb.Replica", "minimal", &querypb.Replica{ID: replica1 + 1, CollectionID: collID, ResourceGroup: "rg1"}, ""),
	}
}

func indexVectors() []protoVector {
	fi := &indexpb.FieldIndex{
		IndexInfo: &indexpb.IndexInfo{
			CollectionID:    collID,
			FieldID:         101,
			IndexName:       "vec_idx",
			IndexID:         indexID,
			TypeParams:      kvs("dim", "4"),
			IndexParams:     kvs("index_type", "HNSW", "metric_type", "L2", "M", "16", "efConstruction", "200"),
			State:           commonpb.IndexState_Finished,
			IsAutoIndex:     false,
			UserIndexParams: kvs("index_type", "HNSW", "metric_type", "L2"),
			MinIndexVersion: 5,
			MaxIndexVersion: 6,
		},
		CreateTime: ts1,
	}
	auto := &indexpb.FieldIndex{
		IndexInfo: &indexpb.IndexInfo{
			CollectionID: collID, FieldID: 100, IndexName: "pk_idx", IndexID: indexID + 1,
			IndexParams: kvs("index_type", "STL_SORT"), IsAutoIndex: true,
		},
		Deleted:    true,
		CreateTime: ts2,
	}
	si := &indexpb.SegmentIndex{
		CollectionID: collID, PartitionID: partID, SegmentID: segID, NumRows: 3000, IndexID: indexID, BuildID: buildID,
		NodeID: 7, IndexVersion: 1, State: commonpb.IndexState_Finished,
		IndexFileKeys: []string{"HNSW_1", "HNSW_2"}, CreateTime: ts2, SerializeSize: 123456, CurrentIndexVersion: 6,
		IndexStoreVersion: 1, FinishedTime: 1767225660, MemSize: 234567, IndexType: "HNSW",
	}
	failed := &indexpb.SegmentIndex{
		CollectionID: collID, PartitionID: partID, SegmentID: segID2, NumRows: 120, IndexID: indexID, BuildID: buildID + 1,
		NodeID: 7, IndexVersion: 2, State: commonpb.IndexState_Failed, FailReason: "out of memory", CreateTime: ts3,
	}
	return []protoVector{
		pv("indexpb.FieldIndex", "hnsw", fi, ""),
		pv("indexpb.FieldIndex", "auto_deleted", auto, ""),
		pv("indexpb.SegmentIndex", "finished", si, ""),
		pv("indexpb.SegmentIndex", "failed", failed, ""),
	}
}
