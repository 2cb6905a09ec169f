package sampletest

import (
	"google.golang.org/protobuf/proto"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

func cluster(id string, pchannels ...string) *commonpb.MilvusCluster {
	return &commonpb.MilvusCluster{ClusterId: id, ConnectionParam: &commonpb.ConnectionParam{Uri: "http://" + id + ":19530"}, Pchannels: pchannels}
}

// ReplicateConfiguration encodes a streamingpb.ReplicateConfigurationMeta
// of clusters (each with its dml_0), the first replicating to each of the
// others (sample.ReplicateConfigurationMeta).
func ReplicateConfiguration(clusters ...string) []byte {
	cs := make([]*commonpb.MilvusCluster, len(clusters))
	for i, c := range clusters {
		cs[i] = cluster(c, c+"-rootcoord-dml_0")
	}
	return sample.ReplicateConfigurationMeta(cs[0], cs[1:]...)
}

// ReplicatingPChannel encodes a streamingpb.ReplicatePChannelMeta: source
// replicated to target on cluster (source_channel_name 1,
// target_channel_name 2, target_cluster 3, initialized_checkpoint 4).
func ReplicatingPChannel(source, target, clusterID string) []byte {
	tc, _ := proto.Marshal(cluster(clusterID, target))
	cp, _ := proto.Marshal(&commonpb.ReplicateCheckpoint{ClusterId: "by-dev", Pchannel: source, TimeTick: sample.TSO(sample.Base, 0)})
	return (&wire.Builder{}).String(1, source).String(2, target).Message(3, tc).Message(4, cp).Build()
}
