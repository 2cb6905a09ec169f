package repair

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// RecoveryStorageParams are the flags of `repair wal-recovery-storage`.
type RecoveryStorageParams struct {
	framework.ParamBase `use:"repair wal-recovery-storage" desc:"NORMAL vchannel metas with no schema (Milvus 2.6's streaming node panics: \"vchannel ... has no schemas in recovery info\", milvus #43538): create each one's schema from rootcoord (a plan unless --run)" example:"repair wal-recovery-storage --run"`
	framework.WriteFlags
	framework.Output
}

// RecoveryStorageBuild is `repair wal-recovery-storage`.
var RecoveryStorageBuild = Build(Repair[RecoveryStorageParams]{
	Command: "repair wal-recovery-storage", Cache: models.VChannelMetaCache, Decide: decideRecoveryStorage,
	Line: func(*RecoveryStorageParams) string { return "repair wal-recovery-storage" },
})

// collectionGate refuses a vchannel whose schema rootcoord cannot give.
const collectionGate = "every vchannel's collection is in rootcoord"

// lostSchema is a NORMAL vchannel meta with no schema.
type lostSchema struct {
	key  string
	p, v string
	meta *models.VChannelMeta
}

func decideRecoveryStorage(ctx context.Context, inst *instance.Instance, _ *RecoveryStorageParams, rev int64) (*Decision, error) {
	// Only a NORMAL meta may lack its schema: the others are counted, not
	// kept (a million-segment instance has tens of thousands). A walk is in
	// key order: a meta's schema keys ({meta}/schema/...) follow it, after
	// only the keys of the vchannels whose names extend its name with a
	// byte below '/' (none, for Milvus's names, which end in a digit; a
	// name "..._1v0-old" could). One settles the meta of its vchannel among
	// the metas since the last name that does not extend it.
	var metas []lostSchema
	var nmetas int64
	var warnings []string
	_, err := inst.Walk(ctx, rev, []string{models.WALPrefix}, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindVChannelSchema:
			for i := len(metas) - 1; i >= 0 && metas[i].p == e.PChannel && strings.HasPrefix(metas[i].v, e.VChannel); i-- {
				if metas[i].v == e.VChannel {
					metas = slices.Delete(metas, i, i+1)
					break
				}
			}
			if err := models.CheckVChannelSchema(e.Value); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s does not decode: %v: the streaming node cannot read it (not repaired)", e.KV.Key, err))
			}
		case models.KindVChannelMeta:
			m, err := models.DecodeVChannelMeta(e.Value)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s does not decode: %v (not repaired)", e.KV.Key, err))
				return nil
			}
			nmetas++
			if m.State == models.VChannelNormal {
				metas = append(metas, lostSchema{key: e.Rel, p: e.PChannel, v: e.VChannel, meta: m})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var lost []lostSchema
	for _, l := range metas {
		switch {
		case l.meta.Schemas > 0:
			// As birdwatcher's command, a meta that holds its schemas
			// inline is left alone; Milvus's ListVChannel reads only the
			// schema keys, so it says so.
			warnings = append(warnings, fmt.Sprintf("%s holds %d schemas inline but has no schema key: Milvus's catalog reads only the keys under %s (not repaired)",
				inst.Layout.Meta(l.key), l.meta.Schemas, inst.Layout.Meta(models.VChannelSchemaPrefix(l.p, l.v))))
		default:
			lost = append(lost, l)
		}
	}
	d := &Decision{Subject: fmt.Sprintf("%s, each with a schema", framework.Plural(nmetas, "vchannel meta", "")), Warnings: warnings}
	if len(lost) == 0 {
		return d, nil
	}
	names := make([]string, len(lost))
	for i, l := range lost {
		names[i] = l.v
	}
	d.Subject = fmt.Sprintf("%s of %d without a schema: %s", framework.Plural(int64(len(lost)), "vchannel meta", ""), nmetas, strings.Join(names, ", "))
	d.Reminders = []string{"start Milvus: the streaming node reads the vchannel metas and their schemas when it opens each pchannel's WAL"}

	ids := make([]int64, len(lost))
	for i, l := range lost {
		ids[i] = l.meta.CollectionID
	}
	cs, err := readCollections(ctx, inst, rev, withID(ids...))
	if err != nil {
		return nil, err
	}
	d.Warnings = append(d.Warnings, cs.warnings...)
	g := framework.Gate{Name: collectionGate, OK: true, Detail: "rootcoord holds the collection of every vchannel repaired"}
	built := map[int64]*models.RootcoordCollection{}
	var missing []string
	for _, l := range lost {
		c, ok := cs.byID[l.meta.CollectionID]
		if !ok {
			missing = append(missing, fmt.Sprintf("collection %d of %s", l.meta.CollectionID, l.v))
			g.Keys = append(g.Keys, inst.Layout.Meta(l.key))
			continue
		}
		rc := built[c.info.ID]
		if rc == nil {
			if rc, err = readRootcoord(ctx, inst, rev, c); err != nil {
				return nil, err
			}
			built[c.info.ID] = rc
		}
		schema, err := rc.VChannelSchema()
		if err != nil {
			return nil, fmt.Errorf("repair wal-recovery-storage: collection %d (%s): %w", c.info.ID, c.kv.Key, err)
		}
		d.Changes = append(d.Changes, Create(inst.Layout.Meta(models.VChannelSchemaKey(l.p, l.v, 0)), schema, models.DescribeVChannelSchema(schema)))
	}
	if len(missing) > 0 {
		g.OK, g.Count = false, int64(len(missing))
		g.Detail = fmt.Sprintf("rootcoord holds no %s (no collection-info, or a tombstone): heron cannot build their schema", strings.Join(missing, ", "))
	}
	d.Gates = []framework.Gate{g}
	return d, nil
}
