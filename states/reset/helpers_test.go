package reset

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

type testState struct{ cmds []*framework.Command }

func (s testState) Prompt() string                 { return "test > " }
func (s testState) Commands() []*framework.Command { return s.cmds }
func (s testState) Close() error                   { return nil }

type env struct {
	t      *testing.T
	cli    *clientv3.Client
	inst   *instance.Instance
	sample *sample.Instance
	dir    string
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
	layout := models.NewLayout(root, "meta")
	in := sample.Build(layout, wal)
	if _, err := sample.Seed(context.Background(), cli, in); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, cli: cli, inst: instance.New(cli, layout, []string{ep}), sample: in, dir: t.TempDir()}
}

// meta is the absolute key of a key relative to the meta root.
func (e *env) meta(rel string) string { return e.inst.Layout.Meta(rel) }

// pc is the sample's pchannel i.
func (e *env) pc(i int) string { return e.sample.PChannels[i] }

// run runs one command line and returns stdout, stderr and the exit code.
func (e *env) run(line string) (string, string, int) {
	e.t.Helper()
	var out, errb bytes.Buffer
	sh := framework.NewShell(testState{Commands(e.inst)}, &out, &errb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := sh.Run(ctx, line)
	if err != nil {
		errb.WriteString("error: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), framework.ExitCode(err)
}

func (e *env) reset(args string) (string, string, int) {
	return e.run("reset checkpoint --backup-dir " + e.dir + " " + args)
}

func (e *env) rev() int64 {
	e.t.Helper()
	r, err := e.inst.Revision(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) put(key string, value []byte) {
	e.t.Helper()
	if _, err := e.cli.Put(context.Background(), key, string(value)); err != nil {
		e.t.Fatal(err)
	}
}

// dump reads the whole keyspace.
func (e *env) dump() map[string]string {
	e.t.Helper()
	resp, err := e.cli.Get(context.Background(), "\x00", clientv3.WithFromKey())
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out
}

func diffKeys(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Fatalf("output lacks %q:\n%s", sub, s)
		}
	}
}
