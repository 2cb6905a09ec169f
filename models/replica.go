package models

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// ReplicaPrefix holds querycoord's replicas: querycoord-replica/{collID}/{replicaID}.
// Not verified in pkg/v2 v2.6.23: the prefix is built in Milvus's root module
// (internal/metastore/kv/querycoord, ReplicaPrefix = "querycoord-replica"),
// which pkg does not hold. The pre-2.3 layout (queryCoord-ReplicaMeta/) is not read.
const ReplicaPrefix = "querycoord-replica/"

// querypb.Replica and querypb.ChannelNodeInfo field numbers (pkg/v2 v2.6.23
// proto/query_coord.proto).
const (
	repID            protowire.Number = 1
	repCollection    protowire.Number = 2
	repNodes         protowire.Number = 3
	repResourceGroup protowire.Number = 4
	repRONodes       protowire.Number = 5
	repChannelNodes  protowire.Number = 6 // map<string, ChannelNodeInfo>
	repRWSQNodes     protowire.Number = 7
	repROSQNodes     protowire.Number = 8

	channelNodeRW protowire.Number = 6

	mapKey   protowire.Number = 1
	mapValue protowire.Number = 2
)

// ChannelNodes is one entry of Replica.channel_node_infos: the read-write
// nodes of a channel.
type ChannelNodes struct {
	Channel string  `json:"channel"`
	RWNodes []int64 `json:"rw_nodes"`
}

// Replica is the decoded view of querypb.Replica.
type Replica struct {
	ID            int64          `json:"id"`
	CollectionID  int64          `json:"collection_id"`
	ResourceGroup string         `json:"resource_group"`
	Nodes         []int64        `json:"nodes"`
	RONodes       []int64        `json:"ro_nodes"`
	RWSQNodes     []int64        `json:"rw_sq_nodes"`
	ROSQNodes     []int64        `json:"ro_sq_nodes"`
	ChannelNodes  []ChannelNodes `json:"channel_node_infos"`
}

// DecodeReplica decodes a querycoord-replica value.
func DecodeReplica(b []byte) (*Replica, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a Replica: %w", err)
	}
	r := &Replica{ID: int64(m.Varint(repID)), CollectionID: int64(m.Varint(repCollection)), ResourceGroup: m.String(repResourceGroup), ChannelNodes: []ChannelNodes{}}
	for _, f := range []struct {
		num  protowire.Number
		dst  *[]int64
		what string
	}{
		{repNodes, &r.Nodes, "Replica.nodes"}, {repRONodes, &r.RONodes, "Replica.ro_nodes"},
		{repRWSQNodes, &r.RWSQNodes, "Replica.rw_sq_nodes"}, {repROSQNodes, &r.ROSQNodes, "Replica.ro_sq_nodes"},
	} {
		if *f.dst, err = int64s(m, f.num, f.what); err != nil {
			return nil, err
		}
	}
	for _, f := range m.All(repChannelNodes) {
		if f.Type != protowire.BytesType {
			return nil, fmt.Errorf("Replica.channel_node_infos: wire type %d, want a map entry", f.Type)
		}
		entry, err := wire.Parse(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("Replica.channel_node_infos: %w", err)
		}
		cn := ChannelNodes{Channel: entry.String(mapKey), RWNodes: []int64{}}
		info, err := sub(entry, mapValue, "Replica.channel_node_infos["+cn.Channel+"]")
		if err != nil {
			return nil, err
		}
		if info != nil {
			if cn.RWNodes, err = int64s(info, channelNodeRW, "ChannelNodeInfo.rw_nodes"); err != nil {
				return nil, err
			}
		}
		r.ChannelNodes = append(r.ChannelNodes, cn)
	}
	// A map has no order on the wire: sort so that output is stable.
	sort.Slice(r.ChannelNodes, func(i, j int) bool { return NaturalLess(r.ChannelNodes[i].Channel, r.ChannelNodes[j].Channel) })
	return r, nil
}

// ParseReplicaKey returns the collection and replica ids of a replica key.
func ParseReplicaKey(rel string) (collection, replica int64, ok bool) {
	ids, ok := idsUnder(rel, ReplicaPrefix, 2)
	if !ok {
		return 0, 0, false
	}
	return ids[0], ids[1], true
}
