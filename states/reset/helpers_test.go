package reset

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

type env struct {
	t      *testing.T
	cli    *clientv3.Client
	inst   *instance.Instance
	sample *sample.Instance
	dir    string
	tune   func(*apply.Options) // the options of every run (apply.Tuned)
}

// newEnv starts an etcd, seeds the sample instance with positions in wal and
// returns the connected instance.
func newEnv(t *testing.T, wal commonpb.WALName) *env {
	t.Helper()
	cli, ep := etcdtest.Start(t)
	return seedEnv(t, cli, ep, "by-dev", wal)
}

// seedEnv seeds a sample instance under root in a running etcd (tests share
// one etcd between instances of different roots).
func seedEnv(t *testing.T, cli *clientv3.Client, ep, root string, wal commonpb.WALName) *env {
	t.Helper()
	s := shelltest.Seed(t, cli, ep, root, wal)
	return &env{t: t, cli: cli, inst: s.Inst, sample: s.Sample, dir: t.TempDir()}
}

// meta is the absolute key of a key relative to the meta root.
func (e *env) meta(rel string) string { return e.inst.Layout.Meta(rel) }

// pc is the sample's pchannel i.
func (e *env) pc(i int) string { return e.sample.PChannels[i] }

// run runs one command line and returns stdout, stderr and the exit code.
func (e *env) run(line string) (string, string, int) {
	e.t.Helper()
	out, errs, code, _ := shelltest.Run(e.t, []*framework.Command{apply.Tuned(e.inst, Build, e.tune)}, line)
	return out, errs, code
}

func (e *env) reset(args string) (string, string, int) {
	return e.run("reset checkpoint --backup-dir " + e.dir + " " + args)
}

func (e *env) rev() int64 {
	e.t.Helper()
	return shelltest.Revision(e.t, e.inst)
}

func (e *env) put(key string, value []byte) {
	e.t.Helper()
	if _, err := e.cli.Put(context.Background(), key, string(value)); err != nil {
		e.t.Fatal(err)
	}
}

// dump reads the whole keyspace.
func (e *env) dump() map[string]string { return shelltest.Dump(e.t, e.cli) }

var diffKeys = shelltest.DiffKeys

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		// A phrase of a gate's detail may wrap (piped, at PipeWidth).
		if !strings.Contains(s, sub) && !strings.Contains(shelltest.Words(s), shelltest.Words(sub)) {
			t.Fatalf("output lacks %q:\n%s", sub, s)
		}
	}
}

// moveOutside rewrites, straight into etcd, the positions of pchannels to
// target as an earlier (interrupted) run would leave them, so that a scoped
// run of the other pchannels completes the instance (the one-WAL gate).
func (e *env) moveOutside(target string, pchannels ...string) {
	e.t.Helper()
	cpWAL := map[string]commonpb.WALName{}
	for _, pc := range e.sample.PChannels {
		cp, err := models.DecodeWALCheckpoint([]byte(e.dump()[e.meta(models.ConsumeCheckpointKey(pc))]))
		if err != nil {
			e.t.Fatal(err)
		}
		cpWAL[pc] = cp.WAL
	}
	p, err := NewPlanner(target, pchannels, Context{CheckpointWAL: cpWAL})
	if err != nil {
		e.t.Fatal(err)
	}
	for key, value := range e.dump() {
		rel, ok := e.inst.Layout.Rel(key)
		if !ok {
			continue
		}
		d, err := p.Decide(models.Classify(rel), []byte(value))
		if err != nil {
			e.t.Fatal(err)
		}
		if d.Action == Rewrite {
			e.put(key, d.Value)
		}
	}
}

// RunResult is the run document (apply.Outcome) as the tests read it.
type RunResult struct {
	Plan    *Summary      `json:"plan"`
	Applied *apply.Result `json:"applied"`
	Verify  *apply.Verify `json:"verify"`
}

// dryPlan builds the plan of p without a shell: a dry run.
func dryPlan(t *testing.T, inst *instance.Instance, p *Params) *Summary {
	t.Helper()
	pl, err := Build(context.Background(), inst, p, new(apply.Stage))
	if err != nil {
		t.Fatal(err)
	}
	return pl.View.(*Summary)
}

// etcdSpace matches the plan's etcd space, in the table and in JSON: the
// size of the etcd (which its backend changes by itself), not of the plan.
var etcdSpace = regexp.MustCompile(`(?m)^\s*etcd space: .*\n|,\n\s*"etcd_space": \{[^}]*\}`)

// leaseLeft matches the session gate's longest lease left, which counts down
// between two plans (298 s, then 297 s on a loaded machine).
var leaseLeft = regexp.MustCompile(`lease left: \d+ s`)

// withoutEtcdSpace is a rendered plan without its etcd space and with the
// lease left blanked, to compare two plans of the same keys read a moment apart.
func withoutEtcdSpace(s string) string {
	return leaseLeft.ReplaceAllString(etcdSpace.ReplaceAllString(s, ""), "lease left: N s")
}
