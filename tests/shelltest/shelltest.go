// Package shelltest is the kit of the command tests: a sample instance seeded
// into an embedded etcd, a shell holding the commands under test, and dumps
// of the keyspace to compare byte for byte.
package shelltest

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// State is a connected shell state holding just the commands under test.
type State struct{ Cmds []*framework.Command }

func (s State) Prompt() string                 { return "test > " }
func (s State) Commands() []*framework.Command { return s.Cmds }
func (s State) Close() error                   { return nil }

// Seeded is a sample instance seeded into etcd.
type Seeded struct {
	Cli    *clientv3.Client
	Inst   *instance.Instance
	Sample *sample.Instance
}

// Start starts an embedded etcd and seeds the sample instance encoded for wal
// under the default root path (by-dev).
func Start(t testing.TB, wal commonpb.WALName) *Seeded {
	t.Helper()
	cli, endpoint := etcdtest.Start(t)
	return Seed(t, cli, endpoint, configs.DefaultRootPath, wal)
}

// Seed seeds the sample instance under root into a running etcd (tests share
// one etcd between instances of different roots).
func Seed(t testing.TB, cli *clientv3.Client, endpoint, root string, wal commonpb.WALName) *Seeded {
	t.Helper()
	layout := models.NewLayout(root, configs.DefaultMetaPath)
	in := sample.Build(layout, wal)
	inst := instance.New(cli, layout, []string{endpoint})
	if _, err := inst.Load(context.Background(), in.KeyValues()); err != nil {
		t.Fatal(err)
	}
	return &Seeded{Cli: cli, Inst: inst, Sample: in}
}

// Run runs one command line through a shell holding cmds and returns stdout,
// stderr (with the "error: ..." line the shell would print) and the exit code.
func Run(t testing.TB, cmds []*framework.Command, line string) (stdout, stderr string, code int, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	sh := framework.NewShell(State{cmds}, &out, &errb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err = sh.Run(ctx, line)
	if err != nil {
		errb.WriteString("error: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), framework.ExitCode(err), err
}

// Words is s with every run of spaces and newlines made one space: piped,
// a plan's gate detail and recipe wrap at framework.PipeWidth, so a test
// looks for a phrase of them in Words(out), as Words(phrase).
func Words(s string) string { return strings.Join(strings.Fields(s), " ") }

// Dump reads the whole keyspace: key to value.
func Dump(t testing.TB, cli *clientv3.Client) map[string]string {
	t.Helper()
	resp, err := cli.Get(context.Background(), "\x00", clientv3.WithFromKey())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out
}

// DiffKeys lists, sorted, the keys whose values differ between two dumps or
// that only one of them holds.
func DiffKeys(a, b map[string]string) []string {
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

// Revision is etcd's current revision.
func Revision(t testing.TB, inst *instance.Instance) int64 {
	t.Helper()
	r, err := inst.Revision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
