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
	// collection id; Collections says how many collections are live.
	Live        map[string]int64
	Collections int
	// Config is the etcd config source: keys relative to the root path.
	Config map[string]string
	// Errors are keys whose value does not decode, with the error.
	Errors []string
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
	st := &ChannelState{Sessions: map[int64]instance.KV{}, ConsumeCPs: map[string]ConsumeCP{}, Registered: map[string]bool{},
		Schemaless: map[string]VChannelRef{}, Live: map[string]int64{}, Config: map[string]string{}}
	bad := func(rel string, err error) {
		st.Errors = append(st.Errors, fmt.Sprintf("key %s does not decode: %v", rel, err))
	}
	rev, err := inst.Walk(ctx, rev, []string{models.PChannelPrefix, models.SessionPrefix + models.StreamingNodeRole + "-", models.WALPrefix,
		models.ChannelCPPrefix, models.CollectionInfoPrefix, models.LegacyCollectionPrefix}, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindPChannel:
			m, err := models.DecodePChannelMeta(e.Value)
			if err != nil {
				bad(e.Rel, err)
				return nil
			}
			st.PChannels = append(st.PChannels, PChannelEntry{Key: e.Rel, Meta: m})
		case models.KindSession:
			s, err := models.DecodeSession(e.Rel, e.Value, e.Lease)
			if err != nil {
				bad(e.Rel, err)
				return nil
			}
			if e.Rel == models.StreamingNodeSessionKey(s.ServerID) {
				st.Sessions[s.ServerID] = e.KV
			}
		case models.KindConsumeCheckpoint:
			cp, err := models.DecodeWALCheckpoint(e.Value)
			if err != nil {
				bad(e.Rel, err)
				return nil
			}
			st.ConsumeCPs[e.PChannel] = ConsumeCP{Key: e.Rel, CP: cp}
		case models.KindVChannelMeta:
			st.Registered[e.Rel] = true
			m, err := models.DecodeVChannelMeta(e.Value)
			if err != nil {
				bad(e.Rel, err)
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
				bad(e.Rel, err)
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
				bad(e.Rel, err)
				return nil
			}
			if !c.Live {
				return nil
			}
			st.Collections++
			for _, v := range c.VChannels {
				st.Live[v] = c.ID
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st.Revision = rev
	_, err = inst.Scan(ctx, inst.Layout.Root(models.ConfigPrefix), rev, func(page []instance.KV) error {
		for _, kv := range page {
			st.Config[strings.TrimPrefix(kv.Key, inst.Layout.RootPath+"/")] = string(kv.Value)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(st.PChannels, func(a, b PChannelEntry) int { return naturalCompare(a.Key, b.Key) })
	slices.SortFunc(st.ChannelCPs, func(a, b ChannelCPEntry) int { return naturalCompare(a.Key, b.Key) })
	return st, nil
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
