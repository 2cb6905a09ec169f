// Package show holds the read-only `show` commands of a connected instance:
// checkpoint, session, collections, segment, broadcast-task, etcd-kv,
// database, partition, channel-watch, replica, index, config-etcd,
// wal-distribution and vchannel-health. Each reads
// etcd through instance.Instance at one revision, a page at a time, and
// returns a result that renders as a table, JSON or one line per record;
// warnings go to the Stderr of the framework.IO the shell passes.
package show

import (
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/states/instance"
)

// Commands returns the show commands bound to inst.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{
		framework.Read(inst, runCheckpoint),
		framework.Read(inst, runSession),
		framework.Read(inst, runCollections),
		framework.Read(inst, runSegment),
		framework.Read(inst, runBroadcast),
		framework.Read(inst, runEtcdKV),
		framework.Read(inst, runDatabase),
		framework.Read(inst, runPartition),
		framework.Read(inst, runChannelWatch),
		framework.Read(inst, runReplica),
		framework.Read(inst, runIndex),
		framework.Read(inst, runConfigEtcd),
		framework.Read(inst, runWALDistribution),
		framework.Read(inst, runVChannelHealth),
		framework.Read(inst, runReplicate),
	}
}
