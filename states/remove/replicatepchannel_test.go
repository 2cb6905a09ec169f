package remove

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/applyplan"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/sampletest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// env is the sample instance in an embedded etcd replicating to cluster
// standby (in the configuration), with stale entries to clusters old and
// old-2 that the configuration no longer holds.
type env struct {
	t    *testing.T
	cli  *clientv3.Client
	inst *instance.Instance
	dir  string
	p0   string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	s := shelltest.Start(t, commonpb.WALName_Kafka)
	e := &env{t: t, cli: s.Cli, inst: s.Inst, dir: t.TempDir(), p0: s.Sample.PChannels[0]}
	e.put(models.ReplicateConfiguration, sampletest.ReplicateConfiguration("by-dev", "standby"))
	for _, c := range []struct{ cluster, source string }{{"standby", e.p0}, {"old", e.p0}, {"old", s.Sample.PChannels[1]}, {"old-2", e.p0}} {
		e.put(models.ReplicatingPChannelKey(c.cluster, c.source), sampletest.ReplicatingPChannel(c.source, c.cluster+"-rootcoord-dml_0", c.cluster))
	}
	return e
}

func (e *env) key(cluster, source string) string {
	return e.inst.Layout.Meta(models.ReplicatingPChannelKey(cluster, source))
}

func (e *env) put(rel string, value []byte) {
	e.t.Helper()
	if _, err := e.cli.Put(context.Background(), e.inst.Layout.Meta(rel), string(value)); err != nil {
		e.t.Fatal(err)
	}
}

// run runs a line through a shell holding the removes, restore and apply,
// with the test's backup folder.
func (e *env) run(line string) (string, string, int) {
	e.t.Helper()
	cmds := append(Commands(e.inst), restore.Commands(e.inst)...)
	cmds = append(cmds, applyplan.Commands(e.inst)...)
	out, errs, code, _ := shelltest.Run(e.t, cmds, line+" --backup-dir "+e.dir)
	return out, errs, code
}

// changed requires the keys that differ from before to be exactly want.
func (e *env) changed(before map[string]string, want ...string) {
	e.t.Helper()
	sort.Strings(want)
	if got := shelltest.DiffKeys(before, shelltest.Dump(e.t, e.cli)); strings.Join(got, " ") != strings.Join(want, " ") {
		e.t.Fatalf("changed keys: %v, want %v", got, want)
	}
}

// mustContain finds each sub in s as printed, or with white space folded
// (piped, a gate's detail wraps at the pipe width).
func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) && !strings.Contains(shelltest.Words(s), shelltest.Words(sub)) {
			t.Fatalf("missing %q in:\n%s", sub, s)
		}
	}
}

// The stale entry of dml_0 to cluster old is matched exactly (not old-2's,
// not dml_1's, as birdwatcher's substring filter would): the dry run shows
// its one key, --run (with birdwatcher's flag spellings) deletes only it,
// and restore puts every key back byte for byte.
func TestRemoveReplicatePChannel(t *testing.T) {
	e := newEnv(t)
	key := e.key("old", e.p0)
	before := shelltest.Dump(t, e.cli)
	out, errs, code := e.run("remove replicate-pchannel --target-cluster old --source-channel " + e.p0)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "delete "+key+"\n", "before: "+e.p0+" replicated to old-rootcoord-dml_0 on cluster old",
		"ok  target cluster not in the replicate configuration", "cluster old is not in the replicate configuration",
		"ok  no live component caching replicating pchannels")
	if n := strings.Count(out, "delete "); n != 1 {
		t.Fatalf("dry run deletes %d keys, want 1:\n%s", n, out)
	}
	e.changed(before)

	out, errs, code = e.run("remove replicate-pchannel --targetCluster old --sourceChannel " + e.p0 + " --run")
	if code != 0 {
		t.Fatalf("--run: exit %d\n%s%s", code, out, errs)
	}
	// The verify plans again: the entry gone is no usage error then.
	mustContain(t, out, "verify: ok")
	e.changed(before, key)
	backups, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-*.jsonl"))
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if out, errs, code := e.run("restore --file " + backups[0] + " --run"); code != 0 {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)

	// A saved plan applied as it was saved: the same key, verified.
	plan := filepath.Join(e.dir, "plan.jsonl")
	if out, errs, code := e.run("remove replicate-pchannel --target-cluster old --source-channel " + e.p0 + " --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = e.run("apply --file " + plan + " --run")
	if code != 0 {
		t.Fatalf("apply --file: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "verify: ok")
	e.changed(before, key)
}

// An entry whose cluster is in the configuration is refused (exit 3, no
// override), and so is any entry when the configuration does not decode;
// with no configuration stored, no cluster is in it.
func TestRemoveReplicatePChannelRefusedInConfiguration(t *testing.T) {
	e := newEnv(t)
	before := shelltest.Dump(t, e.cli)
	out, errs, code := e.run("remove replicate-pchannel --target-cluster standby --source-channel " + e.p0 + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("cluster in the configuration: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  target cluster not in the replicate configuration", "cluster standby is in the replicate configuration",
		e.inst.Layout.Meta(models.ReplicateConfiguration))
	e.changed(before)
	if _, errs, code := e.run("remove replicate-pchannel --target-cluster standby --source-channel " + e.p0 + " --run --force"); code != framework.ExitUsage {
		t.Fatalf("--force: exit %d, want a usage error (no override)\n%s", code, errs)
	}

	e.put(models.ReplicateConfiguration, []byte{0xff})
	before = shelltest.Dump(t, e.cli)
	out, errs, code = e.run("remove replicate-pchannel --target-cluster old --source-channel " + e.p0 + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("configuration that does not decode: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "does not decode", "heron cannot tell whether cluster old is in it")
	e.changed(before)

	if _, err := e.cli.Delete(context.Background(), e.inst.Layout.Meta(models.ReplicateConfiguration)); err != nil {
		t.Fatal(err)
	}
	before = shelltest.Dump(t, e.cli)
	out, errs, code = e.run("remove replicate-pchannel --target-cluster standby --source-channel " + e.p0 + " --run")
	if code != 0 {
		t.Fatalf("no configuration: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "no replicate configuration is stored")
	e.changed(before, e.key("standby", e.p0))
}

// No entry matches: a usage error naming the key looked for and the
// entries there are; empty flags are usage errors; nothing is written.
func TestRemoveReplicatePChannelUsage(t *testing.T) {
	e := newEnv(t)
	before := shelltest.Dump(t, e.cli)
	e.put(models.ReplicatingPChannel+"garbage", []byte{0xff})
	for line, want := range map[string][]string{
		"remove replicate-pchannel --target-cluster ol --source-channel " + e.p0: {e.key("ol", e.p0), "there are: ", e.p0 + " to cluster old-2",
			e.p0 + " to cluster standby", "1 key does not decode: " + models.ReplicatingPChannel + "garbage", "show replicate"},
		"remove replicate-pchannel --target-cluster old --source-channel by-dev-rootcoord-dml": {"no replicating pchannel of --source-channel by-dev-rootcoord-dml to --target-cluster old"},
		"remove replicate-pchannel --target-cluster '' --source-channel " + e.p0:               {"--target-cluster is empty"},
		"remove replicate-pchannel --target-cluster old --source-channel ' '":                  {"--source-channel is empty"},
		"remove replicate-pchannel --target-cluster old":                                       {"--source-channel is required"},
	} {
		out, errs, code := e.run(line + " --run")
		if code != framework.ExitUsage {
			t.Errorf("%s: exit %d, want usage\n%s%s", line, code, out, errs)
			continue
		}
		mustContain(t, errs, want...)
	}
	e.changed(before, e.inst.Layout.Meta(models.ReplicatingPChannel+"garbage"))
}

// A live streaming coordinator refuses, named as a cache of the entries;
// a saved plan applied after its entry changed is refused (exit 3).
func TestRemoveReplicatePChannelRefusals(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	line := "remove replicate-pchannel --target-cluster old --source-channel " + e.p0
	if out, errs, code := e.run(line + " --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	e.put(models.ReplicatingPChannelKey("old", e.p0), sampletest.ReplicatingPChannel(e.p0, "old-rootcoord-dml_9", "old"))
	before := shelltest.Dump(t, e.cli)
	out, errs, code := e.run("apply --file " + plan + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("apply of a plan whose entry changed: exit %d\n%s%s", code, out, errs)
	}
	e.changed(before)

	lease, err := e.cli.Grant(context.Background(), 60)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.cli.Put(context.Background(), e.inst.Layout.Meta("session/mixcoord"), `{"ServerName":"mixcoord","ServerID":5}`, clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	before = shelltest.Dump(t, e.cli)
	out, errs, code = e.run(line + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("live mixcoord: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  no live component caching replicating pchannels", "session/mixcoord (mixcoord")
	e.changed(before)
}

// A configuration whose replicate_configuration is not a message (wrong
// wire type) does not decode: refused, never read as one with no cluster.
// One whose replicate_configuration is written twice is merged, as proto
// decodes it: a cluster of either part is in it.
func TestRemoveReplicatePChannelConfigurationShapes(t *testing.T) {
	e := newEnv(t)
	line := "remove replicate-pchannel --target-cluster standby --source-channel " + e.p0 + " --run"
	e.put(models.ReplicateConfiguration, []byte{0x08, 0x01})
	before := shelltest.Dump(t, e.cli)
	out, errs, code := e.run(line)
	if code != framework.ExitRefused {
		t.Fatalf("replicate_configuration a varint: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "does not decode")
	e.changed(before)

	twice := append(sampletest.ReplicateConfiguration("by-dev", "standby"), sampletest.ReplicateConfiguration("dr")...)
	e.put(models.ReplicateConfiguration, twice)
	before = shelltest.Dump(t, e.cli)
	out, errs, code = e.run(line)
	if code != framework.ExitRefused {
		t.Fatalf("cluster in the first of two parts: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "cluster standby is in the replicate configuration")
	e.changed(before)
}

// A saved plan applied after the configuration took the cluster back (the
// entry unchanged) is refused: the gate is read again.
func TestRemoveReplicatePChannelStalePlanConfiguration(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if out, errs, code := e.run("remove replicate-pchannel --target-cluster old --source-channel " + e.p0 + " --plan-out " + plan); code != 0 {
		t.Fatalf("--plan-out: exit %d\n%s%s", code, out, errs)
	}
	e.put(models.ReplicateConfiguration, sampletest.ReplicateConfiguration("by-dev", "standby", "old"))
	before := shelltest.Dump(t, e.cli)
	out, errs, code := e.run("apply --file " + plan + " --run")
	if code != framework.ExitRefused {
		t.Fatalf("apply after the configuration took cluster old back: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "cluster old is in the replicate configuration")
	e.changed(before)
}
