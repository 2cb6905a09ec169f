package repair

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/applyplan"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/shelltest"
)

// env is the sample instance (positions in Kafka ids) in an embedded etcd,
// and a shell holding the repairs, restore and apply.
type env struct {
	t      *testing.T
	cli    *clientv3.Client
	inst   *instance.Instance
	sample *sample.Instance
	dir    string
	tune   func(*apply.Options)
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWAL(t, commonpb.WALName_Kafka)
}

// newEnvWAL is the sample instance with positions in wal's ids.
func newEnvWAL(t *testing.T, wal commonpb.WALName) *env {
	t.Helper()
	s := shelltest.Start(t, wal)
	return &env{t: t, cli: s.Cli, inst: s.Inst, sample: s.Sample, dir: t.TempDir()}
}

func (e *env) meta(rel string) string { return e.inst.Layout.Meta(rel) }

func (e *env) put(key string, value []byte) {
	e.t.Helper()
	if _, err := e.cli.Put(context.Background(), key, string(value)); err != nil {
		e.t.Fatal(err)
	}
}

// live registers a component's session with a lease.
func (e *env) live(rel, role string) {
	e.t.Helper()
	lease, err := e.cli.Grant(context.Background(), 60)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.cli.Put(context.Background(), e.meta(rel), `{"ServerName":"`+role+`","ServerID":5}`, clientv3.WithLease(lease.ID)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) dump() map[string]string { return shelltest.Dump(e.t, e.cli) }

// run runs a command line through a shell holding the repairs (tuned),
// restore and apply --file.
func (e *env) run(line string) (string, string, int) {
	e.t.Helper()
	cmds := tuned(e.inst, e.tune)
	cmds = append(cmds, restore.Commands(e.inst)...)
	cmds = append(cmds, applyplan.Commands(e.inst)...)
	out, errs, code, _ := shelltest.Run(e.t, cmds, line)
	return out, errs, code
}

// repair runs a repair with the test's backup folder.
func (e *env) repair(line string) (string, string, int) {
	e.t.Helper()
	return e.run(line + " --backup-dir " + e.dir)
}

func (e *env) backups() []string {
	e.t.Helper()
	m, err := filepath.Glob(filepath.Join(e.dir, "heron-backup-*.jsonl"))
	if err != nil {
		e.t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// restoreLast restores the newest backup and requires the keyspace to be
// before, byte for byte.
func (e *env) restoreLast(before map[string]string) {
	e.t.Helper()
	bs := e.backups()
	if len(bs) == 0 {
		e.t.Fatal("no backup")
	}
	out, errs, code := e.run("restore --file " + bs[len(bs)-1] + " --backup-dir " + e.dir + " --run")
	if code != 0 {
		e.t.Fatalf("restore: exit %d\n%s%s", code, out, errs)
	}
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		e.t.Fatalf("restore left differences: %v", d)
	}
}

// changed requires the keys that differ from before to be exactly want.
func (e *env) changed(before map[string]string, want ...string) {
	e.t.Helper()
	sort.Strings(want)
	if got := shelltest.DiffKeys(before, e.dump()); strings.Join(got, " ") != strings.Join(want, " ") {
		e.t.Fatalf("changed keys: %v, want %v", got, want)
	}
}

// applyRefused applies the saved plan and requires a refusal (exit 3)
// whose output says each of want, with nothing written.
func (e *env) applyRefused(plan string, want ...string) {
	e.t.Helper()
	before := e.dump()
	out, errs, code := e.run("apply --file " + plan + " --backup-dir " + e.dir + " --run")
	if code != framework.ExitRefused {
		e.t.Fatalf("apply --file %s: exit %d, want a refusal\n%s%s", plan, code, out, errs)
	}
	mustContain(e.t, out, want...)
	e.changed(before)
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		// A phrase of a gate's detail may wrap (piped, at PipeWidth).
		if !strings.Contains(s, sub) && !strings.Contains(shelltest.Words(s), shelltest.Words(sub)) {
			t.Fatalf("missing %q in:\n%s", sub, s)
		}
	}
}
