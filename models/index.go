package models

import (
	"fmt"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// Index metadata of datacoord. The prefixes are util.FieldIndexPrefix and
// util.SegmentIndexPrefix (pkg/v2 v2.6.23 util/constant.go); the ids below
// them, field-index/{collID}/{indexID} and
// segment-index/{collID}/{partID}/{segID}/{buildID}, are built in Milvus's
// root module (internal/metastore/kv/datacoord) and not verified in pkg/v2 v2.6.23.
const (
	FieldIndexPrefix   = "field-index/"
	SegmentIndexPrefix = "segment-index/"
)

// FieldIndexPrefixOf and SegmentIndexPrefixOf are the prefixes of one collection.
func FieldIndexPrefixOf(collection int64) string { return FieldIndexPrefix + itoa(collection) + "/" }

// SegmentIndexPrefixOf is the prefix of one collection's segment indexes.
func SegmentIndexPrefixOf(collection int64) string {
	return SegmentIndexPrefix + itoa(collection) + "/"
}

// indexpb.FieldIndex, indexpb.IndexInfo and indexpb.SegmentIndex field
// numbers (pkg/v2 v2.6.23 proto/index_coord.proto).
const (
	fiIndexInfo  protowire.Number = 1
	fiDeleted    protowire.Number = 2
	fiCreateTime protowire.Number = 3

	iiCollection  protowire.Number = 1
	iiField       protowire.Number = 2
	iiName        protowire.Number = 3
	iiIndexID     protowire.Number = 4
	iiTypeParams  protowire.Number = 5
	iiIndexParams protowire.Number = 6
	iiAutoIndex   protowire.Number = 11
	iiUserParams  protowire.Number = 12

	siCollection   protowire.Number = 1
	siPartition    protowire.Number = 2
	siSegment      protowire.Number = 3
	siNumRows      protowire.Number = 4
	siIndexID      protowire.Number = 5
	siBuildID      protowire.Number = 6
	siNodeID       protowire.Number = 7
	siIndexVersion protowire.Number = 8
	siState        protowire.Number = 9
	siFailReason   protowire.Number = 10
	siFileKeys     protowire.Number = 11
	siDeleted      protowire.Number = 12
	siCreateTime   protowire.Number = 13
	siSerialSize   protowire.Number = 14
)

// FieldIndex is the decoded view of indexpb.FieldIndex: an index of one field.
type FieldIndex struct {
	CollectionID    int64      `json:"collection_id"`
	FieldID         int64      `json:"field_id"`
	IndexID         int64      `json:"index_id"`
	Name            string     `json:"index_name"`
	TypeParams      []KeyValue `json:"type_params"`
	IndexParams     []KeyValue `json:"index_params"`
	UserIndexParams []KeyValue `json:"user_index_params"`
	AutoIndex       bool       `json:"is_auto_index"`
	Deleted         bool       `json:"deleted"`
	CreateTime      uint64     `json:"create_time"`
}

// IndexType is the index_type index param, "" when absent.
func (f *FieldIndex) IndexType() string {
	for _, kv := range f.IndexParams {
		if kv.Key == "index_type" {
			return kv.Value
		}
	}
	return ""
}

// DecodeFieldIndex decodes a field-index value.
func DecodeFieldIndex(b []byte) (*FieldIndex, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a FieldIndex: %w", err)
	}
	fi := &FieldIndex{Deleted: m.Varint(fiDeleted) != 0, CreateTime: m.Varint(fiCreateTime)}
	info, err := sub(m, fiIndexInfo, "FieldIndex.index_info")
	if err != nil {
		return nil, err
	}
	if info == nil {
		info = &wire.Message{}
	}
	fi.CollectionID = int64(info.Varint(iiCollection))
	fi.FieldID = int64(info.Varint(iiField))
	fi.IndexID = int64(info.Varint(iiIndexID))
	fi.Name = info.String(iiName)
	fi.AutoIndex = info.Varint(iiAutoIndex) != 0
	for _, p := range []struct {
		num  protowire.Number
		dst  *[]KeyValue
		what string
	}{
		{iiTypeParams, &fi.TypeParams, "IndexInfo.type_params"},
		{iiIndexParams, &fi.IndexParams, "IndexInfo.index_params"},
		{iiUserParams, &fi.UserIndexParams, "IndexInfo.user_index_params"},
	} {
		if *p.dst, err = keyValues(info, p.num, p.what); err != nil {
			return nil, err
		}
	}
	return fi, nil
}

// SegmentIndex is the decoded view of indexpb.SegmentIndex: one index build
// of one segment.
type SegmentIndex struct {
	CollectionID   int64    `json:"collection_id"`
	PartitionID    int64    `json:"partition_id"`
	SegmentID      int64    `json:"segment_id"`
	NumRows        int64    `json:"num_rows"`
	IndexID        int64    `json:"index_id"`
	BuildID        int64    `json:"build_id"`
	NodeID         int64    `json:"node_id"`
	IndexVersion   int64    `json:"index_version"`
	State          string   `json:"state"`
	FailReason     string   `json:"fail_reason,omitempty"`
	IndexFileKeys  []string `json:"index_file_keys"`
	Deleted        bool     `json:"deleted"`
	CreateTime     uint64   `json:"create_time"`
	SerializedSize uint64   `json:"serialize_size"`
}

// DecodeSegmentIndex decodes a segment-index value.
func DecodeSegmentIndex(b []byte) (*SegmentIndex, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a SegmentIndex: %w", err)
	}
	si := &SegmentIndex{
		CollectionID:   int64(m.Varint(siCollection)),
		PartitionID:    int64(m.Varint(siPartition)),
		SegmentID:      int64(m.Varint(siSegment)),
		NumRows:        int64(m.Varint(siNumRows)),
		IndexID:        int64(m.Varint(siIndexID)),
		BuildID:        int64(m.Varint(siBuildID)),
		NodeID:         int64(m.Varint(siNodeID)),
		IndexVersion:   int64(m.Varint(siIndexVersion)),
		State:          commonpb.IndexState(int32(m.Varint(siState))).String(),
		FailReason:     m.String(siFailReason),
		IndexFileKeys:  []string{},
		Deleted:        m.Varint(siDeleted) != 0,
		CreateTime:     m.Varint(siCreateTime),
		SerializedSize: m.Varint(siSerialSize),
	}
	for _, f := range m.All(siFileKeys) {
		si.IndexFileKeys = append(si.IndexFileKeys, string(f.Payload))
	}
	return si, nil
}

// ParseFieldIndexKey returns the collection and index ids of a field-index key.
func ParseFieldIndexKey(rel string) (collection, index int64, ok bool) {
	ids, ok := idsUnder(rel, FieldIndexPrefix, 2)
	if !ok {
		return 0, 0, false
	}
	return ids[0], ids[1], true
}

// SegmentIndexKey is the parsed key of a segment index.
type SegmentIndexKey struct {
	Collection, Partition, Segment, Build int64
}

// ParseSegmentIndexKey parses a segment-index key.
func ParseSegmentIndexKey(rel string) (SegmentIndexKey, bool) {
	ids, ok := idsUnder(rel, SegmentIndexPrefix, 4)
	if !ok {
		return SegmentIndexKey{}, false
	}
	return SegmentIndexKey{ids[0], ids[1], ids[2], ids[3]}, true
}

// idsUnder parses the n decimal ids of a key under prefix.
func idsUnder(rel, prefix string, n int) ([]int64, bool) {
	rest, ok := strings.CutPrefix(rel, prefix)
	if !ok {
		return nil, false
	}
	ids, ok := parseIDs(strings.Split(rest, "/"))
	if !ok || len(ids) != n {
		return nil, false
	}
	return ids, true
}
