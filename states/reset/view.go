package reset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/woodpecker"
)

// view is the plan shown: the summary of what the scan decided (a pure
// function of the context, the scan's counts and the gates).
func (pl *Plan) view(gs []Gate) *apply.Plan {
	a := pl.acc
	pl.Gates = gs
	pl.Refused = framework.Refused(gs)
	a.finish(&pl.Summary, pl.inst.Layout)
	pl.Warnings = append(append(append([]string{}, pl.growing...), pl.notes...), pl.warnings(a)...)
	if pl.EtcdSpace != nil {
		pl.EtcdSpace.WriteBytes = pl.writeBytes
		if w := pl.EtcdSpace.Warning(); w != "" {
			pl.Warnings = append(pl.Warnings, w)
		}
	}
	return &apply.Plan{Replan: &apply.Replan{Unsettled: pl.unsettled, Same: pl.sameAt}, Command: "reset checkpoint", Title: "reset checkpoint to " + pl.TargetWAL,
		View: &pl.Summary, Keys: pl.TotalKeys, Root: pl.inst.Layout.RootPath, SplitState: len(pl.SplitPChannels) > 0,
		Put: "rewritten", Nothing: "nothing to write (every position in scope is already at the target)", Reminders: pl.runReminders}
}

// header is the backup's header: the rule that derives every new value
// again from the old one (ruleName), the order a restore writes the keys
// back in (consume checkpoints and mq.type overrides first, which decide the
// WAL Milvus opens), and the check after a restore (no split state).
func (pl *Plan) header() (apply.Header, string) {
	layout := pl.inst.Layout
	var scope []string
	if !pl.planner.Whole {
		scope = pl.Scope.PChannels
	}
	params, _ := json.Marshal(ruleParams{Target: pl.TargetWAL, PChannels: pl.params.PChannels, MetaPath: layout.MetaPath,
		CheckpointWAL: pl.planner.checkpointWAL, Collections: pl.planner.collections, KafkaBeginning: pl.planner.kafkaBeginning})
	return apply.Header{Command: pl.commandLine(), Endpoints: pl.inst.Endpoints, RootPath: layout.RootPath,
		MetaRoot: layout.MetaRoot(), Revision: pl.Revision, Target: pl.TargetWAL, Scope: scope,
		Prefixes: []string{layout.MetaRoot(), layout.Root("config/")},
		Rule:     ruleName, RuleParams: params,
		RestoreOrder: [][]int{{phaseConsumeCP, phaseMQType}, {phaseSegment, phaseChannelCP, phaseCollection, phaseQueryTarget, phaseSegmentAssign}},
		AfterRestore: gates.SplitStateCheck}, "reset-" + pl.TargetWAL
}

func (pl *Plan) commandLine() string {
	var b strings.Builder
	b.WriteString("reset checkpoint --target-wal " + pl.TargetWAL)
	for _, pc := range pl.params.PChannels {
		b.WriteString(" --pchannel " + pc)
	}
	if pl.params.AllowGrowing {
		b.WriteString(" --allow-growing")
	}
	if pl.params.AllowNonEmptyTarget {
		b.WriteString(" --allow-non-empty-target")
	}
	if pl.params.Flags.MilvusVersion != "" {
		b.WriteString(" --milvus-version " + pl.params.Flags.MilvusVersion)
	}
	b.WriteString(" --run")
	return b.String()
}

// listKeys joins at most maxGateKeys keys in natural order (dml_3 before
// dml_19), saying how many more there are.
func listKeys(keys []string) string {
	keys = slices.SortedFunc(slices.Values(keys), models.NaturalCompare)
	if len(keys) <= maxGateKeys {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:maxGateKeys], ", "), len(keys)-maxGateKeys)
}

func joinInts(ns []int32) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

func notTouched(l models.Layout) []string {
	return []string{
		models.PChannelPrefix + " (the pchannel list: no MQ id)",
		models.WALPrefix + "{pchannel}/vchannel/ and the vchannel schema timeline (must survive)",
		models.ChannelRemovalPrefix + " markers (datacoord's GC guard; nothing rebuilds them)",
		models.ChannelWatchPrefix + " (channel watch info)",
		"replication checkpoints: replicate_checkpoint of consume checkpoints, " + models.ReplicatingPChannel + ", " + models.ReplicateConfiguration,
		models.BroadcastTaskPrefix + " tombstones",
		"dropped-channel markers (channel-cp with no id and timestamp MaxUint64) and collection tombstones",
		l.Root("kv/") + " (ID and TSO allocators)",
	}
}

func reminders(p *Planner, wp *woodpecker.Effective) []string {
	fresh := "the target WAL must be fresh: empty topics"
	if wp != nil {
		fresh = "the target WAL must be fresh: no log of the pchannels in woodpecker's metadata under the effective prefix " + wp.Describe() +
			" (reset wal --target woodpecker empties them); a woodpecker.meta.prefix set in milvus.yaml is not visible to heron: pass --wp-meta-prefix"
	}
	r := []string{
		fmt.Sprintf("set mq.type to %s in milvus.yaml (or your deployment's config) before starting Milvus", p.WALName),
		fresh,
	}
	switch p.WAL {
	case commonpb.WALName_RocksMQ:
		r = append(r, "rocksmq as a target stalls on Milvus 2.6.23 and 3.0.0 (\"Rmq server is nil\": their rocksmq WAL builder needs the server that only starts when rocksmq was the WAL from process start), and master refuses rocksmq outside standalone mode; the metadata written is correct either way")
	case commonpb.WALName_WoodPecker:
		r = append(r, "woodpecker.storage.type local keeps each streamingnode's data on its own disk, and late 2.6 builds panic on it in cluster mode: use minio (Milvus's default) or service in a cluster")
	}
	return r
}
