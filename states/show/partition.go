package show

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// PartitionParam is `show partition`.
type PartitionParam struct {
	framework.ParamBase `use:"show partition" desc:"rootcoord partitions (root-coord/partitions/)" example:"show partition --collection 449123456789012345" alias:"partitions"`
	Collection          int64 `name:"collection" default:"0" placeholder:"ID" desc:"only the partitions of this collection ID (all when omitted)"`
	framework.Output
}

// PartitionRow is one partition key.
type PartitionRow struct {
	Collection  int64  `json:"collection"`
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	State       string `json:"state"`
	CreatedTime uint64 `json:"created_time"`
	Time        string `json:"time"`
	Tombstone   bool   `json:"tombstone"`
	Key         string `json:"key"`
	Error       string `json:"error,omitempty"`
}

// PartitionResult is the output of `show partition`.
type PartitionResult struct {
	Revision   int64          `json:"revision"`
	Partitions []PartitionRow `json:"partitions"`
	Undecoded  int            `json:"undecoded"`
}

func runPartition(ctx context.Context, inst *instance.Instance, p *PartitionParam, out framework.IO) (framework.Result, error) {
	return result(Partitions(ctx, inst, p.Collection, out.Stderr))
}

// Partitions lists the partitions of one collection (0: all), at one revision.
func Partitions(ctx context.Context, inst *instance.Instance, collection int64, warn io.Writer) (*PartitionResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	prefix := models.PartitionPrefix
	if collection != 0 {
		prefix = models.PartitionPrefixOf(collection)
	}
	res := &PartitionResult{Partitions: []PartitionRow{}}
	rev, err := inst.Walk(ctx, 0, []string{prefix}, func(e instance.Entry) error {
		coll, id, ok := models.ParsePartitionKey(e.Rel)
		if !ok {
			return nil
		}
		row := PartitionRow{Collection: coll, ID: id, Key: e.Rel}
		switch {
		case models.IsTombstone(e.Value):
			row.Tombstone, row.State = true, tombstoneState
		default:
			p, err := models.DecodePartitionInfo(e.Value)
			if err != nil {
				row.Error = err.Error()
				res.Undecoded++
				fmt.Fprintf(warn, "warning: partition %s does not decode: %v\n", e.Rel, err)
				break
			}
			row.ID, row.Name, row.State, row.CreatedTime, row.Time = p.ID, p.Name, p.State, p.CreatedTime, tsoTime(p.CreatedTime)
			if p.CollectionID != 0 {
				row.Collection = p.CollectionID
			}
		}
		res.Partitions = append(res.Partitions, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = rev
	// Ids in natural order: collection 2 before collection 10.
	slices.SortStableFunc(res.Partitions, func(a, b PartitionRow) int { return naturalCompare(a.Key, b.Key) })
	return res, nil
}

// JSON implements framework.Result.
func (r *PartitionResult) JSON() any { return r }

// Table implements framework.Result.
func (r *PartitionResult) Table(w io.Writer) error {
	t := newTable(w, "COLLECTION", "ID", "NAME", "STATE", "CREATED", "ERROR")
	for _, p := range r.Partitions {
		t.row(i64(p.Collection), i64(p.ID), p.Name, p.State, p.Time, errCell(p.Error))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d partition(s)%s\n", len(r.Partitions), undecodedText(r.Undecoded))
	return err
}

// Lines implements framework.Result.
func (r *PartitionResult) Lines(w io.Writer) error {
	for _, p := range r.Partitions {
		if err := line(w, "partition", "collection", i64(p.Collection), "id", i64(p.ID), "name", p.Name, "state", p.State,
			"time", p.Time, "key", p.Key, "error", p.Error); err != nil {
			return err
		}
	}
	return line(w, "partitions", "count", itoa(len(r.Partitions)), "undecoded", itoa(r.Undecoded))
}
