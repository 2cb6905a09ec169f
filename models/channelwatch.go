package models

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// Channel watch info lives at channelwatch/{nodeID}/{vchannel} (ChannelWatchPrefix):
// "channelwatch" is the default of msgChannel.subNamePrefix.dataCoordWatchSubPath
// (pkg/v2 v2.6.23 util/paramtable/component_param.go); the {nodeID}/{vchannel}
// layout below it is built in Milvus's root module (datacoord's channel store)
// and is not verified in pkg/v2 v2.6.23.

// datapb.ChannelWatchInfo and datapb.VchannelInfo field numbers
// (pkg/v2 v2.6.23 proto/data_coord.proto).
const (
	cwVchan   protowire.Number = 1
	cwStartTs protowire.Number = 2
	cwState   protowire.Number = 3
	cwOpID    protowire.Number = 7

	vcCollection protowire.Number = 1
	vcChannel    protowire.Number = 2
	vcSeek       protowire.Number = 3
	vcUnflushed  protowire.Number = 7
	vcFlushed    protowire.Number = 8
	vcDropped    protowire.Number = 9
	vcLevelZero  protowire.Number = 12
	vcDeleteCP   protowire.Number = 14
)

// datapb.ChannelWatchState.
var channelWatchStates = map[uint64]string{
	0: "Uncomplete", 1: "Complete", 2: "ToWatch", 3: "WatchSuccess",
	4: "WatchFailure", 5: "ToRelease", 6: "ReleaseSuccess", 7: "ReleaseFailure",
}

// ChannelWatchInfo is the decoded view of datapb.ChannelWatchInfo: which
// datanode watches a vchannel, and the position it was told to seek to.
type ChannelWatchInfo struct {
	CollectionID      int64              `json:"collection_id"`
	VChannel          string             `json:"vchannel"`
	SeekPosition      *msgpb.MsgPosition `json:"seek_position"`
	DeleteCheckpoint  *msgpb.MsgPosition `json:"delete_checkpoint"`
	UnflushedSegments []int64            `json:"unflushed_segment_ids"`
	FlushedSegments   []int64            `json:"flushed_segment_ids"`
	DroppedSegments   []int64            `json:"dropped_segment_ids"`
	LevelZeroSegments []int64            `json:"level_zero_segment_ids"`
	StartTs           int64              `json:"start_ts"`
	State             string             `json:"state"`
	OpID              int64              `json:"op_id"`
}

// DecodeChannelWatchInfo decodes a channelwatch value.
func DecodeChannelWatchInfo(b []byte) (*ChannelWatchInfo, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a ChannelWatchInfo: %w", err)
	}
	cw := &ChannelWatchInfo{
		StartTs: int64(m.Varint(cwStartTs)),
		State:   stateName(channelWatchStates, m.Varint(cwState)),
		OpID:    int64(m.Varint(cwOpID)),
	}
	v, err := sub(m, cwVchan, "ChannelWatchInfo.vchan")
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = &wire.Message{}
	}
	cw.CollectionID = int64(v.Varint(vcCollection))
	cw.VChannel = v.String(vcChannel)
	if cw.SeekPosition, err = position(v, vcSeek, "VchannelInfo.seek_position"); err != nil {
		return nil, err
	}
	if cw.DeleteCheckpoint, err = position(v, vcDeleteCP, "VchannelInfo.delete_checkpoint"); err != nil {
		return nil, err
	}
	for _, ids := range []struct {
		num  protowire.Number
		dst  *[]int64
		what string
	}{
		{vcUnflushed, &cw.UnflushedSegments, "VchannelInfo.unflushedSegmentIds"},
		{vcFlushed, &cw.FlushedSegments, "VchannelInfo.flushedSegmentIds"},
		{vcDropped, &cw.DroppedSegments, "VchannelInfo.dropped_segmentIds"},
		{vcLevelZero, &cw.LevelZeroSegments, "VchannelInfo.level_zero_segment_ids"},
	} {
		if *ids.dst, err = int64s(v, ids.num, ids.what); err != nil {
			return nil, err
		}
	}
	return cw, nil
}

// ParseChannelWatchKey returns the node id and vchannel of a channelwatch key.
func ParseChannelWatchKey(rel string) (node int64, vchannel string, ok bool) {
	rest, ok := strings.CutPrefix(rel, ChannelWatchPrefix)
	if !ok {
		return 0, "", false
	}
	n, v, ok := strings.Cut(rest, "/")
	if !ok || v == "" || strings.Contains(v, "/") {
		return 0, "", false
	}
	node, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return 0, "", false
	}
	return node, v, true
}
