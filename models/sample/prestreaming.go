package sample

import (
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
)

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
		in.put(models.ChannelWatchPrefix+"5/"+v, ChannelWatch(collections[v], v, seek, nil, nil))
	}
	return in
}
