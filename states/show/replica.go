package show

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// ReplicaParam is `show replica`.
type ReplicaParam struct {
	framework.ParamBase `use:"show replica" desc:"querycoord replicas (querycoord-replica/) with their resource group and nodes" example:"show replica --format json" alias:"replicas"`
	Wide
	framework.Output
}

// ReplicaRow is one replica key.
type ReplicaRow struct {
	ID            int64                 `json:"id"`
	Collection    int64                 `json:"collection"`
	ResourceGroup string                `json:"resource_group"`
	Nodes         []int64               `json:"nodes"`
	RONodes       []int64               `json:"ro_nodes"`
	RWSQNodes     []int64               `json:"rw_sq_nodes"`
	ROSQNodes     []int64               `json:"ro_sq_nodes"`
	ChannelNodes  []models.ChannelNodes `json:"channel_node_infos"`
	Key           string                `json:"key"`
	Error         string                `json:"error,omitempty"`
}

// ReplicaResult is the output of `show replica`.
type ReplicaResult struct {
	Revision  int64        `json:"revision"`
	Replicas  []ReplicaRow `json:"replicas"`
	Undecoded int          `json:"undecoded"`
	wide      bool
}

func runReplica(ctx context.Context, inst *instance.Instance, p *ReplicaParam, out framework.IO) (framework.Result, error) {
	res, err := Replicas(ctx, inst, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	return res, nil
}

// Replicas lists querycoord's replicas, at one revision.
func Replicas(ctx context.Context, inst *instance.Instance, warn io.Writer) (*ReplicaResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	res := &ReplicaResult{Replicas: []ReplicaRow{}}
	rev, err := inst.Walk(ctx, 0, []string{models.ReplicaPrefix}, func(e instance.Entry) error {
		coll, id, ok := models.ParseReplicaKey(e.Rel)
		if !ok {
			fmt.Fprintf(warn, "warning: %s is not a querycoord-replica/{collection}/{replica} key: skipped\n", framework.EscapeText(e.Rel))
			return nil
		}
		row := ReplicaRow{ID: id, Collection: coll, Key: e.Rel, Nodes: []int64{}, RONodes: []int64{}, RWSQNodes: []int64{}, ROSQNodes: []int64{},
			ChannelNodes: []models.ChannelNodes{}}
		r, err := models.DecodeReplica(e.Value)
		if err != nil {
			row.Error = err.Error()
			res.Undecoded++
			fmt.Fprintf(warn, "warning: replica %s does not decode: %v\n", e.Rel, err)
		} else {
			row.ID, row.Collection, row.ResourceGroup = r.ID, r.CollectionID, r.ResourceGroup
			row.Nodes, row.RONodes, row.RWSQNodes, row.ROSQNodes, row.ChannelNodes = r.Nodes, r.RONodes, r.RWSQNodes, r.ROSQNodes, r.ChannelNodes
		}
		res.Replicas = append(res.Replicas, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = rev
	// Ids in natural order: collection 2 before collection 10.
	slices.SortStableFunc(res.Replicas, func(a, b ReplicaRow) int { return naturalCompare(a.Key, b.Key) })
	return res, nil
}

func idsText(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = i64(id)
	}
	return strings.Join(parts, ",")
}

// channelNodesText is a replica's channel=nodes list, each channel named
// by name.
func channelNodesText(cns []models.ChannelNodes, name func(string) string) string {
	parts := make([]string, len(cns))
	for i, cn := range cns {
		parts[i] = name(cn.Channel) + "=" + idsText(cn.RWNodes)
	}
	return strings.Join(parts, " ")
}

func fullName(s string) string { return s }

// JSON implements framework.Result.
func (r *ReplicaResult) JSON() any { return r }

// Table implements framework.Result.
func (r *ReplicaResult) Table(w io.Writer) error {
	// Headers short enough for 80 columns (kubectl exec); the vchannels by
	// the part that tells them apart unless --wide.
	t := newTable(w, "ID", "COLLECTION", "RESOURCE GROUP", "NODES", "RO NODES", "SQ RW", "SQ RO", "CHANNELS", "ERROR").fit(r.wide, 2, 7, 8).cutEnd(7)
	name := fullName
	if !r.wide {
		var channels []string
		for _, p := range r.Replicas {
			for _, cn := range p.ChannelNodes {
				channels = append(channels, cn.Channel)
			}
		}
		if framework.SharedPrefixLen(channels) > 0 {
			name = func(c string) string { return framework.DistinctPart(c, channels) }
		}
	}
	for _, p := range r.Replicas {
		t.row(i64(p.ID), i64(p.Collection), p.ResourceGroup, idsText(p.Nodes), idsText(p.RONodes), idsText(p.RWSQNodes), idsText(p.ROSQNodes),
			channelNodesText(p.ChannelNodes, name), errCell(p.Error))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d replica(s)%s\n", len(r.Replicas), undecodedText(r.Undecoded))
	if err == nil && len(r.Replicas) > 0 {
		_, err = fmt.Fprintln(w, "(SQ RW, SQ RO: streaming query nodes, read-write and read-only;\n CHANNELS: vchannel=nodes)")
	}
	return err
}

// Lines implements framework.Result.
func (r *ReplicaResult) Lines(w io.Writer) error {
	for _, p := range r.Replicas {
		if err := line(w, "replica", "id", i64(p.ID), "collection", i64(p.Collection), "resource_group", p.ResourceGroup,
			"nodes", idsText(p.Nodes), "ro_nodes", idsText(p.RONodes), "rw_sq_nodes", idsText(p.RWSQNodes), "ro_sq_nodes", idsText(p.ROSQNodes),
			"channel_nodes", channelNodesText(p.ChannelNodes, fullName), "key", p.Key, "error", p.Error); err != nil {
			return err
		}
	}
	return line(w, "replicas", "count", itoa(len(r.Replicas)), "undecoded", itoa(r.Undecoded))
}
