package repair

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/show"
)

// RegistrationParams are the flags of `repair vchannel-registration`.
type RegistrationParams struct {
	framework.ParamBase `use:"repair vchannel-registration" desc:"a live collection's vchannel the streaming node has no registration of: create it (streamingnode-meta/wal/{p}/vchannel/{v}, and its schema when it has none) from rootcoord (a plan unless --run)" example:"repair vchannel-registration --vchannel by-dev-rootcoord-dml_0_100v0 --run"`
	VChannel            string `name:"vchannel" required:"true" placeholder:"VCHANNEL" desc:"the vchannel (show vchannel-health flags it NOT_REGISTERED)"`
	framework.WriteFlags
	framework.Output
}

// Validate checks the flags that the tags cannot.
func (p *RegistrationParams) Validate() error {
	if strings.Contains(p.VChannel, "/") || !models.IsVChannelName(p.VChannel) {
		return framework.Usagef("repair vchannel-registration: --vchannel %q: want a vchannel name ({pchannel}_{collection}v{shard})", p.VChannel)
	}
	return nil
}

// RegistrationBuild is `repair vchannel-registration`.
var RegistrationBuild = Build(Repair[RegistrationParams]{
	Command: "repair vchannel-registration", Cache: models.VChannelMetaCache, Decide: decideRegistration,
	Line: func(p *RegistrationParams) string { return show.RegistrationRepair(p.VChannel) },
})

// The gates of a registration.
const (
	consumeCPGate = "the pchannel has a consume checkpoint"
	frozenGate    = "the channel checkpoint is not frozen"
)

func decideRegistration(ctx context.Context, inst *instance.Instance, p *RegistrationParams, rev int64) (*Decision, error) {
	v, pch := p.VChannel, models.PChannelOf(p.VChannel)
	cs := newCollections(listing(v))
	st, err := show.ReadVChannelState(ctx, inst, rev, v, cs.addDecoded)
	if err != nil {
		return nil, err
	}
	c, live := cs.liveWith(v)
	if !live {
		unread := ""
		if len(cs.warnings) > 0 {
			unread = "; of the collection-infos, " + strings.Join(cs.warnings, "; ")
		}
		return nil, framework.Usagef("repair vchannel-registration: --vchannel %s: not a vchannel of a live collection (show vchannel-health lists them)%s", v, unread)
	}
	id := c.info.ID
	metaKey := models.VChannelMetaKey(pch, v)
	schemas, err := inst.Count(ctx, inst.Layout.Meta(models.VChannelSchemaPrefix(pch, v)), rev)
	if err != nil {
		return nil, err
	}
	if st.Registered[metaKey] {
		d := &Decision{Subject: fmt.Sprintf("vchannel %s of collection %d is registered (%s)", v, id, inst.Layout.Meta(metaKey))}
		kv := st.Keys[metaKey]
		if _, err := models.DecodeVChannelMeta(kv.Value); err != nil {
			d.Warnings = append(d.Warnings, fmt.Sprintf("its registration %s does not decode (%v): the streaming node cannot read it, and heron does not rewrite what it cannot read", kv.Key, err))
		}
		if schemas == 0 {
			d.Warnings = append(d.Warnings, "its registration has no schema key (the streaming node panics on it): repair wal-recovery-storage creates it")
		}
		return d, nil
	}
	d := &Decision{Subject: fmt.Sprintf("vchannel %s of collection %d, not registered", v, id),
		Reminders: []string{"start Milvus: the streaming node reads the vchannel's registration when it opens " + pch + "'s WAL"}}

	// checkpoint_time_tick is "the meta already see the message at this
	// timetick" (streaming.proto VChannelMeta). The meta is rebuilt from
	// rootcoord as it is now, later than the consume checkpoint; the WAL
	// replays from that checkpoint, and the recovery storage's Observe*
	// (internal/streamingnode/server/wal/recovery vchannel_recovery_info.go)
	// skip only messages below the meta's time tick and apply partitions and
	// drops idempotently: with the checkpoint's time tick every replayed DDL
	// is seen again and nothing is claimed seen that the WAL will not replay.
	// The collection's create time would claim it saw nothing since, false
	// of partitions and a schema read today; Milvus's own meta built from
	// the coordinators (recovery_storage_impl.go initializeRecoverInfo) uses
	// 0 for a WAL that had never run, which replays the same messages.
	cc, ok := st.ConsumeCPs[pch]
	if !ok {
		d.Gates = append(d.Gates, framework.Gate{Name: consumeCPGate, Keys: []string{inst.Layout.Meta(models.ConsumeCheckpointKey(pch))},
			Detail: "the consume checkpoint of " + pch + " is missing or does not decode: the registration's checkpoint time tick is its time tick " +
				"(a WAL the streaming node never opened gets its registrations from the coordinators when it first does)"})
		return d, nil
	}
	d.Gates = append(d.Gates, framework.Gate{Name: consumeCPGate, OK: true, Detail: fmt.Sprintf("time tick %d", cc.CP.TimeTick)})
	var warn bytes.Buffer
	maxLag, from := st.MaxLag(0, &warn)
	if w := strings.TrimSpace(strings.TrimPrefix(warn.String(), "warning: ")); w != "" {
		d.Warnings = append(d.Warnings, w)
	}
	g := frozen(inst, st.ChannelState, v, maxLag, from)
	cpKey := inst.Layout.Meta(models.ChannelCPKey(v))
	if kv, has := st.Keys[models.ChannelCPKey(v)]; has {
		if _, derr := models.DecodePosition(kv.Value); derr != nil {
			// the state leaves out what does not decode: not an absent one
			g = framework.Gate{Name: frozenGate, Keys: []string{cpKey},
				Detail: fmt.Sprintf("%s does not decode (%v): heron cannot tell whether it is frozen", cpKey, derr)}
		}
	}
	d.Gates = append(d.Gates, g)

	d.Warnings = append(d.Warnings, cs.warnings...)
	rc, err := readRootcoord(ctx, inst, rev, c)
	if err != nil {
		return nil, err
	}
	meta, err := models.NewVChannelMeta(v, id, rc, cc.CP.TimeTick)
	if err != nil {
		return nil, fmt.Errorf("repair vchannel-registration: collection %d (%s): %w", id, c.kv.Key, err)
	}
	m, _ := models.DecodeVChannelMeta(meta)
	// The schema first, the registration last (the kit writes changes in
	// order): a run interrupted between them leaves the vchannel
	// unregistered, and running it again creates the registration; a
	// registration without its schema would plan nothing more.
	if schemas == 0 {
		schema, err := rc.VChannelSchema()
		if err != nil {
			return nil, fmt.Errorf("repair vchannel-registration: collection %d (%s): %w", id, c.kv.Key, err)
		}
		d.Changes = append(d.Changes, Create(inst.Layout.Meta(models.VChannelSchemaKey(pch, v, 0)), schema, models.DescribeVChannelSchema(schema)))
	}
	d.Changes = append(d.Changes, Create(inst.Layout.Meta(metaKey), meta, m.Describe()))
	return d, nil
}

// frozen is the gate of v's channel checkpoint: a checkpoint that lags its
// pchannel's consume checkpoint by more than datacoord's max lag (the rule
// of show vchannel-health and check) is frozen, and the streaming node would
// seek the vchannel from it; `repair checkpoint` moves it first.
func frozen(inst *instance.Instance, st *show.ChannelState, v string, maxLag time.Duration, from string) framework.Gate {
	g := framework.Gate{Name: frozenGate, OK: true, Detail: "no channel checkpoint: datacoord seeks the vchannel from its segments or the collection's start"}
	for _, cc := range st.ChannelCPs {
		if cc.VChannel != v || cc.Position.Dropped {
			continue
		}
		lag, over := st.FrozenBehind(v, cc.Position.Timestamp, maxLag)
		g.Detail = fmt.Sprintf("%s lags the consume checkpoint of %s by %s, within datacoord's max lag %s (%s)",
			inst.Layout.Meta(cc.Key), models.PChannelOf(v), lag.Truncate(time.Second), maxLag, from)
		if over {
			g.OK, g.Keys = false, []string{inst.Layout.Meta(cc.Key)}
			g.Detail = fmt.Sprintf("%s lags the consume checkpoint of %s by %s, over datacoord's max lag %s (%s): move it to a live position first: %s",
				inst.Layout.Meta(cc.Key), models.PChannelOf(v), lag.Truncate(time.Second), maxLag, from, show.CheckpointRepair(v))
		}
	}
	return g
}
