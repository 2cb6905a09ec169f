package show

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// ChannelState is what `show wal-distribution`, `show vchannel-health` and
// `check` read of the channels of an instance, at one revision: pchannel
// metas, streaming-node sessions, consume checkpoints, vchannel
// registrations, channel checkpoints, live collections' vchannels and the
// etcd config source. A page at a time; what it keeps grows with the
// number of channels, not of segments.
type ChannelState struct {
	Revision  int64
	PChannels []PChannelEntry
	// Sessions are the streaming nodes' session keys by server id.
	Sessions map[int64]instance.KV
	// ConsumeCPs are the consume checkpoints by pchannel.
	ConsumeCPs map[string]ConsumeCP
	// Registered holds every vchannel registration key
	// (streamingnode-meta/wal/{p}/vchannel/{v}).
	Registered map[string]bool
	// Schemaless are the NORMAL vchannel metas (by key) with no schema:
	// none in their collection_info and no key under their schema/ (Milvus
	// 2.6.0 panics at start on one: "vchannel has no schemas in recovery
	// info", milvus#43538). Usually empty: a meta is dropped from it when a
	// schema key follows it (a walk is in key order, the meta first).
	Schemaless map[string]VChannelRef
	ChannelCPs []ChannelCPEntry
	// Live maps the vchannels of live (Created) collections to their
	// collection id; Collections says how many collections are live, a
	// legacy collection-info a database-scoped one hides left out
	// (models.ScopedCollections).
	Live        map[string]int64
	Collections int
	// Config is the etcd config source: keys relative to the root path.
	Config map[string]string
	// Errors are keys whose value does not decode, with the error.
	Errors []string

	scoped     models.ScopedCollections
	legacyLive map[int64][]string // live legacy collection-infos' vchannels, until settleCollections
}

// VChannelRef is a vchannel of a collection.
type VChannelRef struct {
	VChannel   string
	Collection int64
}

// PChannelEntry is one streamingcoord-meta/pchannel key.
type PChannelEntry struct {
	Key  string
	Meta *models.PChannelMeta
}

// ConsumeCP is one consume checkpoint.
type ConsumeCP struct {
	Key string
	CP  *models.WALCheckpoint
}

// ChannelCPEntry is one datacoord channel checkpoint.
type ChannelCPEntry struct {
	Key      string
	VChannel string
	Position *ChannelPosition
}

// ChannelPosition is what a channel checkpoint holds.
type ChannelPosition struct {
	MsgID     []byte
	Timestamp uint64
	WAL       string // its WAL_name; "unknown" when untagged
	Dropped   bool
}

// ReadChannelState reads the channels of inst at revision rev (0: now).
func ReadChannelState(ctx context.Context, inst *instance.Instance, rev int64) (*ChannelState, error) {
	st := newChannelState()
	rev, err := inst.Walk(ctx, rev, []string{models.PChannelPrefix, models.SessionPrefix + models.StreamingNodeRole + "-", models.WALPrefix,
		models.ChannelCPPrefix, models.CollectionInfoPrefix, models.LegacyCollectionPrefix}, func(e instance.Entry) error {
		st.add(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	st.settleCollections()
	if err := st.readConfig(ctx, inst, rev); err != nil {
		return nil, err
	}
	slices.SortFunc(st.PChannels, func(a, b PChannelEntry) int { return naturalCompare(a.Key, b.Key) })
	slices.SortFunc(st.ChannelCPs, func(a, b ChannelCPEntry) int { return naturalCompare(a.Key, b.Key) })
	return st, nil
}

// VChannelState is the channel state as far as one vchannel goes: its
// pchannel's consume checkpoint, its registration, its channel checkpoint,
// the live collections and the config source, read by the same rules as
// ReadChannelState's; its maps and lists hold no other vchannel's or
// pchannel's keys. A repair of one vchannel reads this, not the tens of
// thousands of registrations and checkpoints of every other.
type VChannelState struct {
	*ChannelState
	// Keys are the vchannel's own keys as read, by key relative to the
	// meta root, the absent ones left out: one here and not in the state
	// did not decode.
	Keys map[string]instance.KV
}

// ReadVChannelState reads the channel state of vchannel v at revision rev
// (> 0); each collection-info it walks (both key layouts, a prefix at a
// time, each in key order) is also given to collection with its top level
// as decoded (nil: a tombstone, or a value that does not decode), so that a
// caller that needs the collections' values reads and decodes them once.
func ReadVChannelState(ctx context.Context, inst *instance.Instance, rev int64, v string, collection func(instance.Entry, *models.CollectionChannels)) (*VChannelState, error) {
	pch := models.PChannelOf(v)
	vs := &VChannelState{ChannelState: newChannelState(), Keys: map[string]instance.KV{}}
	vs.Revision = rev
	own := []string{models.ConsumeCheckpointKey(pch), models.VChannelMetaKey(pch, v), models.ChannelCPKey(v)}
	abs := make([]string, len(own))
	for i, k := range own {
		abs[i] = inst.Layout.Meta(k)
	}
	kvs, err := inst.GetMany(ctx, abs, rev)
	if err != nil {
		return nil, err
	}
	for i, kv := range kvs {
		if kv.Key != "" {
			vs.Keys[own[i]] = kv
			vs.add(instance.Entry{KV: kv, Key: models.Classify(own[i])})
		}
	}
	_, err = inst.Walk(ctx, rev, []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}, func(e instance.Entry) error {
		collection(e, vs.add(e))
		return nil
	})
	if err != nil {
		return nil, err
	}
	vs.settleCollections()
	if err := vs.readConfig(ctx, inst, rev); err != nil {
		return nil, err
	}
	return vs, nil
}

func newChannelState() *ChannelState {
	return &ChannelState{Sessions: map[int64]instance.KV{}, ConsumeCPs: map[string]ConsumeCP{}, Registered: map[string]bool{},
		Schemaless: map[string]VChannelRef{}, Live: map[string]int64{}, Config: map[string]string{},
		scoped: models.ScopedCollections{}, legacyLive: map[int64][]string{}}
}

// add decodes one entry into the state; a value that does not decode is
// named in Errors. Of a collection-info it returns the top level decoded.
func (st *ChannelState) add(e instance.Entry) *models.CollectionChannels {
	bad := func(err error) {
		st.Errors = append(st.Errors, fmt.Sprintf("key %s does not decode: %v", e.Rel, err))
	}
	switch e.Kind {
	case models.KindPChannel:
		m, err := models.DecodePChannelMeta(e.Value)
		if err != nil {
			bad(err)
			return nil
		}
		st.PChannels = append(st.PChannels, PChannelEntry{Key: e.Rel, Meta: m})
	case models.KindSession:
		s, err := models.DecodeSession(e.Rel, e.Value, e.Lease)
		if err != nil {
			bad(err)
			return nil
		}
		if e.Rel == models.StreamingNodeSessionKey(s.ServerID) {
			st.Sessions[s.ServerID] = e.KV
		}
	case models.KindConsumeCheckpoint:
		cp, err := models.DecodeWALCheckpoint(e.Value)
		if err != nil {
			bad(err)
			return nil
		}
		st.ConsumeCPs[e.PChannel] = ConsumeCP{Key: e.Rel, CP: cp}
	case models.KindVChannelMeta:
		st.Registered[e.Rel] = true
		m, err := models.DecodeVChannelMeta(e.Value)
		if err != nil {
			bad(err)
			return nil
		}
		if m.State == models.VChannelNormal && m.Schemas == 0 {
			st.Schemaless[e.Rel] = VChannelRef{VChannel: e.VChannel, Collection: m.CollectionID}
		}
	case models.KindVChannelSchema:
		delete(st.Schemaless, models.VChannelMetaKey(e.PChannel, e.VChannel))
	case models.KindChannelCP:
		p, err := models.DecodePosition(e.Value)
		if err != nil {
			bad(err)
			return nil
		}
		st.ChannelCPs = append(st.ChannelCPs, ChannelCPEntry{Key: e.Rel, VChannel: e.VChannel, Position: &ChannelPosition{
			MsgID: p.GetMsgID(), Timestamp: p.GetTimestamp(), WAL: walName(p.GetWALName()), Dropped: models.IsDroppedChannelCP(p)}})
	case models.KindCollectionInfo, models.KindLegacyCollection:
		if models.IsTombstone(e.Value) {
			return nil
		}
		c, err := models.DecodeCollectionChannels(e.Value)
		if err != nil {
			bad(err)
			return nil
		}
		if e.Kind == models.KindLegacyCollection {
			if c.Live {
				st.legacyLive[c.ID] = c.VChannels
			}
			return &c
		}
		st.scoped[c.ID] = true
		if c.Live {
			st.live(c.ID, c.VChannels)
		}
		return &c
	}
	return nil
}

func (st *ChannelState) live(id int64, vchannels []string) {
	st.Collections++
	for _, v := range vchannels {
		st.Live[v] = id
	}
}

// settleCollections counts the live legacy collection-infos that no
// database-scoped one hides, once every collection-info is read (a walk
// reads the scoped prefix first, but a rule should not lean on that).
func (st *ChannelState) settleCollections() {
	for _, id := range slices.Sorted(maps.Keys(st.legacyLive)) {
		if !st.scoped.Hides(id) {
			st.live(id, st.legacyLive[id])
		}
	}
	clear(st.legacyLive)
}

// readConfig reads the etcd config source at rev.
func (st *ChannelState) readConfig(ctx context.Context, inst *instance.Instance, rev int64) error {
	_, err := inst.Scan(ctx, inst.Layout.Root(models.ConfigPrefix), rev, func(page []instance.KV) error {
		for _, kv := range page {
			st.Config[strings.TrimPrefix(kv.Key, inst.Layout.RootPath+"/")] = string(kv.Value)
		}
		return nil
	})
	return err
}

// ConfigKeys are the keys of the etcd config source, sorted as etcd returns them.
func (st *ChannelState) ConfigKeys() []string {
	keys := make([]string, 0, len(st.Config))
	for k := range st.Config {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// warnErrors writes the keys that do not decode to warn, escaped.
func (st *ChannelState) warnErrors(w io.Writer) {
	for _, e := range st.Errors {
		fmt.Fprintf(w, "warning: %s\n", framework.EscapeText(e))
	}
}
