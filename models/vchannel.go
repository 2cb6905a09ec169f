package models

import (
	"fmt"
	"strconv"

	"github.com/milvus-io/milvus-proto/go-api/v3/schemapb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models/wire"
)

// The streaming node's recovery storage of a vchannel (Milvus 2.6
// internal/metastore/kv/streamingnode kv_catalog.go): the VChannelMeta at
// streamingnode-meta/wal/{p}/vchannel/{v}, saved without its schemas, and each
// schema of its timeline at .../vchannel/{v}/schema/{checkpoint_time_tick}.
// ListVChannel panics ("vchannel %s has no schemas in recovery info", milvus
// #43538) when a vchannel meta has no schema key.
const vchannelSchemaPart = "/schema/"

// VChannelSchemaPrefix holds the schema timeline of vchannel v on pchannel p.
func VChannelSchemaPrefix(pchannel, vchannel string) string {
	return VChannelMetaKey(pchannel, vchannel) + vchannelSchemaPart
}

// VChannelSchemaKey is the schema of vchannel v whose checkpoint_time_tick is version.
func VChannelSchemaKey(pchannel, vchannel string, version uint64) string {
	return VChannelSchemaPrefix(pchannel, vchannel) + strconv.FormatUint(version, 10)
}

// Rootcoord's prefixes of a collection's fields, struct array fields and
// functions (Milvus 2.6 internal/metastore/kv/rootcoord: FieldMetaPrefix
// "root-coord/fields", StructArrayFieldMetaPrefix
// "root-coord/struct-array-fields", FunctionMetaPrefix "root-coord/functions";
// keys {prefix}/{collID}/{id}, values schemapb.FieldSchema,
// StructArrayFieldSchema, FunctionSchema).
const (
	FieldPrefix            = "root-coord/fields/"
	StructArrayFieldPrefix = "root-coord/struct-array-fields/"
	FunctionPrefix         = "root-coord/functions/"
)

// FieldPrefixOf is the prefix of one collection's fields.
func FieldPrefixOf(collection int64) string { return FieldPrefix + itoa(collection) + "/" }

// StructArrayFieldPrefixOf is the prefix of one collection's struct array fields.
func StructArrayFieldPrefixOf(collection int64) string {
	return StructArrayFieldPrefix + itoa(collection) + "/"
}

// FunctionPrefixOf is the prefix of one collection's functions.
func FunctionPrefixOf(collection int64) string { return FunctionPrefix + itoa(collection) + "/" }

// CheckSchemaPart reports whether v, a value under prefix (FieldPrefix,
// StructArrayFieldPrefix or FunctionPrefix), decodes as the schemapb
// message rootcoord keeps there: CollectionSchema copies it byte for byte
// into a schema that the streaming node's catalog unmarshals.
func CheckSchemaPart(prefix string, v []byte) error {
	var m proto.Message
	switch prefix {
	case FieldPrefix:
		m = &schemapb.FieldSchema{}
	case StructArrayFieldPrefix:
		m = &schemapb.StructArrayFieldSchema{}
	case FunctionPrefix:
		m = &schemapb.FunctionSchema{}
	default:
		return fmt.Errorf("%s holds no schema part", prefix)
	}
	if err := proto.Unmarshal(v, m); err != nil {
		return fmt.Errorf("not a %s: %w", m.ProtoReflect().Descriptor().Name(), err)
	}
	return nil
}

// VChannelState is streamingpb.VChannelState (pkg/v2@v2.6.23 proto/streaming.proto).
type VChannelState int32

const (
	VChannelUnknown VChannelState = 0
	VChannelNormal  VChannelState = 1
	VChannelDropped VChannelState = 2
)

func (s VChannelState) String() string {
	switch s {
	case VChannelUnknown:
		return "UNKNOWN"
	case VChannelNormal:
		return "NORMAL"
	case VChannelDropped:
		return "DROPPED"
	}
	return "STATE_" + strconv.Itoa(int(s))
}

// streamingpb field numbers (pkg/v2@v2.6.23 proto/streaming.proto):
// VChannelMeta {vchannel 1, state 2, collection_info 3, checkpoint_time_tick 4},
// CollectionInfoOfVChannel {collection_id 1, partitions 2, schemas 3},
// PartitionInfoOfVChannel {partition_id 1}, CollectionSchemaOfVChannel
// {schema 1, checkpoint_time_tick 2, state 3}; VChannelSchemaState NORMAL is 1.
const (
	vcmVChannel           protowire.Number = 1
	vcmState              protowire.Number = 2
	vcmCollectionInfo     protowire.Number = 3
	vcmTimeTick           protowire.Number = 4
	civCollectionID       protowire.Number = 1
	civPartitions         protowire.Number = 2
	civSchemas            protowire.Number = 3
	pivPartitionID        protowire.Number = 1
	csvSchema             protowire.Number = 1
	csvCheckpointTimeTick protowire.Number = 2
	csvState              protowire.Number = 3
	schemaStateNormal                      = 1
)

// VChannelMeta is the decoded view of streamingpb.VChannelMeta.
type VChannelMeta struct {
	VChannel     string
	State        VChannelState
	CollectionID int64
	Partitions   []int64
	// Schemas counts collection_info.schemas held inline (Milvus keeps them
	// under their own keys: a meta it wrote holds none).
	Schemas            int
	CheckpointTimeTick uint64
}

// DecodeVChannelMeta decodes a vchannel meta value.
func DecodeVChannelMeta(b []byte) (*VChannelMeta, error) {
	vm := &VChannelMeta{}
	// A message field written twice merges, as proto decodes it: its
	// schemas and partitions add up, its collection id is the last.
	// wire.Each keeps no field: a scan decodes every vchannel's meta.
	var shape error // a message field that is not one
	collectionInfo := func(f wire.Field) error {
		switch f.Num {
		case civCollectionID:
			vm.CollectionID = int64(wire.VarintOf(f))
		case civSchemas:
			vm.Schemas++
		case civPartitions:
			var id uint64
			err := wire.Each(f.Payload, func(p wire.Field) error {
				if p.Num == pivPartitionID {
					id = wire.VarintOf(p)
				}
				return nil
			})
			if err != nil || f.Type != protowire.BytesType {
				shape = fmt.Errorf("VChannelMeta.collection_info.partitions[%d]: not a message", len(vm.Partitions))
				return shape
			}
			vm.Partitions = append(vm.Partitions, int64(id))
		}
		return nil
	}
	err := wire.Each(b, func(f wire.Field) error {
		switch f.Num {
		case vcmVChannel:
			vm.VChannel = string(wire.BytesOf(f))
		case vcmState:
			vm.State = VChannelState(int32(wire.VarintOf(f)))
		case vcmTimeTick:
			vm.CheckpointTimeTick = wire.VarintOf(f)
		case vcmCollectionInfo:
			if f.Type != protowire.BytesType || wire.Each(f.Payload, collectionInfo) != nil && shape == nil {
				shape = fmt.Errorf("VChannelMeta.collection_info: not a message")
			}
			return shape
		}
		return nil
	})
	switch {
	case shape != nil:
		return nil, shape
	case err != nil:
		return nil, fmt.Errorf("not a VChannelMeta: %w", err)
	}
	return vm, nil
}

// RootcoordCollection is what rootcoord keeps of one collection: its
// collection-info value and the values under its partition, field, struct
// array field and function prefixes, in key order, tombstones left out.
type RootcoordCollection struct {
	Info                                             []byte
	Partitions, Fields, StructArrayFields, Functions [][]byte
}

// etcdpb.CollectionInfo fields the vchannel repairs read (pkg/v2@v2.6.23
// proto/etcd_meta.proto): the deprecated inline partitionIDs 4 and properties 14.
const (
	collPartitionIDs protowire.Number = 4
	collProperties   protowire.Number = 14
)

// schemapb.CollectionSchema fields the builder fills (milvus-proto go-api v3
// schemapb/schema.pb.go): fields 4, properties 6, functions 7,
// struct_array_fields 9.
const (
	csFields            protowire.Number = 4
	csProperties        protowire.Number = 6
	csFunctions         protowire.Number = 7
	csStructArrayFields protowire.Number = 9
)

// PartitionIDs are the collection's partitions as the streaming node tracks
// them: the collection info's inline partitionIDs (a collection written
// before Milvus 2.1.x), else every partition under root-coord/partitions/ in
// state PartitionCreated (one Dropping already had its DropPartition message
// appended; one Creating has not had its CreatePartition yet, which the WAL
// replays onto the meta).
func (c *RootcoordCollection) PartitionIDs() ([]int64, error) {
	m, err := wire.Parse(c.Info)
	if err != nil {
		return nil, fmt.Errorf("not a CollectionInfo: %w", err)
	}
	if m.Has(collPartitionIDs) {
		return int64s(m, collPartitionIDs, "CollectionInfo.partitionIDs")
	}
	var ids []int64
	for _, v := range c.Partitions {
		p, err := DecodePartitionInfo(v)
		if err != nil {
			return nil, err
		}
		if p.State == partitionStates[0] {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// CollectionSchema is the collection's whole schemapb.CollectionSchema as
// rootcoord assembles it after a restart (internal/metastore/kv/rootcoord
// appendPartitionAndFieldsInfo): the collection info's schema, every byte and
// unknown field kept, with the fields, struct array fields and functions of
// its own prefixes (Milvus 2.1.1+ keeps them apart; each replaces what the
// schema holds inline only when its prefix holds any, so an older schema
// keeps its inline fields), and the collection's properties (CollectionInfo
// 14) as the schema's, as birdwatcher's WALRecoveryStorageCommand does.
func (c *RootcoordCollection) CollectionSchema() ([]byte, error) {
	info, err := wire.Parse(c.Info)
	if err != nil {
		return nil, fmt.Errorf("not a CollectionInfo: %w", err)
	}
	schema, err := sub(info, collSchema, "CollectionInfo.schema")
	if err != nil {
		return nil, err
	}
	if schema == nil {
		return nil, fmt.Errorf("CollectionInfo has no schema")
	}
	for _, part := range []struct {
		num    protowire.Number
		values [][]byte
	}{{csFields, c.Fields}, {csStructArrayFields, c.StructArrayFields}, {csFunctions, c.Functions}} {
		if len(part.values) > 0 {
			schema.SetAll(part.num, part.values)
		}
	}
	var props [][]byte
	for _, f := range info.All(collProperties) {
		if f.Type != protowire.BytesType {
			return nil, fmt.Errorf("CollectionInfo.properties: wire type %d, want a message", f.Type)
		}
		props = append(props, f.Payload)
	}
	if len(props) > 0 {
		schema.SetAll(csProperties, props)
	}
	return schema.Bytes(), nil
}

// VChannelSchema is a streamingpb.CollectionSchemaOfVChannel holding the
// collection's schema (CollectionSchema) with checkpoint_time_tick 0 and
// state NORMAL, as birdwatcher's WALRecoveryStorageCommand writes it: the
// recovery storage picks the last schema whose time tick is at most the
// one asked (vchannelRecoveryInfo.GetSchema), so 0 serves every time tick.
// Its key is VChannelSchemaKey(p, v, 0).
func (c *RootcoordCollection) VChannelSchema() ([]byte, error) {
	schema, err := c.CollectionSchema()
	if err != nil {
		return nil, err
	}
	var b wire.Builder
	return b.Message(csvSchema, schema).Varint(csvState, schemaStateNormal).Build(), nil
}

// NewVChannelMeta is the VChannelMeta the streaming node would hold for
// vchannel of collection id: NORMAL, the collection's partitions
// (PartitionIDs), no inline schema (the catalog saves them under their own
// keys), seen up to checkpointTimeTick.
func NewVChannelMeta(vchannel string, id int64, c *RootcoordCollection, checkpointTimeTick uint64) ([]byte, error) {
	parts, err := c.PartitionIDs()
	if err != nil {
		return nil, err
	}
	var ci wire.Builder
	ci.Varint(civCollectionID, uint64(id))
	for _, p := range parts {
		var pb wire.Builder
		ci.Message(civPartitions, pb.Varint(pivPartitionID, uint64(p)).Build())
	}
	var b wire.Builder
	return b.String(vcmVChannel, vchannel).Varint(vcmState, uint64(VChannelNormal)).Message(vcmCollectionInfo, ci.Build()).
		Varint(vcmTimeTick, checkpointTimeTick).Build(), nil
}

// Describe is the meta in words: "NORMAL, collection 100, partitions [101],
// checkpoint time tick 42".
func (m *VChannelMeta) Describe() string {
	return fmt.Sprintf("%s, collection %d, partitions %v, checkpoint time tick %d", m.State, m.CollectionID, m.Partitions, m.CheckpointTimeTick)
}

// CheckVChannelSchema reports whether b, a vchannel's schema key, decodes
// as the streaming node's catalog reads it (ListVChannel unmarshals every
// one): a CollectionSchemaOfVChannel whose schema is a CollectionSchema.
func CheckVChannelSchema(b []byte) error {
	m, err := wire.Parse(b)
	if err != nil {
		return fmt.Errorf("not a CollectionSchemaOfVChannel: %w", err)
	}
	f, ok := m.Get(csvSchema)
	if ok && f.Type != protowire.BytesType {
		return fmt.Errorf("CollectionSchemaOfVChannel.schema has wire type %d, not a message", f.Type)
	}
	if err := proto.Unmarshal(f.Payload, &schemapb.CollectionSchema{}); err != nil {
		return fmt.Errorf("CollectionSchemaOfVChannel.schema: not a CollectionSchema: %w", err)
	}
	return nil
}

// DescribeVChannelSchema is a CollectionSchemaOfVChannel in words:
// `schema "books": 2 fields, 0 struct array fields, 1 functions, 1
// properties; checkpoint time tick 0, state 1`.
func DescribeVChannelSchema(b []byte) string {
	m, err := wire.Parse(b)
	if err != nil {
		return "not a CollectionSchemaOfVChannel: " + err.Error()
	}
	s, err := sub(m, csvSchema, "CollectionSchemaOfVChannel.schema")
	if err != nil || s == nil {
		return fmt.Sprintf("no schema (%v)", err)
	}
	return fmt.Sprintf("schema %q: %d fields, %d struct array fields, %d functions, %d properties; checkpoint time tick %d, state %d",
		s.String(schemaName), len(s.All(csFields)), len(s.All(csStructArrayFields)), len(s.All(csFunctions)), len(s.All(csProperties)),
		m.Varint(csvCheckpointTimeTick), m.Varint(csvState))
}
