package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/show"
)

// recoveryStorage: every NORMAL vchannel meta holds a schema, in its
// collection_info or under its schema/ (show.ChannelState.Schemaless):
// Milvus 2.6.0's recovery storage panics at start without one ("vchannel
// has no schemas in recovery info", milvus#43538).
func recoveryStorage(reads []*Snapshot, o Options) Item {
	st := reads[len(reads)-1].State
	var fs []finding
	for _, key := range slices.SortedFunc(maps.Keys(st.Schemaless), models.NaturalCompare) {
		v := st.Schemaless[key]
		fs = append(fs, finding{Fail, o.meta(key), fmt.Sprintf("vchannel %s (collection %d) is NORMAL with no schema (none in its meta, no key under its schema/): the streaming node panics at start (\"vchannel has no schemas in recovery info\", milvus#43538)",
			v.VChannel, v.Collection)})
	}
	seen := fmt.Sprintf("%d vchannel meta(s), every NORMAL one with a schema", len(st.Registered))
	var cmds []string
	if len(fs) > 0 {
		cmds = []string{show.RecoveryStorageRepair}
	}
	return withCommands(judge("recovery-storage", seen, "with Milvus stopped, the command below gives each such vchannel its collection's schema back", fs), cmds)
}

// replicatePChannels: every replicating pchannel's target cluster is in
// the replicate configuration; one that is not is stale (a cluster the
// configuration dropped), which birdwatcher's `remove replicate-pchannel`
// deletes.
func replicatePChannels(reads []*Snapshot, o Options) Item {
	rp := reads[len(reads)-1].Replicate
	var fs []finding
	var cmds []string
	if rp.ConfigError != "" {
		fs = append(fs, finding{Warn, o.meta(models.ReplicateConfiguration), "the replicate configuration does not decode (" + rp.ConfigError + "): stale replicating pchannels cannot be told"})
	}
	for _, r := range rp.PChannels {
		switch {
		case r.Meta == nil:
			fs = append(fs, finding{Warn, o.meta(r.Key), "replicating pchannel does not decode: " + r.Error})
		case strings.TrimSpace(r.Meta.TargetCluster.ID) == "" || strings.TrimSpace(r.Meta.Source) == "":
			// remove replicate-pchannel matches both exactly and refuses an empty one
			fs = append(fs, finding{Warn, o.meta(r.Key), fmt.Sprintf("replicating pchannel names no target cluster (%q) or no source pchannel (%q): heron cannot tell whether it is stale",
				r.Meta.TargetCluster.ID, r.Meta.Source)})
		case rp.ConfigError == "" && !rp.Config.HasCluster(r.Meta.TargetCluster.ID):
			fs = append(fs, finding{Fail, o.meta(r.Key), fmt.Sprintf("replicating pchannel %s to cluster %s is stale: cluster %s is not in the replicate configuration",
				r.Meta.Source, r.Meta.TargetCluster.ID, r.Meta.TargetCluster.ID)})
			cmds = append(cmds, show.ReplicatePChannelRemove(r.Meta.TargetCluster.ID, r.Meta.Source))
		}
	}
	seen := fmt.Sprintf("%d replicating pchannel(s), each to a cluster of the replicate configuration", len(rp.PChannels))
	if rp.Config == nil && len(rp.PChannels) == 0 {
		seen = "no replication configured"
	}
	return withCommands(judge("replicate-pchannels", seen, "a replicating pchannel to a cluster the configuration dropped is stale: with Milvus stopped, the commands below delete it (see `show replicate`)", fs), cmds)
}
