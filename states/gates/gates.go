// Package gates are the safety checks every write command runs before it
// writes: metadata is rewritten only while no Milvus component can race it.
// Each gate has one name and one message, whichever command runs it.
package gates

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// MaxKeys is the most keys a gate lists.
const MaxKeys = 5

// Names of the shared gates.
const (
	LiveComponentName = instance.SessionGuardName
	InFlightName      = "no in-flight broadcast task"
)

// LiveComponents is the gate "no live Milvus component": no session key
// (other than the server-id counter) holds a lease at rev. A running
// component keeps its session alive and writes metadata at any time. Its
// detail names the longest lease left, so that the operator knows how long
// to wait after stopping Milvus.
func LiveComponents(ctx context.Context, inst *instance.Instance, rev int64) (framework.Gate, error) {
	var count int64
	var keys []string
	var leases []int64
	_, err := inst.Walk(ctx, rev, []string{models.SessionPrefix}, func(e instance.Entry) error {
		if e.Rel != models.SessionIDKey && e.Lease != 0 {
			count++
			leases = append(leases, e.Lease)
			if len(keys) < MaxKeys {
				keys = append(keys, fmt.Sprintf("%s (lease %s)", e.Rel, framework.LeaseID(e.Lease)))
			}
		}
		return nil
	})
	if err != nil {
		return framework.Gate{}, err
	}
	g := framework.Gate{Name: LiveComponentName, OK: count == 0, Count: count, Detail: "no session key has a lease"}
	if count == 0 {
		return g, nil
	}
	ttls, err := inst.LeaseTTLs(ctx, leases)
	if err != nil {
		return framework.Gate{}, err
	}
	var longest int64
	for _, t := range ttls {
		longest = max(longest, t)
	}
	left := fmt.Sprintf("longest lease left: %d s", longest)
	g.Keys = keys
	g.Detail = fmt.Sprintf("%s a lease (%s): stop Milvus (every component) and wait for the leases to expire",
		framework.Plural(count, "session key holds", "session keys hold"), left)
	g.Fix = append(StopSteps()[:1], framework.Step{Order: framework.StepLeases, Text: leaseStep + " (" + left + ")"})
	return g, nil
}

// leaseStep waits for the sessions of stopped components to expire.
const leaseStep = "run `show session` until no session is alive"

// StopSteps are the steps that stop Milvus and wait for its sessions to
// expire: part of the fix of every gate whose remedy runs Milvus first.
func StopSteps() []framework.Step {
	return []framework.Step{
		{Order: framework.StepStop, Text: "stop every Milvus component (on Kubernetes: scale the Milvus deployments and statefulsets to 0)"},
		{Order: framework.StepLeases, Text: leaseStep},
	}
}

// KnownPChannels refuses (a usage error, nothing read further) a --pchannel
// the instance does not have, naming the ones it has.
func KnownPChannels(command string, asked []string, known map[string]bool) error {
	var unknown []string
	for _, pc := range asked {
		if !known[pc] {
			unknown = append(unknown, pc)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return framework.Usagef("%s: unknown --pchannel %s: the instance has %s", command, framework.EchoValue(strings.Join(unknown, ", ")), strings.Join(models.NaturalKeys(known), ", "))
}

// InFlightBroadcasts is the gate "no in-flight broadcast task": no broadcast
// task is Pending, WaitAck or Replicated at rev (a half-applied DDL whose
// callbacks would write positions of the WAL it started on), and every task
// decodes (one that does not cannot be told apart from one in flight).
func InFlightBroadcasts(ctx context.Context, inst *instance.Instance, rev int64) (framework.Gate, error) {
	var inflight, undecodable int64
	var keys []string
	_, err := inst.Walk(ctx, rev, []string{models.BroadcastTaskPrefix}, func(e instance.Entry) error {
		t, err := models.DecodeBroadcastTask(e.Value)
		switch {
		case err != nil:
			undecodable++
			if len(keys) < MaxKeys {
				keys = append(keys, fmt.Sprintf("%s (does not decode: cannot tell whether it is in flight)", e.Rel))
			}
		case t.State.InFlight():
			inflight++
			if len(keys) < MaxKeys {
				keys = append(keys, fmt.Sprintf("%s (%s)", e.Rel, t.State))
			}
		}
		return nil
	})
	if err != nil {
		return framework.Gate{}, err
	}
	g := framework.Gate{Name: InFlightName, OK: inflight+undecodable == 0, Count: inflight + undecodable,
		Detail: "no broadcast task is Pending, WaitAck or Replicated"}
	if g.OK {
		return g, nil
	}
	g.Keys = keys
	var why []string
	if inflight > 0 {
		why = append(why, fmt.Sprintf("%s in flight (a half-applied DDL whose callbacks would write old-WAL ids back): start Milvus on the old WAL until they finish",
			framework.Plural(inflight, "broadcast task is", "broadcast tasks are")))
		g.Fix = append([]framework.Step{{Order: framework.StepOnOldWAL,
			Text: "start Milvus on its old WAL until the in-flight broadcast tasks finish (`show broadcast-task` shows none in flight)"}}, StopSteps()...)
	}
	if undecodable > 0 {
		why = append(why, fmt.Sprintf("%s could not be decoded, so heron cannot tell whether they are in flight: repair or remove them (show broadcast-task lists them)",
			framework.Plural(undecodable, "broadcast task", "")))
		g.Fix = append(g.Fix, framework.Step{Order: framework.StepOther, Text: "repair or remove the broadcast tasks that do not decode (`show broadcast-task` lists them)"})
	}
	g.Detail = strings.Join(why, "; ")
	return g, nil
}

// SplitStateCheck names, in a backup header (AfterRestore), the check that
// no pchannel is left in a split state once the backup is restored.
const SplitStateCheck = "split-state"

// SplitPChannels reads every position at rev (consume checkpoints first)
// through models' split rule: the pchannels whose positions name more than
// one WAL. Memory: one small map per pchannel.
func SplitPChannels(ctx context.Context, inst *instance.Instance, rev int64) ([]string, error) {
	return splitPChannels(ctx, inst, rev, models.CensusPrefixes, nil)
}

// SplitPChannelsWith is SplitPChannels with the segments' positions given
// (a tally of every segment key at rev, as a restore's scan and its
// proven verify know them): it reads at rev only the other positions, the
// consume checkpoints and the collections' and channels' positions,
// O(collections + vchannels) keys where the segments are O(segments).
func SplitPChannelsWith(ctx context.Context, inst *instance.Instance, rev int64, segments *models.PositionTally) ([]string, error) {
	others := slices.DeleteFunc(slices.Clone(models.CensusPrefixes), func(p string) bool { return p == models.SegmentPrefix })
	return splitPChannels(ctx, inst, rev, others, segments)
}

func splitPChannels(ctx context.Context, inst *instance.Instance, rev int64, prefixes []string, segments *models.PositionTally) ([]string, error) {
	census := models.NewWALCensus(nil)
	_, err := inst.Walk(ctx, rev, prefixes, func(e instance.Entry) error {
		census.AddValue(e.Key, e.Value)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if segments != nil {
		segments.AddTo(census)
	}
	return census.Split(), nil
}

// Write is the Build of a write command's phases on an instance: the kit
// runs them with the instance's gates (Instance) first, which no command
// can leave out.
func Write[P, C any](ph apply.Phases[*instance.Instance, P, C]) apply.Build[*instance.Instance, P] {
	return apply.Phased(Instance, ph)
}

// Instance runs the gates every write command runs, in the order plans
// show them: no etcd alarm, a streaming instance, no live component, no
// in-flight broadcast task (at rev).
func Instance(ctx context.Context, inst *instance.Instance, rev int64) ([]framework.Gate, error) {
	alarm, err := NoAlarm(ctx, inst)
	if err != nil {
		return nil, err
	}
	out := []framework.Gate{alarm}
	for _, check := range []func(context.Context, *instance.Instance, int64) (framework.Gate, error){Generation, LiveComponents, InFlightBroadcasts} {
		g, err := check(ctx, inst, rev)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}
