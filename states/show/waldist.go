package show

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// WALDistributionParam is `show wal-distribution`.
type WALDistributionParam struct {
	framework.ParamBase `use:"show wal-distribution" desc:"each pchannel's streaming node (is its session alive?), term, state and assignment history, with its consume checkpoint's WAL" example:"show wal-distribution --format json" alias:"wal-dist"`
	Wide
	framework.Output
}

// WALDistRow is one pchannel as streamingcoord assigned it.
type WALDistRow struct {
	PChannel string `json:"pchannel"`
	Key      string `json:"key"`
	State    string `json:"state"`
	Term     int64  `json:"term"`
	// NodeID is the assigned streaming node (0: none); Session its session
	// key, Alive whether that key holds a lease.
	NodeID      int64                       `json:"node_id"`
	NodeAddress string                      `json:"node_address"`
	Session     string                      `json:"session"`
	Alive       bool                        `json:"alive"`
	Lease       string                      `json:"lease,omitempty"`
	History     []models.PChannelAssignment `json:"history"`
	// WAL, TimeTick and CheckpointKey are the pchannel's consume checkpoint
	// (WAL "" when it has none); AlterStage its alter_wal_state stage.
	WAL           string `json:"wal"`
	TimeTick      uint64 `json:"time_tick"`
	CheckpointKey string `json:"checkpoint_key"`
	AlterStage    string `json:"alter_wal_stage,omitempty"`
	LastAssigned  uint64 `json:"last_assign_timestamp_seconds"`
}

// WALDistResult is the output of `show wal-distribution`.
type WALDistResult struct {
	PChannels []WALDistRow `json:"pchannels"`
	Assigned  int          `json:"assigned"`
	Alive     int          `json:"alive"`
	Errors    []string     `json:"errors"`
	wide      bool
}

func runWALDistribution(ctx context.Context, inst *instance.Instance, p *WALDistributionParam, out framework.IO) (framework.Result, error) {
	st, err := ReadChannelState(ctx, inst, 0)
	if err != nil {
		return nil, err
	}
	st.warnErrors(out.Stderr)
	res := WALDistribution(st)
	res.wide = p.Wide.Wide
	return res, nil
}

// WALDistribution is the pchannel table of a channel state.
func WALDistribution(st *ChannelState) *WALDistResult {
	res := &WALDistResult{PChannels: []WALDistRow{}, Errors: append([]string{}, st.Errors...)}
	for _, pe := range st.PChannels {
		m := pe.Meta
		name := strings.TrimPrefix(pe.Key, models.PChannelPrefix)
		row := WALDistRow{PChannel: name, Key: pe.Key, State: m.State.String(), Term: m.Term, History: m.Histories, LastAssigned: m.LastAssignSeconds}
		if row.History == nil {
			row.History = []models.PChannelAssignment{}
		}
		if m.Node != nil {
			row.NodeID, row.NodeAddress = m.Node.ServerID, m.Node.Address
			row.Session = models.StreamingNodeSessionKey(m.Node.ServerID)
			if kv, ok := st.Sessions[m.Node.ServerID]; ok && kv.Lease != 0 {
				row.Alive, row.Lease = true, framework.LeaseID(kv.Lease)
				res.Alive++
			}
		}
		if m.State == models.PChannelAssigned {
			res.Assigned++
		}
		if cc, ok := st.ConsumeCPs[name]; ok {
			row.CheckpointKey, row.TimeTick = cc.Key, cc.CP.TimeTick
			if cc.CP.HasMessageID {
				row.WAL = walName(cc.CP.WAL)
			}
			if cc.CP.AlterWAL != nil {
				row.AlterStage = cc.CP.AlterWAL.Stage.String()
			}
		}
		res.PChannels = append(res.PChannels, row)
	}
	return res
}

// HistoryText is a pchannel's assignment history, oldest first: "t1:n3 t2:n5".
func HistoryText(h []models.PChannelAssignment) string {
	parts := make([]string, 0, len(h))
	for _, a := range h {
		node := "-"
		if a.Node != nil {
			node = i64(a.Node.ServerID)
		}
		parts = append(parts, fmt.Sprintf("t%d:n%s", a.Term, node))
	}
	return strings.Join(parts, " ")
}

// JSON implements framework.Result.
func (r *WALDistResult) JSON() any { return r }

// Table implements framework.Result.
func (r *WALDistResult) Table(w io.Writer) error {
	t := newTable(w, "PCHANNEL", "STATE", "TERM", "NODE", "ALIVE", "WAL", "CHECKPOINT TIME", "HISTORY").fit(r.wide, 0, 6, 7).cutEnd(7)
	for _, p := range r.PChannels {
		node := ""
		if p.NodeID != 0 {
			node = i64(p.NodeID)
		}
		wal := p.WAL
		if p.AlterStage != "" {
			wal += " (" + p.AlterStage + ")"
		}
		t.row(p.PChannel, p.State, i64(p.Term), node, yesNo(p.Alive), wal, tsoTime(p.TimeTick), HistoryText(p.History))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d pchannel(s), %d assigned, %d on a live streaming node\n", len(r.PChannels), r.Assigned, r.Alive)
	if err == nil && len(r.Errors) > 0 {
		_, err = fmt.Fprintf(w, "%d key(s) do not decode (see the warnings)\n", len(r.Errors))
	}
	return err
}

// Lines implements framework.Result.
func (r *WALDistResult) Lines(w io.Writer) error {
	for _, p := range r.PChannels {
		if err := line(w, "pchannel", "pchannel", p.PChannel, "state", p.State, "term", i64(p.Term), "node", i64(p.NodeID),
			"session", p.Session, "alive", boolS(p.Alive), "wal", p.WAL, "time_tick", u64(p.TimeTick), "alter_wal_stage", p.AlterStage,
			"history", HistoryText(p.History)); err != nil {
			return err
		}
	}
	return line(w, "summary", "pchannels", itoa(len(r.PChannels)), "assigned", itoa(r.Assigned), "alive", itoa(r.Alive), "errors", itoa(len(r.Errors)))
}
