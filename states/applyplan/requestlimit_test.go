package applyplan

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/framework/embedded"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// A plan of a segment value over etcd's default request limit, applied
// with apply --file: refused (exit 3) without --max-request-bytes, and run
// with apply's --max-request-bytes naming the server's limit, as the
// command's own --run is (the recorded flags hold no write flag: the
// operator's apply flags are the run's).
func TestApplyFileTakesItsMaxRequestBytes(t *testing.T) {
	const limit = 4 << 20
	cli, ep := etcdtest.StartWith(t, embedded.Options{MaxRequestBytes: limit})
	s := shelltest.Seed(t, cli, ep, "by-dev", commonpb.WALName_Pulsar)
	seg := s.Inst.Layout.Meta(models.SegmentKey(100, 101, 1001))
	ctx := context.Background()
	resp, err := cli.Get(ctx, seg)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("no segment %s: %v", seg, err)
	}
	big := append(append([]byte{}, resp.Kvs[0].Value...), (&wire.Builder{}).Bytes(99, make([]byte, 1700<<10)).Build()...)
	if _, err := cli.Put(ctx, seg, string(big)); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, s: s, dir: t.TempDir(), cmds: append(reset.Commands(s.Inst), Commands(s.Inst)...)}
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --max-request-bytes 4194304 --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	r0 := e.rev()
	if out, errs, code := e.run("apply --file " + plan + " --run --yes --backup-dir " + e.dir); code != framework.ExitRefused || e.rev() != r0 || !strings.Contains(out, apply.RequestLimitName) {
		t.Fatalf("without --max-request-bytes: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code := e.run("apply --file " + plan + " --run --yes --max-request-bytes 4194304 --backup-dir " + e.dir)
	if code != 0 || !strings.Contains(out, "verify: ok") {
		t.Fatalf("with --max-request-bytes 4194304: exit %d\n%s\n%s", code, out, errs)
	}
	if resp, err := cli.Get(ctx, seg, clientv3.WithCountOnly()); err != nil || resp.Count != 1 {
		t.Fatalf("%s: %v", seg, err)
	}
}
