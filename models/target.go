package models

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// querypb.CollectionTarget / ChannelTarget field numbers.
const (
	targetCollection      protowire.Number = 1
	targetChannels        protowire.Number = 2 // repeated ChannelTarget
	targetVersion         protowire.Number = 3
	channelTargetName     protowire.Number = 1
	channelTargetSeek     protowire.Number = 5
	channelTargetDeleteCP protowire.Number = 6
)

// maxTargetSize bounds a decompressed target so that a corrupt value cannot
// exhaust memory.
const maxTargetSize = 512 << 20

var (
	zstdOnce    sync.Once
	zstdDecoder *zstd.Decoder
	zstdEncoder *zstd.Encoder
)

func zstdCodecs() (*zstd.Decoder, *zstd.Encoder) {
	zstdOnce.Do(func() {
		zstdDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxTargetSize))
		zstdEncoder, _ = zstd.NewWriter(nil)
	})
	return zstdDecoder, zstdEncoder
}

// CompressTarget zstd-compresses an encoded CollectionTarget as querycoord stores it.
func CompressTarget(raw []byte) []byte {
	_, enc := zstdCodecs()
	return enc.EncodeAll(raw, nil)
}

// ChannelTarget is one vchannel of a query target, with the positions
// querycoord hands to querynodes.
type ChannelTarget struct {
	VChannel         string
	SeekPosition     *msgpb.MsgPosition
	DeleteCheckpoint *msgpb.MsgPosition
}

// CollectionTarget is the decoded view of querycoord's persisted target.
type CollectionTarget struct {
	CollectionID int64
	Version      int64
	Channels     []ChannelTarget
}

// DecodeCollectionTarget decompresses and decodes a queryCoord-Collection-Target value.
func DecodeCollectionTarget(b []byte) (*CollectionTarget, error) {
	dec, _ := zstdCodecs()
	raw, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("query target is not zstd: %w", err)
	}
	m, err := wire.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a CollectionTarget: %w", err)
	}
	t := &CollectionTarget{CollectionID: int64(m.Varint(targetCollection)), Version: int64(m.Varint(targetVersion))}
	for _, entry := range m.All(targetChannels) {
		ct, err := wire.Parse(entry.Payload)
		if err != nil {
			return nil, fmt.Errorf("CollectionTarget.Channel_targets: %w", err)
		}
		c := ChannelTarget{VChannel: ct.String(channelTargetName)}
		for _, p := range []struct {
			num protowire.Number
			dst **msgpb.MsgPosition
		}{{channelTargetSeek, &c.SeekPosition}, {channelTargetDeleteCP, &c.DeleteCheckpoint}} {
			if f, ok := ct.Get(p.num); ok {
				pos, err := DecodePosition(f.Payload)
				if err != nil {
					return nil, fmt.Errorf("ChannelTarget %s: %w", c.VChannel, err)
				}
				*p.dst = pos
			}
		}
		t.Channels = append(t.Channels, c)
	}
	return t, nil
}
