package reset

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
)

// ruleName is the reset's rule (apply.RegisterRule): the new value of every
// staged key derived again from its old one with the same planner, so that
// the staged plan holds old values only and the write pass reads no etcd.
const ruleName = "reset-checkpoint"

// ruleParams are what the rule needs besides the header: the planner's
// target, scope and frozen context, and the meta path.
type ruleParams struct {
	Target         string                      `json:"target"`
	PChannels      []string                    `json:"pchannels,omitempty"`
	MetaPath       string                      `json:"meta_path"`
	CheckpointWAL  map[string]commonpb.WALName `json:"checkpoint_wal,omitempty"`
	Collections    map[int64]bool              `json:"collections,omitempty"`
	KafkaBeginning bool                        `json:"kafka_beginning,omitempty"`
}

func init() { apply.RegisterCommandRule("reset checkpoint", ruleName, rule) }

// rule rebuilds the planner a backup header names and decides each entry
// with it.
func rule(h apply.Header) (func(apply.Entry) (apply.Op, error), error) {
	var rp ruleParams
	if err := json.Unmarshal(h.RuleParams, &rp); err != nil {
		return nil, fmt.Errorf("rule %s: %w", ruleName, err)
	}
	layout := models.NewLayout(h.RootPath, rp.MetaPath)
	planner, err := NewPlanner(rp.Target, rp.PChannels, Context{CheckpointWAL: rp.CheckpointWAL, Collections: rp.Collections, KafkaBeginning: rp.KafkaBeginning})
	if err != nil {
		return nil, fmt.Errorf("rule %s: %w", ruleName, err)
	}
	created := layout.Root(models.MQTypeConfigKey)
	return func(e apply.Entry) (apply.Op, error) {
		if e.Absent && e.Key != created {
			return apply.Op{}, errors.New("the reset creates no key but " + created)
		}
		var d Decision
		if isMQTypeKey(layout, e.Key) {
			d = planner.DecideConfig(e.Value)
		} else {
			rel, ok := layout.Rel(e.Key)
			if !ok {
				return apply.Op{}, fmt.Errorf("not under the meta root %s", layout.MetaRoot())
			}
			var err error
			if d, err = planner.Decide(models.Classify(rel), e.Value); err != nil {
				return apply.Op{}, err
			}
		}
		if d.Action == Keep {
			return apply.Op{}, errors.New("the plan keeps this key now")
		}
		if e.Absent {
			return op(e.Key, 0, nil, d), nil
		}
		return op(e.Key, e.ModRevision, e.Value, d), nil
	}, nil
}
