// Package sampletest holds what only tests and the e2e tool build on top of
// models/sample: values no command writes (a 2.5 instance, a segment
// assignment, an assigned pchannel, an AlterWAL broadcast task) and the
// whole-value rewrites they set positions with by hand. It lives under tests/
// so that the shipped binary carries none of it.
package sampletest

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

// PreStreaming is the sample instance as Milvus 2.5 would have written it:
// no streamingnode-meta/ and no streamingcoord-meta/ keys (no pchannel
// list, no consume checkpoint, no broadcast task), and a channelwatch/
// position for each vchannel of a live collection, watched by datanode 5.
// wal is the msgstream the positions are encoded for (2.5 has no woodpecker).
func PreStreaming(layout models.Layout, wal commonpb.WALName) *sample.Instance {
	in := sample.Build(layout, wal)
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
		seek := sample.Position(v, sample.ID(wal, int64(30+n)), sample.TSO(sample.Base, 0), commonpb.WALName_Unknown)
		in.KVs[layout.Meta(models.ChannelWatchPrefix+"5/"+v)] = sample.ChannelWatch(collections[v], v, seek, nil, nil)
	}
	return in
}

// SegmentAssignment encodes a streamingpb.SegmentAssignmentMeta.
func SegmentAssignment(collection, partition, segment int64, vchannel string) []byte {
	var b wire.Builder
	return b.Varint(1, uint64(collection)).Varint(2, uint64(partition)).Varint(3, uint64(segment)).
		String(4, vchannel).Varint(5, 1).Build()
}

// AssignedPChannel encodes a streamingpb.PChannelMeta in state (3:
// ASSIGNED) on streaming node node at term, with one history entry (the
// previous term on node 1) and its last assignment time.
func AssignedPChannel(name string, term, node int64, state int32, at time.Time) []byte {
	nodeInfo := func(id int64) []byte {
		return (&wire.Builder{}).Varint(1, uint64(id)).String(2, "10.0.0."+strconv.FormatInt(id, 10)+":22222").Build()
	}
	ch := (&wire.Builder{}).String(1, name).Varint(2, uint64(term)).Build()
	hist := (&wire.Builder{}).Varint(1, uint64(term-1)).Message(2, nodeInfo(1)).Build()
	var b wire.Builder
	b.Message(1, ch)
	if node != 0 {
		b.Message(2, nodeInfo(node))
	}
	return b.Varint(3, uint64(state)).Message(4, hist).Varint(5, uint64(at.Unix())).Build()
}

// AlterWALTask encodes a streamingpb.BroadcastTask of an AlterWAL message
// (messagespb.MessageType 700) to target with config, over vchannels, the
// first acked of them acked, as Milvus's online switch stores it: the
// message's properties _t, _bh (BroadcastHeader{broadcast_id 1,
// vchannels 2}) and _h (AlterWALMessageHeader{target_wal_name 1, config 2}),
// the headers base64 protobuf (pkg/v2@v2.6.23 streaming/util/message).
func AlterWALTask(state int32, target commonpb.WALName, config map[string]string, vchannels []string, acked int) []byte {
	entry := func(k, v string) []byte { return (&wire.Builder{}).String(1, k).String(2, v).Build() }
	var bh wire.Builder
	bh.Varint(1, 9)
	for _, v := range vchannels {
		bh.String(2, v)
	}
	var h wire.Builder
	h.Varint(1, uint64(target))
	for _, k := range models.NaturalKeys(config) {
		h.Message(2, entry(k, config[k]))
	}
	msg := (&wire.Builder{}).Bytes(1, nil).Message(2, entry("_t", "700")).
		Message(2, entry("_bh", base64.StdEncoding.EncodeToString(bh.Build()))).
		Message(2, entry("_h", base64.StdEncoding.EncodeToString(h.Build()))).Build()
	var b wire.Builder
	b.Message(1, msg).Varint(2, uint64(state))
	for i := range vchannels {
		var ack []byte
		if i < acked {
			ack = (&wire.Builder{}).Varint(3, 1).Build()
		}
		b.Message(4, ack)
	}
	return b.Build()
}
