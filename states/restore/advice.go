package restore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// movedOnAdvice is what to do when a restore forced onto an instance that
// moved on (--force-moved-on) leaves the split state its gate warned of:
// the keys created since the backed-up write stay, naming the WAL that
// write moved to, while the restored keys name the WAL of the backup. It
// names those keys and their WAL, and the ways out with their cost: a
// scoped reset of the split pchannels to the restored WAL, or deleting the
// created keys. "" when no key was created since (another write split it).
func (pl *Plan) movedOnAdvice(ctx context.Context, rev int64, split []string) string {
	created := pl.MovedOn.Created
	if len(created) == 0 {
		return ""
	}
	kvs, err := pl.inst.GetMany(ctx, created, rev)
	if err != nil {
		return ""
	}
	named := map[string]bool{}
	for _, kv := range kvs {
		if v, err := models.ViewSegment(kv.Value); err == nil {
			for _, p := range []models.PositionView{v.Start, v.DML} {
				if p.Present && p.WAL != 0 {
					named[msgid.Name(p.WAL)] = true
				}
			}
		}
	}
	cpKeys := make([]string, len(split))
	for i, p := range split {
		cpKeys[i] = pl.inst.Layout.Meta(models.ConsumeCheckpointKey(p))
	}
	restored := map[string]bool{}
	if cps, err := pl.inst.GetMany(ctx, cpKeys, rev); err == nil {
		for _, kv := range cps {
			if cp, err := models.DecodeWALCheckpoint(kv.Value); err == nil && cp.HasMessageID {
				restored[msgid.Name(cp.WAL)] = true
			}
		}
	}
	createdWAL := strings.Join(sortedKeys(named), " and ")
	if createdWAL == "" {
		createdWAL = "the WAL the backed-up write moved to"
	}
	var b strings.Builder
	more := ""
	if len(created) == maxMovedOnListed {
		more = fmt.Sprintf(" (the first %d)", len(created))
	}
	fmt.Fprintf(&b, "the restored keys name the backup's WAL, but %s created since the backup%s still name %s: %s. ",
		framework.Plural(len(created), "key", ""), more, createdWAL, strings.Join(created, ", "))
	b.WriteString("Choose: ")
	if wals := sortedKeys(restored); len(wals) == 1 {
		scope := ""
		for _, p := range split {
			scope += " --pchannel " + p
		}
		fmt.Fprintf(&b, "(1) move every position of %s onto %s with a scoped reset: `reset checkpoint --target-wal %s%s --run` "+
			"(its dry run counts the keys it rewrites; the rewritten positions point to %s's earliest message, so Milvus reads those pchannels from there, and what only %s holds is not read); ",
			strings.Join(split, ", "), wals[0], wals[0], scope, wals[0], createdWAL)
	} else {
		b.WriteString("(1) move every position of the split pchannels onto one WAL with a scoped reset: reset checkpoint --target-wal WAL --pchannel PCHANNEL --run; ")
	}
	fmt.Fprintf(&b, "or (2) delete the %s created since (etcdctl del KEY; heron deletes no key alone): the rows of those segments are lost to Milvus, their data files stay in object storage unreferenced",
		framework.Plural(len(created), "key", ""))
	return b.String()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
