package models_test

import (
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/schemapb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

func marshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	return b
}

// unknownField is a field of a later Milvus (number 99): it must survive.
var unknownField = (&wire.Builder{}).String(99, "later").Build()

// collectionInfo is an etcdpb.CollectionInfo of a 2.2+ collection (no
// inline fields) whose schema carries an unknown field, with two properties.
func collectionInfo(t *testing.T, schema *schemapb.CollectionSchema, extra ...[]byte) []byte {
	t.Helper()
	s := append(marshal(t, schema), unknownField...)
	var b wire.Builder
	b.Varint(1, 100).Message(2, s).Varint(3, 7)
	for _, kv := range []*commonpb.KeyValuePair{{Key: "collection.ttl.seconds", Value: "60"}, {Key: "mmap.enabled", Value: "true"}} {
		b.Message(14, marshal(t, kv))
	}
	for _, e := range extra {
		b.Raw(e)
	}
	return b.Build()
}

// The schema is the collection info's (unknown field and all) with the
// fields, struct array fields and functions of their prefixes, byte for
// byte, and the collection's properties; wrapped with time tick 0, NORMAL.
func TestVChannelSchemaCollectsRootcoordParts(t *testing.T) {
	field := append(marshal(t, &schemapb.FieldSchema{FieldID: 100, Name: "id", IsPrimaryKey: true, DataType: schemapb.DataType_Int64}), unknownField...)
	vector := marshal(t, &schemapb.FieldSchema{FieldID: 101, Name: "vector", DataType: schemapb.DataType_FloatVector})
	structs := marshal(t, &schemapb.StructArrayFieldSchema{FieldID: 102, Name: "chunks"})
	fn := marshal(t, &schemapb.FunctionSchema{Id: 7, Name: "bm25", Type: schemapb.FunctionType_BM25})
	c := &models.RootcoordCollection{
		Info:   collectionInfo(t, &schemapb.CollectionSchema{Name: "books", DbName: "library", Version: 3, Properties: []*commonpb.KeyValuePair{{Key: "stale", Value: "x"}}}),
		Fields: [][]byte{field, vector}, StructArrayFields: [][]byte{structs}, Functions: [][]byte{fn},
	}
	v, err := c.VChannelSchema()
	require.NoError(t, err)
	m, err := wire.Parse(v)
	require.NoError(t, err)
	assert.False(t, m.Has(2), "checkpoint_time_tick is 0")
	assert.EqualValues(t, 1, m.Varint(3), "state NORMAL")
	raw := m.BytesOf(1)
	var s schemapb.CollectionSchema
	require.NoError(t, proto.Unmarshal(raw, &s))
	assert.Equal(t, "books", s.GetName())
	assert.Equal(t, "library", s.GetDbName())
	assert.EqualValues(t, 3, s.GetVersion())
	require.Len(t, s.GetFields(), 2)
	assert.EqualValues(t, 100, s.GetFields()[0].GetFieldID())
	assert.Equal(t, "vector", s.GetFields()[1].GetName())
	require.Len(t, s.GetStructArrayFields(), 1)
	assert.Equal(t, "chunks", s.GetStructArrayFields()[0].GetName())
	require.Len(t, s.GetFunctions(), 1)
	assert.Equal(t, "bm25", s.GetFunctions()[0].GetName())
	props := map[string]string{}
	for _, kv := range s.GetProperties() {
		props[kv.GetKey()] = kv.GetValue()
	}
	assert.Equal(t, map[string]string{"collection.ttl.seconds": "60", "mmap.enabled": "true"}, props)

	sm, err := wire.Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, "later", sm.String(99), "the schema's unknown field")
	assert.Equal(t, field, sm.All(4)[0].Payload, "a field keeps its bytes, unknown field and all")
}

// A schema that holds its fields inline (before Milvus 2.1.1) keeps them
// when rootcoord's prefixes hold none, and keeps its own properties when the
// collection has none.
func TestVChannelSchemaKeepsInlineFields(t *testing.T) {
	schema := &schemapb.CollectionSchema{Name: "old", Fields: []*schemapb.FieldSchema{{FieldID: 100, Name: "pk"}},
		Properties: []*commonpb.KeyValuePair{{Key: "own", Value: "1"}}}
	info := (&wire.Builder{}).Varint(1, 5).Message(2, marshal(t, schema)).Build()
	got, err := (&models.RootcoordCollection{Info: info}).CollectionSchema()
	require.NoError(t, err)
	var s schemapb.CollectionSchema
	require.NoError(t, proto.Unmarshal(got, &s))
	require.Len(t, s.GetFields(), 1)
	assert.Equal(t, "pk", s.GetFields()[0].GetName())
	require.Len(t, s.GetProperties(), 1)
	assert.Equal(t, "own", s.GetProperties()[0].GetKey())
}

// The new meta: vchannel, NORMAL, the collection and its live partitions
// (Created under root-coord/partitions, or the inline partitionIDs), no
// inline schema, the checkpoint time tick.
func TestNewVChannelMeta(t *testing.T) {
	part := func(id int64, state uint64) []byte {
		return (&wire.Builder{}).Varint(1, uint64(id)).String(2, "p").Varint(4, 100).Varint(5, state).Build()
	}
	c := &models.RootcoordCollection{Info: collectionInfo(t, &schemapb.CollectionSchema{Name: "books"}),
		Partitions: [][]byte{part(101, 0), part(102, 2), part(103, 0)}}
	v, err := models.NewVChannelMeta("dml_0_100v0", 100, c, 4242)
	require.NoError(t, err)
	m, err := models.DecodeVChannelMeta(v)
	require.NoError(t, err)
	assert.Equal(t, models.VChannelMeta{VChannel: "dml_0_100v0", State: models.VChannelNormal, CollectionID: 100,
		Partitions: []int64{101, 103}, CheckpointTimeTick: 4242}, *m)

	packed := (&wire.Builder{}).Bytes(4, []byte{0x65, 0x66}).Build() // partitionIDs [101 102], packed
	c = &models.RootcoordCollection{Info: collectionInfo(t, &schemapb.CollectionSchema{Name: "old"}, packed), Partitions: [][]byte{part(103, 0)}}
	v, err = models.NewVChannelMeta("dml_0_100v0", 100, c, 1)
	require.NoError(t, err)
	m, err = models.DecodeVChannelMeta(v)
	require.NoError(t, err)
	assert.Equal(t, []int64{101, 102}, m.Partitions, "inline partitionIDs win")
	assert.Zero(t, m.Schemas)
	assert.Equal(t, "dml_0_100v0/schema/0", models.VChannelSchemaKey("p", "dml_0_100v0", 0)[len(models.VChannelPrefix("p")):])
}

// Values that do not decode are errors, never panics.
func TestVChannelBuildersRefuseBadValues(t *testing.T) {
	for name, c := range map[string]*models.RootcoordCollection{
		"not protobuf":   {Info: []byte{0xff}},
		"no schema":      {Info: (&wire.Builder{}).Varint(1, 5).Build()},
		"schema varint":  {Info: (&wire.Builder{}).Varint(2, 5).Build()},
		"bad partition":  {Info: collectionInfo(t, &schemapb.CollectionSchema{}), Partitions: [][]byte{{0xff}}},
		"bad properties": {Info: (&wire.Builder{}).Message(2, nil).Varint(14, 1).Build()},
	} {
		_, err1 := c.VChannelSchema()
		_, err2 := models.NewVChannelMeta("v", 1, c, 1)
		assert.True(t, err1 != nil || err2 != nil, name)
	}
	_, err := models.DecodeVChannelMeta([]byte{0xff})
	assert.Error(t, err)
	_, err = models.DecodeVChannelMeta((&wire.Builder{}).Message(3, (&wire.Builder{}).Varint(2, 1).Build()).Build())
	assert.Error(t, err, "a partition that is not a message")
}

// A VChannelMeta's collection_info written twice is merged, as proto does:
// its schemas add up (a NORMAL meta with none panics Milvus 2.6.0).
func TestDecodeVChannelMetaMerges(t *testing.T) {
	m, err := models.DecodeVChannelMeta(sample.VChannelMeta("p_100v0", 100))
	if err != nil || m.State != models.VChannelNormal || m.CollectionID != 100 || m.Schemas != 0 || m.VChannel != "p_100v0" {
		t.Fatalf("sample meta: %+v %v", m, err)
	}
	split := (&wire.Builder{}).String(1, "p_100v0").Varint(2, 1).
		Message(3, (&wire.Builder{}).Varint(1, 100).Build()).
		Message(3, (&wire.Builder{}).Message(3, sample.Schema("books")).Build()).Build()
	if m, err = models.DecodeVChannelMeta(split); err != nil || m.CollectionID != 100 || m.Schemas != 1 {
		t.Fatalf("merged collection_info: %+v %v", m, err)
	}
	dropped := (&wire.Builder{}).String(1, "p_100v0").Varint(2, 2).Build()
	if m, err = models.DecodeVChannelMeta(dropped); err != nil || m.State != models.VChannelDropped {
		t.Fatalf("dropped: %+v %v", m, err)
	}
	for _, bad := range [][]byte{{0xff}, (&wire.Builder{}).Varint(3, 1).Build()} {
		if _, err := models.DecodeVChannelMeta(bad); err == nil {
			t.Errorf("%x decodes", bad)
		}
	}
}
