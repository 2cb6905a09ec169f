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

// tombstoneState is the state shown for a rootcoord tombstone value.
const tombstoneState = "dropped-tombstone"

// DatabaseParam is `show database`.
type DatabaseParam struct {
	framework.ParamBase `use:"show database" desc:"rootcoord databases (root-coord/database/db-info/) with their properties and collection counts" example:"show database --format json" alias:"databases"`
	Wide
	framework.Output
}

// DatabaseRow is one db-info key.
type DatabaseRow struct {
	ID          int64             `json:"id"`
	Name        string            `json:"name"`
	TenantID    string            `json:"tenant_id,omitempty"`
	State       string            `json:"state"`
	CreatedTime uint64            `json:"created_time"`
	Time        string            `json:"time"`
	Properties  []models.KeyValue `json:"properties"`
	// Collections counts the collection-info keys of the database (tombstones excluded).
	Collections int    `json:"collections"`
	Tombstone   bool   `json:"tombstone"`
	Key         string `json:"key"`
	Error       string `json:"error,omitempty"`
}

// DatabaseResult is the output of `show database`.
type DatabaseResult struct {
	Revision  int64         `json:"revision"`
	Databases []DatabaseRow `json:"databases"`
	Undecoded int           `json:"undecoded"`
	wide      bool
}

func runDatabase(ctx context.Context, inst *instance.Instance, p *DatabaseParam, out framework.IO) (framework.Result, error) {
	res, err := Databases(ctx, inst, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	return res, nil
}

// Databases lists the databases of the instance, at one revision.
func Databases(ctx context.Context, inst *instance.Instance, warn io.Writer) (*DatabaseResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	res := &DatabaseResult{Databases: []DatabaseRow{}}
	counts := map[int64]int{}
	rev, err := inst.Walk(ctx, 0, []string{models.DatabasePrefix, models.CollectionInfoPrefix}, func(e instance.Entry) error {
		if e.Kind == models.KindCollectionInfo {
			if !models.IsTombstone(e.Value) {
				counts[e.DB]++
			}
			return nil
		}
		id, ok := models.ParseDatabaseKey(e.Rel)
		if !ok {
			return nil
		}
		row := DatabaseRow{ID: id, Key: e.Rel, Properties: []models.KeyValue{}}
		switch {
		case models.IsTombstone(e.Value):
			row.Tombstone, row.State = true, tombstoneState
		default:
			d, err := models.DecodeDatabaseInfo(e.Value)
			if err != nil {
				row.Error = err.Error()
				res.Undecoded++
				fmt.Fprintf(warn, "warning: database %s does not decode: %v\n", e.Rel, err)
				break
			}
			row.ID, row.Name, row.TenantID, row.State, row.CreatedTime, row.Properties = d.ID, d.Name, d.TenantID, d.State, d.CreatedTime, d.Properties
			row.Time = tsoTime(d.CreatedTime)
		}
		res.Databases = append(res.Databases, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = rev
	// Ids in natural order: database 2 before database 10.
	slices.SortStableFunc(res.Databases, func(a, b DatabaseRow) int { return naturalCompare(a.Key, b.Key) })
	for i := range res.Databases {
		res.Databases[i].Collections = counts[res.Databases[i].ID]
	}
	return res, nil
}

func kvText(kvs []models.KeyValue) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, ",")
}

func errCell(e string) string {
	if e == "" {
		return ""
	}
	return "error: " + e
}

// JSON implements framework.Result.
func (r *DatabaseResult) JSON() any { return r }

// Table implements framework.Result.
func (r *DatabaseResult) Table(w io.Writer) error {
	t := newTable(w, "ID", "NAME", "STATE", "CREATED", "COLLECTIONS", "PROPERTIES", "ERROR").fit(r.wide, 1, 5, 6).cutEnd(5)
	for _, d := range r.Databases {
		t.row(i64(d.ID), d.Name, d.State, d.Time, itoa(d.Collections), kvText(d.Properties), errCell(d.Error))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d database(s)%s\n", len(r.Databases), undecodedText(r.Undecoded))
	return err
}

func undecodedText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d not decoded (see ERROR)", n)
}

// Lines implements framework.Result.
func (r *DatabaseResult) Lines(w io.Writer) error {
	for _, d := range r.Databases {
		if err := line(w, "database", "id", i64(d.ID), "name", d.Name, "tenant", d.TenantID, "state", d.State, "time", d.Time,
			"collections", itoa(d.Collections), "properties", kvText(d.Properties), "key", d.Key, "error", d.Error); err != nil {
			return err
		}
	}
	return line(w, "databases", "count", itoa(len(r.Databases)), "undecoded", itoa(r.Undecoded))
}
