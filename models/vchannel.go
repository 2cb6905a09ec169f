package models

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// VChannelMeta fields (pkg/v2@v2.6.23 proto/streaming.proto VChannelMeta:
// vchannel 1, state 2, collection_info 3 (CollectionInfoOfVChannel:
// collection_id 1, partitions 2, schemas 3), checkpoint_time_tick 4).
const (
	vcmName        protowire.Number = 1
	vcmState       protowire.Number = 2
	vcmCollection  protowire.Number = 3
	vciCollection  protowire.Number = 1
	vciSchemas     protowire.Number = 3
	vchannelNormal                  = 1 // VCHANNEL_STATE_NORMAL
)

// VChannelMeta is what heron reads of a streaming node's vchannel meta.
type VChannelMeta struct {
	VChannel   string
	Normal     bool
	Collection int64
	// Schemas counts the schemas in its collection_info; Milvus 2.6 keeps
	// the timeline under .../vchannel/{v}/schema/ instead (VChannelSchemaPrefix).
	Schemas int
}

// DecodeVChannelMeta decodes a streamingnode-meta/wal/{p}/vchannel/{v} value.
func DecodeVChannelMeta(b []byte) (*VChannelMeta, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a VChannelMeta: %w", err)
	}
	v := &VChannelMeta{VChannel: m.String(vcmName), Normal: m.Varint(vcmState) == vchannelNormal}
	// A singular message field repeated on the wire is merged (proto):
	// its repeated schemas add up.
	for _, f := range m.All(vcmCollection) {
		if f.Type != protowire.BytesType {
			return nil, fmt.Errorf("VChannelMeta.collection_info is not a message (wire type %d)", f.Type)
		}
		ci, err := wire.Parse(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("VChannelMeta.collection_info: %w", err)
		}
		if ci.Has(vciCollection) {
			v.Collection = int64(ci.Varint(vciCollection))
		}
		v.Schemas += len(ci.All(vciSchemas))
	}
	return v, nil
}

// VChannelSchemaPrefix holds the schema timeline of vchannel v on pchannel p
// (.../vchannel/{v}/schema/{time tick}).
func VChannelSchemaPrefix(pchannel, vchannel string) string {
	return VChannelMetaKey(pchannel, vchannel) + "/schema/"
}
