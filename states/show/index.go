package show

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// IndexParam is `show index`.
type IndexParam struct {
	framework.ParamBase `use:"show index" desc:"datacoord field indexes (field-index/) with their segment index builds (segment-index/) counted by state" example:"show index --collection 449123456789012345" alias:"indexes,indices"`
	Collection          int64 `name:"collection" default:"0" placeholder:"ID" desc:"only the indexes of this collection ID (all when omitted)"`
	Wide
	framework.Output
}

// IndexRow is one field-index key and the segment indexes built for it.
type IndexRow struct {
	Collection  int64             `json:"collection"`
	IndexID     int64             `json:"index_id"`
	Name        string            `json:"name"`
	FieldID     int64             `json:"field_id"`
	IndexType   string            `json:"index_type"`
	MetricType  string            `json:"metric_type,omitempty"`
	IndexParams []models.KeyValue `json:"index_params"`
	AutoIndex   bool              `json:"auto_index"`
	Deleted     bool              `json:"deleted"`
	CreateTime  uint64            `json:"create_time"`
	Time        string            `json:"time"`
	// SegmentIndexes counts the segment-index keys of this index by state;
	// those marked deleted count as "deleted".
	SegmentIndexes map[string]int `json:"segment_indexes"`
	Key            string         `json:"key"`
	Error          string         `json:"error,omitempty"`
}

// OrphanSegmentIndexes counts segment-index keys whose index has no field-index key.
type OrphanSegmentIndexes struct {
	Collection int64 `json:"collection"`
	IndexID    int64 `json:"index_id"`
	Count      int   `json:"count"`
}

// IndexResult is the output of `show index`.
type IndexResult struct {
	Revision  int64                  `json:"revision"`
	Indexes   []IndexRow             `json:"indexes"`
	Orphans   []OrphanSegmentIndexes `json:"orphan_segment_indexes"`
	Undecoded int                    `json:"undecoded"`
	// UndecodedSegmentIndexes counts segment-index values that do not decode.
	UndecodedSegmentIndexes int `json:"undecoded_segment_indexes"`
	wide                    bool
}

// maxSegmentIndexWarnings bounds the per-key warnings of a scan that may
// cover a million segment indexes.
const maxSegmentIndexWarnings = 10

func runIndex(ctx context.Context, inst *instance.Instance, p *IndexParam, out framework.IO) (framework.Result, error) {
	res, err := Indexes(ctx, inst, p.Collection, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	return res, nil
}

type indexKey struct{ collection, index int64 }

// Indexes lists the field indexes of one collection (0: all) with their
// segment index counts, at one revision. It holds one counter per index and
// state, never a row per segment.
func Indexes(ctx context.Context, inst *instance.Instance, collection int64, warn io.Writer) (*IndexResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	fieldPrefix, segPrefix := models.FieldIndexPrefix, models.SegmentIndexPrefix
	if collection != 0 {
		fieldPrefix, segPrefix = models.FieldIndexPrefixOf(collection), models.SegmentIndexPrefixOf(collection)
	}
	res := &IndexResult{Indexes: []IndexRow{}, Orphans: []OrphanSegmentIndexes{}}
	counts := map[indexKey]map[string]int{}
	rev, err := inst.Walk(ctx, 0, []string{fieldPrefix, segPrefix}, func(e instance.Entry) error {
		if coll, id, ok := models.ParseFieldIndexKey(e.Rel); ok {
			row := IndexRow{Collection: coll, IndexID: id, Key: e.Rel, IndexParams: []models.KeyValue{}}
			fi, err := models.DecodeFieldIndex(e.Value)
			if err != nil {
				row.Error = err.Error()
				res.Undecoded++
				fmt.Fprintf(warn, "warning: field index %s does not decode: %v\n", e.Rel, err)
			} else {
				row.Name, row.FieldID, row.IndexType, row.IndexParams = fi.Name, fi.FieldID, fi.IndexType(), fi.IndexParams
				row.AutoIndex, row.Deleted, row.CreateTime, row.Time = fi.AutoIndex, fi.Deleted, fi.CreateTime, tsoTime(fi.CreateTime)
				for _, kv := range fi.IndexParams {
					if kv.Key == "metric_type" {
						row.MetricType = kv.Value
					}
				}
			}
			res.Indexes = append(res.Indexes, row)
			return nil
		}
		sk, ok := models.ParseSegmentIndexKey(e.Rel)
		if !ok {
			return nil
		}
		si, err := models.DecodeSegmentIndex(e.Value)
		if err != nil {
			res.UndecodedSegmentIndexes++
			if res.UndecodedSegmentIndexes <= maxSegmentIndexWarnings {
				fmt.Fprintf(warn, "warning: segment index %s does not decode: %v\n", e.Rel, err)
			}
			return nil
		}
		k := indexKey{sk.Collection, si.IndexID}
		if counts[k] == nil {
			counts[k] = map[string]int{}
		}
		state := si.State
		if si.Deleted {
			state = "deleted"
		}
		counts[k][state]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n := res.UndecodedSegmentIndexes; n > maxSegmentIndexWarnings {
		fmt.Fprintf(warn, "warning: %d more segment index value(s) do not decode\n", n-maxSegmentIndexWarnings)
	}
	res.Revision = rev
	for i := range res.Indexes {
		k := indexKey{res.Indexes[i].Collection, res.Indexes[i].IndexID}
		res.Indexes[i].SegmentIndexes = counts[k]
		if res.Indexes[i].SegmentIndexes == nil {
			res.Indexes[i].SegmentIndexes = map[string]int{}
		}
		delete(counts, k)
	}
	for k, c := range counts {
		n := 0
		for _, v := range c {
			n += v
		}
		res.Orphans = append(res.Orphans, OrphanSegmentIndexes{Collection: k.collection, IndexID: k.index, Count: n})
	}
	sort.Slice(res.Orphans, func(i, j int) bool {
		a, b := res.Orphans[i], res.Orphans[j]
		if a.Collection != b.Collection {
			return a.Collection < b.Collection
		}
		return a.IndexID < b.IndexID
	})
	if len(res.Orphans) > 0 {
		fmt.Fprintf(warn, "warning: segment indexes of %d index(es) that have no field-index key\n", len(res.Orphans))
	}
	return res, nil
}

func countsByState(c map[string]int) string {
	states := make([]string, 0, len(c))
	for s := range c {
		states = append(states, s)
	}
	sort.Strings(states)
	parts := make([]string, len(states))
	for i, s := range states {
		parts[i] = fmt.Sprintf("%s=%d", s, c[s])
	}
	return strings.Join(parts, " ")
}

// JSON implements framework.Result.
func (r *IndexResult) JSON() any { return r }

// Table implements framework.Result.
func (r *IndexResult) Table(w io.Writer) error {
	// Headers short enough for 80 columns (kubectl exec): the index id
	// beside its collection as in show partition; BUILDS counts the
	// segment index builds by state. A terminal narrower than piped output
	// goes without CREATED (--wide shows it).
	created := r.wide || framework.Width(w) >= framework.PipeWidth
	header := []string{"COLLECTION", "ID", "NAME", "FIELD", "TYPE", "METRIC", "AUTO", "DELETED", "CREATED", "BUILDS", "ERROR"}
	if !created {
		header = slices.Delete(header, 8, 9)
	}
	t := newTable(w, header...).fit(r.wide, 2, len(header)-1)
	for _, x := range r.Indexes {
		cells := []string{i64(x.Collection), i64(x.IndexID), x.Name, i64(x.FieldID), x.IndexType, x.MetricType, yesNo(x.AutoIndex), yesNo(x.Deleted), x.Time,
			countsByState(x.SegmentIndexes), errCell(x.Error)}
		if !created {
			cells = slices.Delete(cells, 8, 9)
		}
		t.row(cells...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d index(es)%s\n", len(r.Indexes), undecodedText(r.Undecoded)); err != nil {
		return err
	}
	for _, o := range r.Orphans {
		if _, err := fmt.Fprintf(w, "orphan: %d segment index(es) of collection %d index %d, which has no field-index key\n", o.Count, o.Collection, o.IndexID); err != nil {
			return err
		}
	}
	if r.UndecodedSegmentIndexes > 0 {
		_, err := fmt.Fprintf(w, "%d segment index value(s) do not decode (not counted)\n", r.UndecodedSegmentIndexes)
		return err
	}
	return nil
}

// Lines implements framework.Result.
func (r *IndexResult) Lines(w io.Writer) error {
	for _, x := range r.Indexes {
		if err := line(w, "index", "collection", i64(x.Collection), "index_id", i64(x.IndexID), "name", x.Name, "field", i64(x.FieldID),
			"type", x.IndexType, "metric", x.MetricType, "params", kvText(x.IndexParams), "auto", boolS(x.AutoIndex), "deleted", boolS(x.Deleted),
			"time", x.Time, "segment_indexes", countsByState(x.SegmentIndexes), "key", x.Key, "error", x.Error); err != nil {
			return err
		}
	}
	for _, o := range r.Orphans {
		if err := line(w, "orphan-segment-indexes", "collection", i64(o.Collection), "index_id", i64(o.IndexID), "count", itoa(o.Count)); err != nil {
			return err
		}
	}
	return line(w, "indexes", "count", itoa(len(r.Indexes)), "undecoded", itoa(r.Undecoded), "undecoded_segment_indexes", itoa(r.UndecodedSegmentIndexes))
}
