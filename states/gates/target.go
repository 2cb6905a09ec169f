package gates

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/targetcheck"
)

// TargetName is the gate on a Kafka or Pulsar target's topics.
const TargetName = "target topics are fresh"

// Target is what the target check found for a write command: its gate,
// the warnings it raises, and the reminder that says what was (or was not)
// checked.
type Target struct {
	Gate     framework.Gate
	Topics   []targetcheck.Topic
	Warnings []string
	Reminder string
}

// TargetTopics checks the topics of pchannels on the target the flags name
// (Kafka or Pulsar); checked is false when no check flag was given. The
// Pulsar tenant and namespace default to the instance's etcd config
// overrides at rev, else public/default. An unreachable target is an error.
func TargetTopics(ctx context.Context, inst *instance.Instance, rev int64, f *targetcheck.Flags, pchannels []string) (wal string, topics []targetcheck.Topic, checked bool, err error) {
	switch {
	case f.Kafka():
		c, err := f.KafkaConfig()
		if err != nil {
			return "kafka", nil, false, err
		}
		topics, err = targetcheck.CheckKafka(ctx, c, pchannels)
		return "kafka", topics, err == nil, err
	case f.Pulsar():
		tenant, namespace, err := PulsarNames(ctx, inst, rev, f)
		if err != nil {
			return "pulsar", nil, false, err
		}
		c, err := f.PulsarConfig(tenant, namespace)
		if err != nil {
			return "pulsar", nil, false, err
		}
		topics, err = targetcheck.CheckPulsar(ctx, c, pchannels)
		if err != nil {
			return "pulsar", nil, false, err
		}
		err = checkPublicDefault(ctx, inst, rev, f, c, topics)
		return "pulsar", topics, err == nil, err
	}
	return "", nil, false, nil
}

// checkPublicDefault also checks each pchannel's topic under public/default
// when the topics are looked for elsewhere and a release of the instance
// writes there whatever pulsar.tenant/namespace say (2.6.0-2.6.8,
// milvus-io/milvus#46748), or the release is unknown: the tenant that
// milvus.yaml names would pass as absent while Milvus replays public/default.
func checkPublicDefault(ctx context.Context, inst *instance.Instance, rev int64, f *targetcheck.Flags, c targetcheck.PulsarConfig, topics []targetcheck.Topic) error {
	if c.Tenant == models.DefaultPulsarTenant && c.Namespace == models.DefaultPulsarNamespace {
		return nil
	}
	versions, err := InstanceVersions(ctx, inst, rev, f.MilvusVersion)
	if err != nil || !versions.PulsarIgnoresNamespace() {
		return err
	}
	why := fmt.Sprintf("Milvus 2.6.0-2.6.8 write every topic to %s/%s whatever pulsar.tenant/namespace say (milvus-io/milvus#46748); the instance's release: %s, so heron checked %s/%s as well",
		models.DefaultPulsarTenant, models.DefaultPulsarNamespace, versions.Describe(), models.DefaultPulsarTenant, models.DefaultPulsarNamespace)
	c.Tenant, c.Namespace = models.DefaultPulsarTenant, models.DefaultPulsarNamespace
	pchannels := make([]string, len(topics))
	for i, t := range topics {
		pchannels[i] = t.PChannel
	}
	twins, err := targetcheck.CheckPulsar(ctx, c, pchannels)
	if err != nil {
		return err
	}
	for i := range topics {
		topics[i].PublicDefault, topics[i].Why = &twins[i], why
	}
	return nil
}

// PulsarNames are the tenant and namespace of the instance's Pulsar topics:
// the flags, else the effective pulsar.tenant / pulsar.namespace override
// under {rootPath}/config/ (by Milvus's formatKey rule), else public/default.
func PulsarNames(ctx context.Context, inst *instance.Instance, rev int64, f *targetcheck.Flags) (tenant, namespace string, err error) {
	tenant, namespace = f.PulsarTenant, f.PulsarNamespace
	if tenant != "" && namespace != "" {
		return tenant, namespace, nil
	}
	values := map[string]string{}
	var keys []string
	_, err = inst.Scan(ctx, inst.Layout.Root(models.ConfigPrefix), rev, func(page []instance.KV) error {
		for _, kv := range page {
			rel, ok := strings.CutPrefix(kv.Key, inst.Layout.Root(""))
			if !ok {
				continue
			}
			keys = append(keys, rel)
			values[rel] = string(kv.Value)
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	pick := func(given, formatted, def string) string {
		if given != "" {
			return given
		}
		if k := models.EffectiveConfigKey(keys, formatted); k != "" && strings.TrimSpace(values[k]) != "" {
			return strings.TrimSpace(values[k])
		}
		return def
	}
	return pick(tenant, models.PulsarTenantFormatted, models.DefaultPulsarTenant),
		pick(namespace, models.PulsarNamespaceFormatted, models.DefaultPulsarNamespace), nil
}

// TargetGate checks the Kafka or Pulsar target (wal) of a write command for
// the pchannels in scope. Without a check flag the gate passes as "not
// checked" and the reminder names the topics and the flag that checks them;
// topics with records refuse unless allow (--allow-non-empty-target), which
// turns the refusal into a warning.
func TargetGate(ctx context.Context, inst *instance.Instance, rev int64, wal string, f *targetcheck.Flags, pchannels []string, allow bool) (Target, error) {
	kind, flag := "Kafka", "--kafka-brokers HOST:PORT[,...]"
	if wal == "pulsar" {
		kind, flag = "Pulsar", "--pulsar-admin URL"
	}
	_, topics, checked, err := TargetTopics(ctx, inst, rev, f, pchannels)
	if err != nil {
		return Target{}, err
	}
	t := Target{Gate: framework.Gate{Name: TargetName, OK: true}, Topics: topics}
	if !checked {
		names := topicNames(ctx, inst, rev, wal, f, pchannels)
		t.Gate.Detail = fmt.Sprintf("not checked: pass %s to check the %s topics", flag, kind)
		t.Reminder = fmt.Sprintf("the %s target must be fresh and heron did not check it: each of the topics %s must be absent or empty (no record to replay from the earliest position); check them with %s",
			kind, listAll(names), flag)
		if wal == "pulsar" && len(names) > 0 && !strings.HasPrefix(names[0], models.PulsarTopic(models.DefaultPulsarTenant, models.DefaultPulsarNamespace, "")) {
			versions, err := InstanceVersions(ctx, inst, rev, f.MilvusVersion)
			if err != nil {
				return Target{}, err
			}
			if versions.PulsarIgnoresNamespace() {
				t.Reminder += fmt.Sprintf("; Milvus 2.6.0-2.6.8 write every topic to %s/%s whatever pulsar.tenant/namespace say (milvus-io/milvus#46748) and the instance's release is %s: the same topics under %s must be absent or empty too",
					models.DefaultPulsarTenant, models.DefaultPulsarNamespace, versions.Describe(), models.PulsarTopic(models.DefaultPulsarTenant, models.DefaultPulsarNamespace, ""))
			}
		}
		return t, nil
	}
	var full []string
	why := ""
	for _, tp := range topics {
		why = tp.Why
		if !tp.Fresh() {
			full = append(full, tp.Describe())
		}
		switch {
		case wal != "pulsar" && tp.Partitions > 1:
			t.Warnings = append(t.Warnings, fmt.Sprintf("Kafka topic %s has %d partitions: Milvus writes and reads partition 0 only, and heron checked partition 0 only", tp.Topic, tp.Partitions))
		case wal == "pulsar" && tp.Partitions > 0:
			t.Warnings = append(t.Warnings, fmt.Sprintf("Pulsar topic %s is partitioned (%d partitions, each checked): Milvus's producer writes to its partitions", tp.Topic, tp.Partitions))
		}
	}
	t.Reminder = fmt.Sprintf("heron checked the %s topics of the pchannels in scope at plan time (%s); keep every writer off them until Milvus starts on the new WAL", kind, countStates(topics))
	if why != "" {
		t.Warnings = append(t.Warnings, why)
	}
	if len(full) == 0 {
		t.Gate.Detail = fmt.Sprintf("every %s topic of a pchannel in scope is absent or empty (%s)", kind, countStates(topics))
		if why != "" {
			t.Gate.Detail += "; " + why
		}
		return t, nil
	}
	t.Gate.Count, t.Gate.Keys = int64(len(full)), full[:min(len(full), MaxKeys)]
	if allow {
		t.Gate.Overridden = true
		t.Gate.Detail = fmt.Sprintf("--allow-non-empty-target: %s topics of pchannels in scope hold records: %s; Milvus will replay them as its WAL from the earliest position", kind, strings.Join(full, ", "))
		t.Warnings = append(t.Warnings, t.Gate.Detail)
		return t, nil
	}
	t.Gate.OK = false
	t.Gate.Fix = []framework.Step{{Order: framework.StepTarget, Text: fmt.Sprintf("delete or empty the %s topics the gate names", kind)}}
	if wal != "pulsar" {
		// Kafka's own tool, one command a topic: what reset wal is to woodpecker.
		broker, _, _ := strings.Cut(f.KafkaBrokers, ",")
		for _, tp := range topics {
			if !tp.Fresh() {
				t.Gate.Fix = append(t.Gate.Fix, framework.Step{Order: framework.StepTarget,
					Text: fmt.Sprintf("delete %s: `kafka-topics.sh --bootstrap-server %s --delete --topic %s`", tp.Topic, broker, tp.Topic)})
			}
		}
	}
	t.Gate.Detail = fmt.Sprintf("%s topics of pchannels in scope hold records Milvus would replay from the earliest position, so the target WAL is not fresh: %s; delete or empty them", kind, strings.Join(full, ", "))
	if why != "" {
		t.Gate.Detail += "; " + why
	}
	return t, nil
}

// topicNames are the full topic names of pchannels on wal without asking the
// target (for the reminder of an unchecked target).
func topicNames(ctx context.Context, inst *instance.Instance, rev int64, wal string, f *targetcheck.Flags, pchannels []string) []string {
	out := make([]string, len(pchannels))
	if wal != "pulsar" {
		for i, pc := range pchannels {
			out[i] = models.KafkaTopic(pc)
		}
		return out
	}
	tenant, namespace, err := PulsarNames(ctx, inst, rev, f)
	if err != nil {
		tenant, namespace = "{pulsar.tenant}", "{pulsar.namespace}"
	}
	for i, pc := range pchannels {
		out[i] = models.PulsarTopic(tenant, namespace, pc)
	}
	return out
}

func countStates(topics []targetcheck.Topic) string {
	n := map[string]int{}
	for _, t := range topics {
		n[t.State]++
	}
	var parts []string
	for _, s := range []string{targetcheck.Absent, targetcheck.Empty, targetcheck.NotEmpty} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	if len(parts) == 0 {
		return "no topic"
	}
	return strings.Join(parts, ", ")
}

// listAll names every item: an operator must check each topic. A long
// run of names that differ only by a consecutive number (dml_0 to dml_63)
// is said as its count, first and last, which names each one as well.
func listAll(names []string) string {
	if len(names) == 0 {
		return "(none: no pchannel in scope)"
	}
	if first, last, ok := consecutiveRun(names); ok {
		return fmt.Sprintf("(all %d: %s ... %s)", len(names), first, last)
	}
	return strings.Join(names, ", ")
}

// minRun is the fewest names listAll says as a run.
const minRun = 8

// consecutiveRun reports whether names, in any order, are one prefix
// followed by the numbers n, n+1, ... each once; it returns the first and
// the last name.
func consecutiveRun(names []string) (first, last string, ok bool) {
	if len(names) < minRun {
		return "", "", false
	}
	prefix := strings.TrimRight(names[0], "0123456789")
	lo, hi := -1, -1
	seen := make(map[int]bool, len(names))
	for _, n := range names {
		digits := strings.TrimPrefix(n, prefix)
		v, err := strconv.Atoi(digits)
		if err != nil || v < 0 || strconv.Itoa(v) != digits || seen[v] {
			return "", "", false
		}
		seen[v] = true
		if lo < 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	if hi-lo+1 != len(names) {
		return "", "", false
	}
	return prefix + strconv.Itoa(lo), prefix + strconv.Itoa(hi), true
}
