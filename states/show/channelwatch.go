package show

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// ChannelWatchParam is `show channel-watch`.
type ChannelWatchParam struct {
	framework.ParamBase `use:"show channel-watch" desc:"datacoord channel watch info (channelwatch/{node}/{vchannel}): state and the seek and delete positions a datanode was given" example:"show channel-watch --format line" alias:"channel-watched,channel-watches"`
	Wide
	framework.Output
}

// WatchPositionRow is a position of a channel watch info and its channel.
type WatchPositionRow struct {
	Channel string `json:"channel"`
	PositionRow
}

// ChannelWatchRow is one channelwatch key.
type ChannelWatchRow struct {
	Node             int64             `json:"node"`
	VChannel         string            `json:"vchannel"`
	Collection       int64             `json:"collection"`
	State            string            `json:"state"`
	OpID             int64             `json:"op_id"`
	StartTs          int64             `json:"start_ts"`
	SeekPosition     *WatchPositionRow `json:"seek_position"`
	DeleteCheckpoint *WatchPositionRow `json:"delete_checkpoint"`
	Unflushed        int               `json:"unflushed_segments"`
	Flushed          int               `json:"flushed_segments"`
	Dropped          int               `json:"dropped_segments"`
	Key              string            `json:"key"`
	Error            string            `json:"error,omitempty"`
}

// ChannelWatchResult is the output of `show channel-watch`.
type ChannelWatchResult struct {
	wide      bool
	Revision  int64             `json:"revision"`
	Watches   []ChannelWatchRow `json:"watches"`
	Undecoded int               `json:"undecoded"`
}

func runChannelWatch(ctx context.Context, inst *instance.Instance, p *ChannelWatchParam, out framework.IO) (framework.Result, error) {
	res, err := ChannelWatches(ctx, inst, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	return res, nil
}

// ChannelWatches lists the channel watch infos, at one revision.
func ChannelWatches(ctx context.Context, inst *instance.Instance, warn io.Writer) (*ChannelWatchResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	wals, rev, err := consumeWALs(ctx, inst, 0, warn)
	if err != nil {
		return nil, err
	}
	res := &ChannelWatchResult{Revision: rev, Watches: []ChannelWatchRow{}}
	_, err = inst.Walk(ctx, rev, []string{models.ChannelWatchPrefix}, func(e instance.Entry) error {
		node, vchannel, ok := models.ParseChannelWatchKey(e.Rel)
		if !ok {
			fmt.Fprintf(warn, "warning: %s is not a channelwatch/{node}/{vchannel} key: skipped\n", framework.EscapeText(e.Rel))
			return nil
		}
		row := ChannelWatchRow{Node: node, VChannel: vchannel, Key: e.Rel}
		cw, err := models.DecodeChannelWatchInfo(e.Value)
		if err != nil {
			row.Error = err.Error()
			res.Undecoded++
			fmt.Fprintf(warn, "warning: channel watch %s does not decode: %v\n", e.Rel, err)
			res.Watches = append(res.Watches, row)
			return nil
		}
		row.Collection, row.State, row.OpID, row.StartTs = cw.CollectionID, cw.State, cw.OpID, cw.StartTs
		row.Unflushed, row.Flushed, row.Dropped = len(cw.UnflushedSegments), len(cw.FlushedSegments), len(cw.DroppedSegments)
		if cw.VChannel != "" && cw.VChannel != vchannel {
			fmt.Fprintf(warn, "warning: channel watch %s names vchannel %s\n", framework.EscapeText(e.Rel), framework.EscapeText(cw.VChannel))
		}
		fallback := wals[models.PChannelOf(vchannel)]
		row.SeekPosition = watchPosition(cw.SeekPosition, fallback)
		row.DeleteCheckpoint = watchPosition(cw.DeleteCheckpoint, fallback)
		for _, p := range []*WatchPositionRow{row.SeekPosition, row.DeleteCheckpoint} {
			if p != nil && p.Error != "" {
				fmt.Fprintf(warn, "warning: channel watch %s: %s\n", e.Rel, p.Error)
			}
		}
		res.Watches = append(res.Watches, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Node ids and vchannels in natural order: node 2 before node 10.
	slices.SortStableFunc(res.Watches, func(a, b ChannelWatchRow) int { return naturalCompare(a.Key, b.Key) })
	return res, nil
}

func watchPosition(p *msgpb.MsgPosition, fallback commonpb.WALName) *WatchPositionRow {
	if p == nil {
		return nil
	}
	return &WatchPositionRow{Channel: p.GetChannelName(), PositionRow: *positionRow(p, fallback)}
}

func watchPositionText(p *WatchPositionRow) string {
	if p == nil {
		return ""
	}
	return positionText(&p.PositionRow)
}

// JSON implements framework.Result.
func (r *ChannelWatchResult) JSON() any { return r }

// Table implements framework.Result.
func (r *ChannelWatchResult) Table(w io.Writer) error {
	// Headers short enough for 80 columns (kubectl exec), explained below
	// the table; a cut position keeps its message id.
	t := newTable(w, "NODE", "VCHANNEL", "COLLECTION", "STATE", "SEEK POSITION", "DELETE CP", "U/F/D", "ERROR").fit(r.wide, 1, 2, 4, 5, 7).cutEnd(4, 5)
	for _, c := range r.Watches {
		t.row(i64(c.Node), c.VChannel, i64(c.Collection), c.State, watchPositionText(c.SeekPosition), watchPositionText(c.DeleteCheckpoint),
			fmt.Sprintf("%d/%d/%d", c.Unflushed, c.Flushed, c.Dropped), errCell(c.Error))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d channel watch(es)%s\n(WAL? = position without WAL_name, decoded with its pchannel's checkpoint WAL;\n DELETE CP = delete checkpoint; U/F/D = unflushed/flushed/dropped segment ids)\n",
		len(r.Watches), undecodedText(r.Undecoded))
	return err
}

// Lines implements framework.Result.
func (r *ChannelWatchResult) Lines(w io.Writer) error {
	for _, c := range r.Watches {
		if err := line(w, "channel-watch", "node", i64(c.Node), "vchannel", c.VChannel, "collection", i64(c.Collection), "state", c.State,
			"seek", watchPositionText(c.SeekPosition), "delete_checkpoint", watchPositionText(c.DeleteCheckpoint),
			"unflushed", itoa(c.Unflushed), "flushed", itoa(c.Flushed), "dropped", itoa(c.Dropped), "key", c.Key, "error", c.Error); err != nil {
			return err
		}
	}
	return line(w, "channel-watches", "count", itoa(len(r.Watches)), "undecoded", itoa(r.Undecoded))
}
