package models

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// PartitionPrefix holds rootcoord's partitions: root-coord/partitions/{collID}/{partID}.
// Not verified in pkg/v2 v2.6.23: the prefix is built in Milvus's root module
// (internal/metastore/kv/rootcoord, PartitionMetaPrefix = "root-coord/partitions"),
// which pkg does not hold. Collections written before Milvus 2.2 keep their
// partitions inside the collection info instead; those are not listed here.
const PartitionPrefix = "root-coord/partitions/"

// PartitionPrefixOf is the prefix of one collection's partitions.
func PartitionPrefixOf(collection int64) string { return PartitionPrefix + itoa(collection) + "/" }

// etcdpb.PartitionInfo field numbers (pkg/v2 v2.6.23 proto/etcd_meta.proto).
const (
	partID          protowire.Number = 1
	partName        protowire.Number = 2
	partCreatedTime protowire.Number = 3
	partCollection  protowire.Number = 4
	partState       protowire.Number = 5
)

// etcdpb.PartitionState.
var partitionStates = map[uint64]string{0: "PartitionCreated", 1: "PartitionCreating", 2: "PartitionDropping", 3: "PartitionDropped"}

// PartitionInfo is the decoded view of etcdpb.PartitionInfo.
type PartitionInfo struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	CollectionID int64  `json:"collection_id"`
	State        string `json:"state"`
	CreatedTime  uint64 `json:"created_time"`
}

// DecodePartitionInfo decodes a partition value (not a tombstone: see IsTombstone).
func DecodePartitionInfo(b []byte) (*PartitionInfo, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a PartitionInfo: %w", err)
	}
	return &PartitionInfo{
		ID:           int64(m.Varint(partID)),
		Name:         m.String(partName),
		CollectionID: int64(m.Varint(partCollection)),
		State:        stateName(partitionStates, m.Varint(partState)),
		CreatedTime:  m.Varint(partCreatedTime),
	}, nil
}

// ParsePartitionKey returns the collection and partition ids of a partition key.
func ParsePartitionKey(rel string) (collection, partition int64, ok bool) {
	ids, ok := idsUnder(rel, PartitionPrefix, 2)
	if !ok {
		return 0, 0, false
	}
	return ids[0], ids[1], true
}
