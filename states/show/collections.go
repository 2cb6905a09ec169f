package show

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// CollectionsParam is `show collections`.
type CollectionsParam struct {
	framework.ParamBase `use:"show collections" desc:"collections of both key layouts with their channels and start positions" example:"show collections --wide" alias:"collection"`
	ID                  int64  `name:"id" placeholder:"COLLECTION" complete:"collection" desc:"only the collection with this id"`
	Name                string `name:"name" placeholder:"NAME" complete:"collection-name" desc:"only collections with this name"`
	DBID                int64  `name:"dbid" placeholder:"DB" complete:"-" desc:"only collections of this database id"`
	State               string `name:"state" placeholder:"STATE" complete:"collection-state" desc:"only collections in this state: Created, Creating, Dropping, Dropped or dropped-tombstone (case-insensitive; CollectionCreated is Created)"`
	Wide
	framework.Output
}

// keep reports whether the filters of p keep row c.
func (p *CollectionsParam) keep(c CollectionRow) bool {
	return (p.ID == 0 || c.ID == p.ID) && (p.Name == "" || c.Name == p.Name) &&
		(p.DBID == 0 || c.DB == p.DBID) && (p.State == "" || strings.EqualFold(c.State, trimFold(p.State, "Collection")))
}

// trimFold removes prefix from s, matched case-insensitively.
func trimFold(s, prefix string) string {
	if len(s) > len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}

// filter keeps the rows p asks for; the footer counts follow.
func (p *CollectionsParam) filter(res *CollectionsResult) {
	if p.ID == 0 && p.Name == "" && p.DBID == 0 && p.State == "" {
		return
	}
	kept := res.Collections[:0]
	res.Tombstones, res.Errors = 0, 0
	for _, c := range res.Collections {
		if !p.keep(c) {
			continue
		}
		kept = append(kept, c)
		if c.Tombstone {
			res.Tombstones++
		}
		if c.Error != "" {
			res.Errors++
		}
	}
	res.Collections = kept
	res.filtered = true
}

// StartPositionRow is one start_positions pair, decoded with the WAL of its
// pchannel's consume checkpoint (start positions carry no WAL_name). As in
// every show listing, a message id held as bytes is given as
// message_id_hex and message_id_base64, and decoded as message_id_human.
type StartPositionRow struct {
	Key             string `json:"key"`
	PChannel        string `json:"pchannel"`
	WAL             string `json:"wal"`
	WALGuessed      bool   `json:"wal_guessed"`
	MessageIDHex    string `json:"message_id_hex"`
	MessageIDBase64 string `json:"message_id_base64"`
	MessageIDHuman  string `json:"message_id_human"`
	Error           string `json:"error,omitempty"`
}

// CollectionRow is one collection-info key. Error: its value does not
// decode; the ids are then the key's.
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
	Error          string             `json:"error,omitempty"`
	cause          string             // the decode error, for the table (the row names the key)
}

// CollectionsResult is the output of `show collections`.
type CollectionsResult struct {
	Collections []CollectionRow `json:"collections"`
	Tombstones  int             `json:"tombstones"`
	Errors      int             `json:"errors"`
	wide        bool
	filtered    bool // --id, --name, --dbid or --state left rows out
}

const (
	layoutDatabase = "database"
	layoutLegacy   = "legacy"
	stateTombstone = "dropped-tombstone"
)

func runCollections(ctx context.Context, inst *instance.Instance, p *CollectionsParam, out framework.IO) (framework.Result, error) {
	res, err := Collections(ctx, inst, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	p.filter(res)
	if res.filtered && len(res.Collections) == 0 && p.ID != 0 {
		return nil, fmt.Errorf("show collections: no collection %d", p.ID)
	}
	return res, nil
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

// Collections lists the collection infos of both key layouts, each layout in
// natural key order; tombstones are listed as dropped-tombstone entries and
// not decoded, a value that does not decode is a row with its error.
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
			res.Errors++
			row := CollectionRow{ID: e.Collection, DB: e.DB, Layout: layout, Key: e.Rel, VChannels: []string{}, PChannels: []string{},
				StartPositions: []StartPositionRow{}, Error: fmt.Sprintf("key %s does not decode: %v", e.Rel, err), cause: err.Error()}
			fmt.Fprintf(warn, "warning: collection %s\n", framework.EscapeText(row.Error))
			res.Collections = append(res.Collections, row)
			return nil
		}
		row := CollectionRow{ID: c.ID, DB: c.DBID, Name: c.Name, State: c.State, Shards: c.ShardsNum,
			VChannels: nonNil(c.VChannels), PChannels: nonNil(c.PChannels), Layout: layout, Key: e.Rel,
			CreateTime: c.CreateTime, Time: tsoTime(c.CreateTime), StartPositions: []StartPositionRow{}}
		for _, sp := range c.StartPositions {
			pc := sp.Key
			if _, ok := wals[pc]; !ok {
				pc = models.PChannelOf(sp.Key) // some writers key by the vchannel
			}
			sr := StartPositionRow{Key: sp.Key, PChannel: pc, WALGuessed: true, MessageIDHex: fmt.Sprintf("%x", sp.Data),
				MessageIDBase64: base64.StdEncoding.EncodeToString(sp.Data)}
			wal, ok := wals[pc]
			sr.WAL = walName(wal)
			if !ok || wal == commonpb.WALName_Unknown {
				sr.Error = "no consume checkpoint of " + pc + " names a WAL"
			} else {
				sr.MessageIDHuman, sr.Error = describe(wal, sp.Data)
			}
			if sr.Error != "" {
				fmt.Fprintf(warn, "warning: %s: start position %s: %s\n", framework.EscapeText(e.Rel), framework.EscapeText(sp.Key), sr.Error)
			}
			row.StartPositions = append(row.StartPositions, sr)
		}
		res.Collections = append(res.Collections, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(res.Collections, func(a, b CollectionRow) int {
		if a.Layout != b.Layout {
			return strings.Compare(a.Layout, b.Layout) // database, then legacy
		}
		return naturalCompare(a.Key, b.Key)
	})
	if res.Errors > 0 {
		fmt.Fprintf(warn, "warning: %d collection key(s) do not decode: listed with their error\n", res.Errors)
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

// startsCell is the table cell of a collection's start positions: just the
// ids (and their WAL once) when they are keyed by the collection's pchannels
// in order, as Milvus writes them; else startsText.
func startsCell(pchannels []string, sps []StartPositionRow) string {
	if len(sps) != len(pchannels) {
		return startsText(sps)
	}
	ids := make([]string, len(sps))
	for i, sp := range sps {
		if sp.Key != pchannels[i] || sp.Error != "" || sp.WAL != sps[0].WAL {
			return startsText(sps)
		}
		ids[i] = orDash(sp.MessageIDHuman)
	}
	if len(ids) == 0 {
		return ""
	}
	return strings.Join(ids, ",") + " (" + sps[0].WAL + ")"
}

// maxPChannelsListed is how many pchannels a collection's cell names one by
// one; more are counted.
const maxPChannelsListed = 4

// pchannelsCell names a collection's pchannels in the table by the part
// that tells them from every pchannel listed (dml_0, not
// by-dev-rootcoord-dml_0), or counts them: "16: dml_0 ... dml_15". all nil
// (--wide) names them in full.
func pchannelsCell(pchannels, all []string) string {
	if all == nil {
		return strings.Join(pchannels, ",")
	}
	parts := make([]string, len(pchannels))
	for i, pc := range pchannels {
		parts[i] = framework.DistinctPart(pc, all)
	}
	if len(parts) > maxPChannelsListed {
		return fmt.Sprintf("%d: %s ... %s", len(parts), parts[0], parts[len(parts)-1])
	}
	return strings.Join(parts, ",")
}

// JSON implements framework.Result.
func (r *CollectionsResult) JSON() any { return r }

// Table implements framework.Result.
func (r *CollectionsResult) Table(w io.Writer) error {
	// The vchannels ({pchannel}_{collection}v{n}) only with --wide: the
	// table fits 120 columns otherwise.
	// A terminal narrower than piped output (80 columns under kubectl exec)
	// goes without CREATED and with a shorter header: at their headers the
	// columns need 91 columns otherwise.
	narrow := !r.wide && framework.Width(w) < framework.PipeWidth
	header := []string{"ID", "DB", "NAME", "STATE", "SHARDS", "PCHANNELS", "LAYOUT", "CREATED", "START POSITIONS"}
	if narrow {
		header = []string{"ID", "DB", "NAME", "STATE", "SHARDS", "PCHANNELS", "LAYOUT", "START POS"}
	}
	if r.wide {
		header = slices.Insert(header, 5, "VCHANNELS")
	}
	if r.Errors > 0 {
		header = append(header, "ERROR")
	}
	elided := []int{2, 5, 8, 9}
	if narrow {
		elided = []int{2, 5, 7, 8}
	}
	t := newTable(w, header...).fit(r.wide, elided...)
	var all []string
	if !r.wide {
		for _, c := range r.Collections {
			all = append(all, c.PChannels...)
		}
	}
	for _, c := range r.Collections {
		var cells []string
		vchannels := strings.Join(c.VChannels, ",")
		switch {
		case c.Error != "":
			cells = []string{idCell(c.ID), idCell(c.DB), "", "", "", "", c.Layout, "", "", "does not decode: " + c.cause}
			vchannels = ""
		case c.Tombstone:
			cells = []string{i64(c.ID), i64(c.DB), "", c.State, "", "", c.Layout, "", ""}
		default:
			cells = []string{i64(c.ID), i64(c.DB), c.Name, c.State, i32(c.Shards), pchannelsCell(c.PChannels, all),
				c.Layout, c.Time, startsCell(c.PChannels, c.StartPositions)}
		}
		if r.wide {
			cells = slices.Insert(cells, 5, vchannels)
		}
		if narrow {
			cells = slices.Delete(cells, 7, 8)
		}
		if r.Errors > 0 && len(cells) < len(header) {
			cells = append(cells, "")
		}
		t.row(cells...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	matching := ""
	if r.filtered {
		matching = " matching the filters"
	}
	_, err := fmt.Fprintf(w, "%d collection key(s)%s, %d tombstone(s)\n(start positions carry no WAL_name: decoded with the WAL of their pchannel's consume checkpoint)\n",
		len(r.Collections), matching, r.Tombstones)
	if err == nil && !r.wide {
		_, err = fmt.Fprintln(w, "(pchannels by the part that tells them apart; --wide adds the vchannels and shows every cell in full)")
	}
	if err == nil && r.Errors > 0 {
		_, err = fmt.Fprintf(w, "%d key(s) do not decode (see ERROR)\n", r.Errors)
	}
	return err
}

// Lines implements framework.Result.
func (r *CollectionsResult) Lines(w io.Writer) error {
	for _, c := range r.Collections {
		if err := line(w, "collection", "id", i64(c.ID), "db", i64(c.DB), "name", c.Name, "state", c.State, "shards", i32(c.Shards),
			"vchannels", strings.Join(c.VChannels, ","), "pchannels", strings.Join(c.PChannels, ","), "layout", c.Layout,
			"key", c.Key, "time", c.Time, "start_positions", startsText(c.StartPositions), "error", c.Error); err != nil {
			return err
		}
	}
	return line(w, "summary", "collections", itoa(len(r.Collections)), "tombstones", itoa(r.Tombstones), "errors", itoa(r.Errors))
}
