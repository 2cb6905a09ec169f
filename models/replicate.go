package models

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// The replication state of a 2.6 streaming instance (Milvus's CDC):
// streamingcoord-meta/replicate-configuration holds a
// streamingpb.ReplicateConfigurationMeta, streamingcoord-meta/
// replicating-pchannel/{cluster}-{pchannel} a streamingpb.
// ReplicatePChannelMeta (pkg/proto/streaming.proto @v2.6.23:
// ReplicateConfigurationMeta{replicate_configuration = 1, acked_result = 2,
// force_promoted = 3}, ReplicatePChannelMeta{source_channel_name = 1,
// target_channel_name = 2, target_cluster = 3, initialized_checkpoint = 4,
// skip_get_replicate_checkpoint = 5}); the nested messages are commonpb's.

// ReplicateConfig is a decoded replicate-configuration. A cluster's token
// is never kept: only whether it is set.
type ReplicateConfig struct {
	Clusters      []ReplicateCluster `json:"clusters"`
	Topology      []ReplicateEdge    `json:"cross_cluster_topology"`
	ForcePromoted bool               `json:"force_promoted"`
}

// ReplicateCluster is one Milvus cluster of a replication configuration.
type ReplicateCluster struct {
	ID        string   `json:"cluster_id"`
	URI       string   `json:"uri"`
	HasToken  bool     `json:"token_set"`
	PChannels []string `json:"pchannels"`
}

// ReplicateEdge is a source cluster replicating to a target cluster.
type ReplicateEdge struct {
	Source string `json:"source_cluster_id"`
	Target string `json:"target_cluster_id"`
}

// DecodeReplicateConfig decodes a replicate-configuration value.
func DecodeReplicateConfig(b []byte) (*ReplicateConfig, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a ReplicateConfigurationMeta: %w", err)
	}
	// Every occurrence, merged as proto decodes a message field written
	// twice; one of another wire type is no configuration heron can read
	// (taken as empty, it would hold no cluster).
	var rc commonpb.ReplicateConfiguration
	for _, f := range m.All(1) {
		if f.Type != protowire.BytesType {
			return nil, fmt.Errorf("ReplicateConfigurationMeta.replicate_configuration has wire type %d, not a message", f.Type)
		}
		if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(f.Payload, &rc); err != nil {
			return nil, fmt.Errorf("ReplicateConfigurationMeta.replicate_configuration: %w", err)
		}
	}
	out := &ReplicateConfig{Clusters: []ReplicateCluster{}, Topology: []ReplicateEdge{}, ForcePromoted: m.Varint(3) != 0}
	for _, c := range rc.GetClusters() {
		out.Clusters = append(out.Clusters, clusterOf(c))
	}
	for _, t := range rc.GetCrossClusterTopology() {
		out.Topology = append(out.Topology, ReplicateEdge{Source: t.GetSourceClusterId(), Target: t.GetTargetClusterId()})
	}
	return out, nil
}

// HasCluster tells whether cluster id is one of the configuration's
// clusters: a replicating pchannel to a cluster that is not is stale (what
// birdwatcher's `remove replicate-pchannel` may delete). A nil
// configuration (none stored) has no cluster.
func (c *ReplicateConfig) HasCluster(id string) bool {
	if c == nil {
		return false
	}
	for _, cl := range c.Clusters {
		if cl.ID == id {
			return true
		}
	}
	return false
}

// ReplicatingPChannelKey is the key Milvus writes for pchannel replicated
// to cluster: streamingcoord-meta/replicating-pchannel/{cluster}-{pchannel}.
func ReplicatingPChannelKey(cluster, pchannel string) string {
	return ReplicatingPChannel + cluster + "-" + pchannel
}

func clusterOf(c *commonpb.MilvusCluster) ReplicateCluster {
	return ReplicateCluster{ID: c.GetClusterId(), URI: c.GetConnectionParam().GetUri(), HasToken: c.GetConnectionParam().GetToken() != "",
		PChannels: append([]string{}, c.GetPchannels()...)}
}

// ReplicatingPChannelMeta is a decoded replicating-pchannel value: a pchannel
// of this instance replicated to a target cluster's pchannel.
type ReplicatingPChannelMeta struct {
	Source        string             `json:"source_channel"`
	Target        string             `json:"target_channel"`
	TargetCluster ReplicateCluster   `json:"target_cluster"`
	Initialized   *ReplicatePosition `json:"initialized_checkpoint,omitempty"`
	SkipGet       bool               `json:"skip_get_replicate_checkpoint"`
}

// ReplicatePosition is a commonpb.ReplicateCheckpoint: a position in a
// source cluster's WAL (heron never rewrites one).
type ReplicatePosition struct {
	Cluster   string `json:"cluster_id"`
	PChannel  string `json:"pchannel"`
	WAL       string `json:"wal"`
	MessageID string `json:"message_id"`
	TimeTick  uint64 `json:"time_tick"`
}

func positionOf(c *commonpb.ReplicateCheckpoint) *ReplicatePosition {
	if c == nil {
		return nil
	}
	p := &ReplicatePosition{Cluster: c.GetClusterId(), PChannel: c.GetPchannel(), TimeTick: c.GetTimeTick()}
	if id := c.GetMessageId(); id != nil {
		p.WAL = msgid.Name(id.GetWALName())
		if h, err := DescribeText(id.GetWALName(), id.GetId()); err == nil {
			p.MessageID = h
		} else {
			p.MessageID = id.GetId()
		}
	}
	return p
}

// DecodeReplicatingPChannel decodes a replicating-pchannel value.
func DecodeReplicatingPChannel(b []byte) (*ReplicatingPChannelMeta, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a ReplicatePChannelMeta: %w", err)
	}
	var cluster commonpb.MilvusCluster
	if err := proto.Unmarshal(m.BytesOf(3), &cluster); err != nil {
		return nil, fmt.Errorf("ReplicatePChannelMeta.target_cluster: %w", err)
	}
	out := &ReplicatingPChannelMeta{Source: m.String(1), Target: m.String(2), TargetCluster: clusterOf(&cluster), SkipGet: m.Varint(5) != 0}
	if m.Has(4) {
		var cp commonpb.ReplicateCheckpoint
		if err := proto.Unmarshal(m.BytesOf(4), &cp); err != nil {
			return nil, fmt.Errorf("ReplicatePChannelMeta.initialized_checkpoint: %w", err)
		}
		out.Initialized = positionOf(&cp)
	}
	return out, nil
}

// ReplicateCheckpointOf decodes the replicate_checkpoint of a consume
// checkpoint value (nil when it has none).
func ReplicateCheckpointOf(b []byte) (*ReplicatePosition, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, err
	}
	f, ok := m.Get(cpReplicateCheckpoint)
	if !ok || f.Type != protowire.BytesType {
		return nil, nil
	}
	var cp commonpb.ReplicateCheckpoint
	if err := proto.Unmarshal(f.Payload, &cp); err != nil {
		return nil, fmt.Errorf("WALCheckpoint.replicate_checkpoint: %w", err)
	}
	return positionOf(&cp), nil
}
