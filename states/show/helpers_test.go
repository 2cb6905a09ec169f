package show

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

var allWALs = []commonpb.WALName{
	commonpb.WALName_Pulsar, commonpb.WALName_Kafka, commonpb.WALName_RocksMQ, commonpb.WALName_WoodPecker,
}

type env struct {
	t      *testing.T
	cli    *clientv3.Client
	inst   *instance.Instance
	sample *sample.Instance
}

// seeded starts an etcd and seeds the sample instance encoded for wal under
// the root path by-dev.
func seeded(t *testing.T, wal commonpb.WALName) *env {
	t.Helper()
	cli, endpoint := etcdtest.Start(t)
	return seedInto(t, cli, endpoint, "by-dev", wal)
}

func seedInto(t *testing.T, cli *clientv3.Client, endpoint, root string, wal commonpb.WALName) *env {
	t.Helper()
	s := shelltest.Seed(t, cli, endpoint, root, wal)
	s.Inst.PageSize = 3 // make every scan take several pages
	return &env{t: t, cli: cli, inst: s.Inst, sample: s.Sample}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// run runs one command line through a framework shell.
func (e *env) run(line string) (stdout, stderr string, code int, err error) {
	return shelltest.Run(e.t, Commands(e.inst), line)
}

// mustRun runs a line that must succeed.
func (e *env) mustRun(line string) (stdout, stderr string) {
	e.t.Helper()
	out, errs, code, err := e.run(line)
	if code != 0 {
		e.t.Fatalf("%s: exit %d: %v\nstderr: %s", line, code, err, errs)
	}
	return out, errs
}

// runJSON runs a line with --format json and decodes its single document.
func runJSON[T any](e *env, line string) (T, string) {
	e.t.Helper()
	out, errs := e.mustRun(line + " --format json")
	var v T
	dec := json.NewDecoder(bytes.NewReader([]byte(out)))
	if err := dec.Decode(&v); err != nil {
		e.t.Fatalf("%s: not JSON: %v\n%s", line, err, out)
	}
	if dec.More() {
		e.t.Fatalf("%s: more than one JSON document:\n%s", line, out)
	}
	return v, errs
}

// put writes a key relative to the meta root.
func (e *env) put(rel string, v []byte, opts ...clientv3.OpOption) {
	e.t.Helper()
	if _, err := e.cli.Put(ctxT(e.t), e.inst.Layout.Meta(rel), string(v), opts...); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) pch(i int) string { return e.sample.PChannels[i] }

// ts is the sample's timestamp at Base + minutes.
func ts(minutes int) uint64 {
	return sample.TSO(sample.Base.Add(time.Duration(minutes)*time.Minute), 0)
}

func human(wal commonpb.WALName, n int64) string { return sample.ID(wal, n).Human() }

func walN(w commonpb.WALName) string { return msgid.Name(w) }
