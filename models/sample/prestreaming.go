package sample

import (
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/wire"
)

// channelWatchWatchSuccess is datapb.ChannelWatchState WatchSuccess.
const channelWatchWatchSuccess = 3

// ChannelWatch is a datapb.ChannelWatchInfo (fields of pkg/v2 v2.6.23
// proto/data_coord.proto: vchan 1, start_ts 2, state 3, opID 7) whose
// VchannelInfo (collectionID 1, channelName 2, seek_position 3) tells a
// 2.5 datanode where to seek.
func ChannelWatch(collection int64, vchannel string, seek []byte, startTs int64) []byte {
	var v wire.Builder
	v.Varint(1, uint64(collection)).String(2, vchannel).Message(3, seek)
	var b wire.Builder
	return b.Message(1, v.Build()).Varint(2, uint64(startTs)).Varint(3, channelWatchWatchSuccess).Varint(7, 42).Build()
}

// PreStreaming is the sample instance as Milvus 2.5 would have written it:
// no streamingnode-meta/ and no streamingcoord-meta/ keys (no pchannel
// list, no consume checkpoint, no broadcast task), and a channelwatch/
// position for each vchannel of a live collection, watched by datanode 5.
// wal is the msgstream the positions are encoded for (2.5 has no woodpecker).
func PreStreaming(layout models.Layout, wal commonpb.WALName) *Instance {
	in := Build(layout, wal)
	for k := range in.KVs {
		rel, ok := layout.Rel(k)
		if !ok {
			continue
		}
		for _, p := range models.StreamingMarkers {
			if strings.HasPrefix(rel, p) {
				delete(in.KVs, k)
			}
		}
	}
	collections := map[string]int64{in.VChannels[0]: 100, in.VChannels[1]: 100, in.VChannels[2]: 200, in.VChannels[3]: 300}
	for n, v := range in.VChannels {
		seek := Position(v, ID(wal, int64(30+n)), TSO(Base, 0), commonpb.WALName_Unknown)
		in.put(models.ChannelWatchPrefix+"5/"+v, ChannelWatch(collections[v], v, seek, 1767225600))
	}
	return in
}
