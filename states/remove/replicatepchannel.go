// Package remove is the `remove` namespace: birdwatcher's `remove
// replicate-pchannel` as a write command on the repair kit (states/repair):
// a plan unless --run, a backup, the session guard and the verify.
package remove

import (
	"context"
	"fmt"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/repair"
	"github.com/heron-shell/heron/states/show"
)

// Commands are the removes on a connected instance.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{apply.Command(inst, ReplicatePChannelBuild)}
}

// ReplicatePChannelParams are the flags of `remove replicate-pchannel`
// (birdwatcher's --targetCluster and --sourceChannel are aliases).
type ReplicatePChannelParams struct {
	framework.ParamBase `use:"remove replicate-pchannel" desc:"delete a stale replicating pchannel: one whose target cluster is no longer in the replicate configuration (a plan unless --run)" example:"remove replicate-pchannel --target-cluster standby --source-channel by-dev-rootcoord-dml_0 --run"`
	TargetCluster       string `name:"target-cluster" alias:"targetCluster" required:"true" placeholder:"CLUSTER" desc:"the target cluster id of the entry (show replicate lists them)"`
	SourceChannel       string `name:"source-channel" alias:"sourceChannel" required:"true" placeholder:"PCHANNEL" desc:"the source pchannel of the entry, this instance's"`
	framework.WriteFlags
	framework.Output
}

// Validate refuses empty values: birdwatcher matched them as substrings of
// every entry.
func (p *ReplicatePChannelParams) Validate() error {
	if strings.TrimSpace(p.TargetCluster) == "" {
		return framework.Usagef("remove replicate-pchannel: --target-cluster is empty: want the entry's cluster id (show replicate lists them)")
	}
	if strings.TrimSpace(p.SourceChannel) == "" {
		return framework.Usagef("remove replicate-pchannel: --source-channel is empty: want the entry's source pchannel (show replicate lists them)")
	}
	return nil
}

// ReplicatePChannelBuild is `remove replicate-pchannel`.
var ReplicatePChannelBuild = repair.Build(repair.Repair[ReplicatePChannelParams]{
	Command: "remove replicate-pchannel", Cache: models.ReplicatePChannelCache, Decide: decideReplicatePChannel, Pending: pending,
	// The line `check` names for a stale entry (one spelling).
	Line: func(p *ReplicatePChannelParams) string {
		return show.ReplicatePChannelRemove(p.TargetCluster, p.SourceChannel)
	},
})

// configGate is the gate of every remove: the entry's cluster is not in the
// replicate configuration (Milvus's streaming coordinator replicates to
// it, and removes its entries itself when the configuration drops it).
const configGate = "target cluster not in the replicate configuration"

// maxNamed bounds the entries a no-match error names.
const maxNamed = 10

// found is what the replicate keys hold at a revision for the flags.
type found struct {
	cfg            *models.ReplicateConfig
	cfgErr         error
	matches        []instance.KV
	metas          []*models.ReplicatingPChannelMeta
	others, broken []string
}

// find reads the configuration and the replicating pchannels at rev and
// matches the entries on what their value says, not on their key: a key
// is {cluster}-{pchannel}, and a cluster id may hold a '-'.
func find(ctx context.Context, inst *instance.Instance, p *ReplicatePChannelParams, rev int64) (*found, error) {
	f := &found{}
	_, err := inst.Walk(ctx, rev, []string{models.ReplicateConfiguration, models.ReplicatingPChannel}, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindReplicateConfiguration:
			f.cfg, f.cfgErr = models.DecodeReplicateConfig(e.Value)
		case models.KindReplicatingPChannel:
			m, err := models.DecodeReplicatingPChannel(e.Value)
			switch {
			case err != nil:
				f.broken = append(f.broken, e.Rel)
			case m.TargetCluster.ID == p.TargetCluster && m.Source == p.SourceChannel:
				f.matches, f.metas = append(f.matches, e.KV), append(f.metas, m)
			default:
				f.others = append(f.others, fmt.Sprintf("%s to cluster %s", m.Source, m.TargetCluster.ID))
			}
		}
		return nil
	})
	return f, err
}

// pending is what a plan at rev would delete: the verify's re-plan, where
// no match (the entry removed) is no usage error.
func pending(ctx context.Context, inst *instance.Instance, p *ReplicatePChannelParams, rev int64) (int64, error) {
	f, err := find(ctx, inst, p, rev)
	if err != nil {
		return 0, err
	}
	return int64(len(f.matches)), nil
}

func decideReplicatePChannel(ctx context.Context, inst *instance.Instance, p *ReplicatePChannelParams, rev int64) (*repair.Decision, error) {
	f, err := find(ctx, inst, p, rev)
	if err != nil {
		return nil, err
	}
	if len(f.matches) == 0 {
		return nil, framework.Usagef("remove replicate-pchannel: no replicating pchannel of --source-channel %s to --target-cluster %s (%s); %s (show replicate lists them)",
			p.SourceChannel, p.TargetCluster, inst.Layout.Meta(models.ReplicatingPChannelKey(p.TargetCluster, p.SourceChannel)), existing(f.others, f.broken))
	}
	d := &repair.Decision{Subject: fmt.Sprintf("replicating pchannel %s to cluster %s", p.SourceChannel, p.TargetCluster),
		Reminders: []string{"start Milvus: the streaming coordinator loads the replicating pchannels as written here"}}
	if len(f.matches) > 1 {
		d.Subject = fmt.Sprintf("%d replicating pchannel entries of %s to cluster %s", len(f.matches), p.SourceChannel, p.TargetCluster)
	}
	for i, kv := range f.matches {
		d.Changes = append(d.Changes, repair.Delete(kv, describe(f.metas[i])))
	}
	cfgKey := inst.Layout.Meta(models.ReplicateConfiguration)
	g := framework.Gate{Name: configGate, OK: true, Detail: fmt.Sprintf("cluster %s is not in the replicate configuration (%s)", p.TargetCluster, cfgKey)}
	switch {
	case f.cfgErr != nil:
		g.OK, g.Detail = false, fmt.Sprintf("the replicate configuration (%s) does not decode (%v): heron cannot tell whether cluster %s is in it", cfgKey, f.cfgErr, p.TargetCluster)
		g.Keys = []string{cfgKey}
	case f.cfg == nil:
		g.Detail = fmt.Sprintf("no replicate configuration is stored (%s): no cluster is in it", cfgKey)
	case f.cfg.HasCluster(p.TargetCluster):
		g.OK, g.Detail = false, fmt.Sprintf("cluster %s is in the replicate configuration (%s): this instance replicates to it; change the configuration through Milvus (UpdateReplicateConfiguration), which removes the entries of a cluster it drops",
			p.TargetCluster, cfgKey)
		g.Keys = []string{cfgKey}
	}
	d.Gates = []framework.Gate{g}
	return d, nil
}

// existing names the entries there are, for a flag that matches none.
func existing(others, broken []string) string {
	if len(others) == 0 && len(broken) == 0 {
		return "there is none"
	}
	s := "there are: " + strings.Join(others[:min(len(others), maxNamed)], ", ")
	if len(others) > maxNamed {
		s += fmt.Sprintf(" and %d more", len(others)-maxNamed)
	}
	if len(others) == 0 {
		s = "none decodes"
	}
	if len(broken) > 0 {
		s += fmt.Sprintf("; %s does not decode: %s", framework.Plural(int64(len(broken)), "key", ""), strings.Join(broken[:min(len(broken), maxNamed)], ", "))
	}
	return s
}

func describe(m *models.ReplicatingPChannelMeta) string {
	s := fmt.Sprintf("%s replicated to %s on cluster %s", m.Source, m.Target, m.TargetCluster.ID)
	if m.Initialized != nil {
		s += fmt.Sprintf(", initialized at time tick %d", m.Initialized.TimeTick)
	}
	return s
}
