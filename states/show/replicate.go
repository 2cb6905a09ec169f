package show

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// ReplicateParam is `show replicate`: birdwatcher's replication view.
type ReplicateParam struct {
	framework.ParamBase `use:"show replicate" desc:"replication (Milvus CDC): the replicate configuration, the replicating pchannels and the replicate fields of the consume checkpoints" example:"show replicate --format json" alias:"replication"`
	framework.Output
}

// ReplicateCheckpointRow is the replicate fields of one consume checkpoint.
type ReplicateCheckpointRow struct {
	PChannel string `json:"pchannel"`
	// Config: the checkpoint carries a replicate_config (this instance is a
	// replication source).
	Config     bool                      `json:"replicate_config"`
	Checkpoint *models.ReplicatePosition `json:"replicate_checkpoint,omitempty"`
	Error      string                    `json:"error,omitempty"`
}

// ReplicatingRow is one replicating-pchannel key.
type ReplicatingRow struct {
	Key string `json:"key"`
	*models.ReplicatingPChannelMeta
	Error string `json:"error,omitempty"`
}

// ReplicateResult is the output of `show replicate`.
type ReplicateResult struct {
	Revision      int64                    `json:"revision"`
	Configuration *models.ReplicateConfig  `json:"replicate_configuration"`
	ConfigError   string                   `json:"replicate_configuration_error,omitempty"`
	Replicating   []ReplicatingRow         `json:"replicating_pchannels"`
	Checkpoints   []ReplicateCheckpointRow `json:"consume_checkpoints"`
}

func runReplicate(ctx context.Context, inst *instance.Instance, _ *ReplicateParam, _ framework.IO) (framework.Result, error) {
	res := &ReplicateResult{Replicating: []ReplicatingRow{}, Checkpoints: []ReplicateCheckpointRow{}}
	rev, err := inst.Walk(ctx, 0, []string{models.ReplicateConfiguration, models.ReplicatingPChannel, models.WALPrefix}, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindReplicateConfiguration:
			c, err := models.DecodeReplicateConfig(e.Value)
			if err != nil {
				res.ConfigError = fmt.Sprintf("%s: %v", e.Rel, err)
				return nil
			}
			res.Configuration = c
		case models.KindReplicatingPChannel:
			m, err := models.DecodeReplicatingPChannel(e.Value)
			row := ReplicatingRow{Key: e.Rel, ReplicatingPChannelMeta: m}
			if err != nil {
				row.Error = err.Error()
			}
			res.Replicating = append(res.Replicating, row)
		case models.KindConsumeCheckpoint:
			cp, err := models.DecodeWALCheckpoint(e.Value)
			if err != nil {
				res.Checkpoints = append(res.Checkpoints, ReplicateCheckpointRow{PChannel: e.PChannel, Error: err.Error()})
				return nil
			}
			if !cp.HasReplicateConfig && !cp.HasReplicateCheckpoint {
				return nil
			}
			row := ReplicateCheckpointRow{PChannel: e.PChannel, Config: cp.HasReplicateConfig}
			if row.Checkpoint, err = models.ReplicateCheckpointOf(e.Value); err != nil {
				row.Error = err.Error()
			}
			res.Checkpoints = append(res.Checkpoints, row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = rev
	return res, nil
}

func (r *ReplicateResult) JSON() any { return r }

// Table writes three blocks, one line an item and each key or channel
// whole: they fit 80 columns without a table to cut.
func (r *ReplicateResult) Table(w io.Writer) error {
	e := framework.EscapeText
	fmt.Fprintf(w, "REPLICATE CONFIGURATION (%s)\n", models.ReplicateConfiguration)
	switch c := r.Configuration; {
	case r.ConfigError != "":
		fmt.Fprintf(w, "  does not decode: %s\n", e(r.ConfigError))
	case c == nil:
		fmt.Fprintln(w, "  none: this instance is in no replication")
	default:
		for _, cl := range c.Clusters {
			token := "no token"
			if cl.HasToken {
				token = "token set (not shown)"
			}
			fmt.Fprintf(w, "  cluster %s: %s, %s, %s\n", e(cl.ID), e(cl.URI), token, framework.Plural(len(cl.PChannels), "pchannel", ""))
		}
		for _, t := range c.Topology {
			fmt.Fprintf(w, "  %s replicates to %s\n", e(t.Source), e(t.Target))
		}
		if c.ForcePromoted {
			fmt.Fprintln(w, "  force-promoted")
		}
	}
	fmt.Fprintf(w, "\nREPLICATING PCHANNELS (%s)\n", models.ReplicatingPChannel)
	if len(r.Replicating) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, p := range r.Replicating {
		if p.Error != "" || p.ReplicatingPChannelMeta == nil {
			fmt.Fprintf(w, "  %s: does not decode: %s\n", e(p.Key), e(p.Error))
			continue
		}
		fmt.Fprintf(w, "  %s\n    to %s on cluster %s\n", e(p.Source), e(p.Target), e(p.TargetCluster.ID))
		if p.Initialized != nil {
			fmt.Fprintf(w, "    initialized at %s\n", replicatePositionText(p.Initialized))
		}
	}
	fmt.Fprintln(w, "\nCONSUME CHECKPOINTS with replicate fields (heron never rewrites them)")
	if len(r.Checkpoints) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, c := range r.Checkpoints {
		var parts []string
		if c.Config {
			parts = append(parts, "replicate_config (a replication source)")
		}
		if c.Checkpoint != nil {
			parts = append(parts, "replicate_checkpoint "+replicatePositionText(c.Checkpoint))
		}
		if c.Error != "" {
			parts = append(parts, "does not decode: "+c.Error)
		}
		fmt.Fprintf(w, "  %s: %s\n", e(c.PChannel), e(strings.Join(parts, "; ")))
	}
	return nil
}

func replicatePositionText(p *models.ReplicatePosition) string {
	t := tsoTime(p.TimeTick)
	if t == "" {
		t = "-"
	}
	return fmt.Sprintf("cluster %s pchannel %s, %s %s, time tick %s", orDash(p.Cluster), orDash(p.PChannel), orDash(p.WAL), orDash(p.MessageID), t)
}

func (r *ReplicateResult) Lines(w io.Writer) error {
	if c := r.Configuration; c != nil {
		for _, cl := range c.Clusters {
			if err := framework.WriteLine(w, "kind", "cluster", "cluster_id", cl.ID, "uri", cl.URI, "token_set", cl.HasToken, "pchannels", strings.Join(cl.PChannels, ",")); err != nil {
				return err
			}
		}
	}
	for _, p := range r.Replicating {
		if p.ReplicatingPChannelMeta == nil {
			continue
		}
		if err := framework.WriteLine(w, "kind", "replicating", "key", p.Key, "source", p.Source, "target", p.Target, "target_cluster", p.TargetCluster.ID); err != nil {
			return err
		}
	}
	for _, c := range r.Checkpoints {
		cluster := ""
		if c.Checkpoint != nil {
			cluster = c.Checkpoint.Cluster
		}
		if err := framework.WriteLine(w, "kind", "checkpoint", "pchannel", c.PChannel, "replicate_config", c.Config, "replicate_cluster", cluster); err != nil {
			return err
		}
	}
	return nil
}
