package show

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// CollectionsParam is `show collections`.
type CollectionsParam struct {
	framework.ParamBase `use:"show collections" desc:"collections of both key layouts with their channels and start positions"`
	framework.Output
}

// StartPositionRow is one start_positions pair, decoded with the WAL of its
// pchannel's consume checkpoint (start positions carry no WAL_name).
type StartPositionRow struct {
	Key            string `json:"key"`
	PChannel       string `json:"pchannel"`
	WAL            string `json:"wal"`
	WALGuessed     bool   `json:"wal_guessed"`
	MessageIDHex   string `json:"message_id_hex"`
	MessageIDHuman string `json:"message_id_human"`
	Error          string `json:"error,omitempty"`
}

// CollectionRow is one collection-info key.
type CollectionRow struct {
	ID             int64              `json:"id"`
	DB             int64              `json:"db"`
	Name           string             `json:"name"`
	State          string             `json:"state"`
	Shards         int32              `json:"shards"`
	VChannels      []string           `json:"vchannels"`
	PChannels      []string           `json:"pchannels"`
	Layout         string             `json:"layout"`
	Key            string             `json:"key"`
	CreateTime     uint64             `json:"create_time"`
	Time           string             `json:"time"`
	Tombstone      bool               `json:"tombstone"`
	StartPositions []StartPositionRow `json:"start_positions"`
}

// CollectionsResult is the output of `show collections`.
type CollectionsResult struct {
	Collections []CollectionRow `json:"collections"`
	Tombstones  int             `json:"tombstones"`
}

const (
	layoutDatabase = "database"
	layoutLegacy   = "legacy"
	stateTombstone = "dropped-tombstone"
)

func runCollections(ctx context.Context, inst *instance.Instance, _ *CollectionsParam) (framework.Result, error) {
	return result(Collections(ctx, inst, framework.Stderr(ctx)))
}

// consumeWALs reads the WAL named by each pchannel's consume checkpoint at rev:
// one entry per pchannel. Undecodable checkpoints are warned about and left out.
func consumeWALs(ctx context.Context, inst *instance.Instance, rev int64, warn io.Writer) (map[string]commonpb.WALName, int64, error) {
	wals := map[string]commonpb.WALName{}
	rev, err := inst.Walk(ctx, rev, []string{models.WALPrefix}, func(e instance.Entry) error {
		if e.Kind != models.KindConsumeCheckpoint {
			return nil
		}
		cp, err := models.DecodeWALCheckpoint(e.Value)
		if err != nil {
			fmt.Fprintf(warn, "warning: consume checkpoint %s does not decode: %v\n", e.Rel, err)
			return nil
		}
		if cp.HasMessageID {
			wals[e.PChannel] = cp.WAL
		}
		return nil
	})
	return wals, rev, err
}

// Collections lists the collection infos of both key layouts; tombstones are
// listed as dropped-tombstone entries and not decoded.
func Collections(ctx context.Context, inst *instance.Instance, warn io.Writer) (*CollectionsResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	wals, rev, err := consumeWALs(ctx, inst, 0, warn)
	if err != nil {
		return nil, err
	}
	res := &CollectionsResult{Collections: []CollectionRow{}}
	_, err = inst.Walk(ctx, rev, []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}, func(e instance.Entry) error {
		var layout string
		switch e.Kind {
		case models.KindCollectionInfo:
			layout = layoutDatabase
		case models.KindLegacyCollection:
			layout = layoutLegacy
		default:
			return nil
		}
		if models.IsTombstone(e.Value) {
			res.Tombstones++
			res.Collections = append(res.Collections, CollectionRow{ID: e.Collection, DB: e.DB, State: stateTombstone,
				Layout: layout, Key: e.Rel, Tombstone: true, VChannels: []string{}, PChannels: []string{}, StartPositions: []StartPositionRow{}})
			return nil
		}
		c, err := models.DecodeCollectionInfo(e.Value)
		if err != nil {
			return fmt.Errorf("key %s: %w", e.Rel, err)
		}
		row := CollectionRow{ID: c.ID, DB: c.DBID, Name: c.Name, State: c.State, Shards: c.ShardsNum,
			VChannels: nonNil(c.VChannels), PChannels: nonNil(c.PChannels), Layout: layout, Key: e.Rel,
			CreateTime: c.CreateTime, Time: tsoTime(c.CreateTime), StartPositions: []StartPositionRow{}}
		for _, sp := range c.StartPositions {
			pc := sp.Key
			if _, ok := wals[pc]; !ok {
				pc = models.PChannelOf(sp.Key) // some writers key by the vchannel
			}
			sr := StartPositionRow{Key: sp.Key, PChannel: pc, WALGuessed: true, MessageIDHex: fmt.Sprintf("%x", sp.Data)}
			wal, ok := wals[pc]
			sr.WAL = walName(wal)
			if !ok || wal == commonpb.WALName_Unknown {
				sr.Error = "no consume checkpoint of " + pc + " names a WAL"
			} else {
				sr.MessageIDHuman, sr.Error = describe(wal, sp.Data)
			}
			if sr.Error != "" {
				fmt.Fprintf(warn, "warning: %s: start position %s: %s\n", e.Rel, sp.Key, sr.Error)
			}
			row.StartPositions = append(row.StartPositions, sr)
		}
		res.Collections = append(res.Collections, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func startsText(sps []StartPositionRow) string {
	parts := make([]string, 0, len(sps))
	for _, sp := range sps {
		v := sp.MessageIDHuman
		if sp.Error != "" {
			v = "error: " + sp.Error
		}
		parts = append(parts, fmt.Sprintf("%s=%s (%s)", sp.Key, v, sp.WAL))
	}
	return strings.Join(parts, " ")
}

// JSON implements framework.Result.
func (r *CollectionsResult) JSON() any { return r }

// Table implements framework.Result.
func (r *CollectionsResult) Table(w io.Writer) error {
	t := newTable(w, "ID", "DB", "NAME", "STATE", "SHARDS", "VCHANNELS", "PCHANNELS", "LAYOUT", "CREATED", "START POSITIONS (WAL of the consume checkpoint)")
	for _, c := range r.Collections {
		if c.Tombstone {
			t.row(i64(c.ID), i64(c.DB), "", c.State, "", "", "", c.Layout, "", "")
			continue
		}
		t.row(i64(c.ID), i64(c.DB), c.Name, c.State, i32(c.Shards), strings.Join(c.VChannels, ","), strings.Join(c.PChannels, ","),
			c.Layout, c.Time, startsText(c.StartPositions))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d collection key(s), %d tombstone(s)\n", len(r.Collections), r.Tombstones)
	return err
}

// Lines implements framework.Result.
func (r *CollectionsResult) Lines(w io.Writer) error {
	for _, c := range r.Collections {
		if err := line(w, "collection", "id", i64(c.ID), "db", i64(c.DB), "name", c.Name, "state", c.State, "shards", i32(c.Shards),
			"vchannels", strings.Join(c.VChannels, ","), "pchannels", strings.Join(c.PChannels, ","), "layout", c.Layout,
			"key", c.Key, "time", c.Time, "start_positions", startsText(c.StartPositions)); err != nil {
			return err
		}
	}
	return nil
}
