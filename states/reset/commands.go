// Package reset is the reset namespace: `reset checkpoint` moves a stopped
// Milvus 2.6/3.0 instance onto another message queue by rewriting every
// persisted MQ position in one run. The knowledge is in Planner, a pure
// per-key function over a context Build reads first; one scan in write order
// folds its decisions over one etcd revision into a bounded Summary and
// stages its ops: Build returns the complete plan, the same for the dry run
// and --run, and framework/apply's kit shows, asks, commits and verifies it.
// README.md beside this file documents the plan and run JSON.
package reset

import (
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
)

// Params are the flags of `reset checkpoint`.
type Params struct {
	framework.ParamBase `use:"reset checkpoint" desc:"rewrite every MQ position of a stopped Milvus for another WAL, clear an interrupted online switch (alter_wal_state) and set every mq.type override to the target (a plan unless --run)" example:"reset checkpoint --target-wal kafka --run"`
	TargetWAL           string   `name:"target-wal" required:"true" enum:"woodpecker,pulsar,kafka,rocksmq" desc:"the WAL to move to: woodpecker, pulsar, kafka or rocksmq (woodpecker: no log of the pchannels in scope may exist in its metadata)"`
	PChannels           []string `name:"pchannel" placeholder:"PCHANNEL" desc:"only this pchannel (default: every pchannel); refused unless every other pchannel is already on the target, as Milvus reads every position with one WAL"`
	AllowGrowing        bool     `name:"allow-growing" desc:"go on when Growing, Sealed or Flushing segments exist: their unflushed rows are LOST"`
	AllowNonEmptyTarget bool     `name:"allow-non-empty-target" desc:"go on when the target is not fresh (a warning): woodpecker's metadata holds logs of pchannels in scope, or (checked with --kafka-brokers / --pulsar-admin) their Kafka or Pulsar topics hold records"`
	WPMetaPrefix        string   `name:"wp-meta-prefix" placeholder:"PREFIX" desc:"woodpecker.meta.prefix as milvus.yaml sets it (default: an etcd config override, else woodpecker): woodpecker's metadata is under {rootPath}/PREFIX unless the legacy top-level woodpecker/ holds keys"`
	targetcheck.Flags
	Wide bool `name:"wide" desc:"list every pchannel in scope by its full name (the plan counts them otherwise: 64 pchannels (dml_0 ... dml_63)) and show example keys whole"`
	framework.WriteFlags
	framework.Output
}

// Validate checks the flags that the tags cannot.
func (p *Params) Validate() error {
	if _, err := msgid.Parse(p.TargetWAL); err != nil {
		return framework.Usagef("reset checkpoint: --target-wal: %v", err)
	}
	if err := p.Flags.Validate("reset checkpoint", p.TargetWAL); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, pc := range p.PChannels {
		if pc == "" || seen[pc] {
			return framework.Usagef("reset checkpoint: --pchannel %q is empty or given twice", pc)
		}
		seen[pc] = true
	}
	return nil
}

// Commands are the reset namespace's commands on a connected instance:
// each is params + plan (Build) + view (Summary), run by the kit.
func Commands(inst *instance.Instance) []*framework.Command {
	return []*framework.Command{apply.Command(inst, Build)}
}
