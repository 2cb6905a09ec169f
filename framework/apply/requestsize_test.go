package apply

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/embedded"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// runGuardedOps runs "ops ARGS" over store with guards, as runOps does.
func runGuardedOps(t *testing.T, store Store, guards []Guard, h Header, want []Op, args string) (string, string, error) {
	t.Helper()
	cmd := Tuned(guardedStore{Store: store, guards: guards}, opsBuild(h, want), nil)
	var out, errb strings.Builder
	sh := framework.NewShell(shelltest.State{Cmds: []*framework.Command{cmd}}, &out, &errb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := sh.Run(ctx, "ops "+args)
	return out.String(), errb.String(), err
}

// TestRequestLimitSplitsTransactionsAsEtcdMeasures: etcd measures a
// transaction whole (every op's key and value, the compares, the guards'
// compares and reads, its raft header) against --max-request-bytes. Values
// that each fit go in as many transactions as that takes: a run told the
// server's limit writes them all, none refused mid-run.
func TestRequestLimitSplitsTransactionsAsEtcdMeasures(t *testing.T) {
	const limit = 64 << 10
	cli, _ := etcdtest.StartWith(t, embedded.Options{MaxRequestBytes: limit})
	var want []Op
	for i := 0; i < 8; i++ {
		want = append(want, Op{Key: fmt.Sprintf("r/meta/k%d", i), Value: []byte(strings.Repeat("v", 20<<10))})
	}
	h := Header{Command: "ops", RootPath: "r", Prefixes: []string{"r/meta/"}}
	guards := []Guard{{Name: "no session", Prefix: "r/session/", Except: []string{"r/session/id"}}}
	out, errs, err := runGuardedOps(t, cli, guards, h, want, fmt.Sprintf("--run --yes --max-request-bytes %d --backup-dir %s", limit, t.TempDir()))
	if err != nil {
		t.Fatalf("values of 20 KiB under a 64 KiB request limit: %v\n%s\n%s", err, out, errs)
	}
	resp, err := cli.Get(context.Background(), "r/meta/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != int64(len(want)) {
		t.Fatalf("%d keys written, want %d (%v)", resp.Count, len(want), err)
	}
}

// TestRequestLimitGateCountsTheWholeTransaction: a value whose put alone
// fits under the limit but whose transaction (with the guards' compares
// and reads and etcd's header) does not is refused by the plan, exit 3,
// nothing written; the largest value the gate lets through etcd accepts.
func TestRequestLimitGateCountsTheWholeTransaction(t *testing.T) {
	const limit = 64 << 10
	cli, _ := etcdtest.StartWith(t, embedded.Options{MaxRequestBytes: limit})
	// A long root: the guards' two ranges carry it four times.
	root := "r" + strings.Repeat("x", 400)
	guards := []Guard{{Name: "no session", Prefix: root + "/session/", Except: []string{root + "/session/id"}}}
	h := Header{Command: "ops", RootPath: "r", Prefixes: []string{root + "/meta/"}}
	key := root + "/meta/big"
	// The largest value the gate lets through.
	fits, lim, buf := 0, newRequestLimit(limit, guards, ""), make([]byte, limit)
	for n := limit; n > 0; n-- {
		if !lim.over(key, buf[:n], limit) {
			fits = n
			break
		}
	}
	if fits == 0 || fits > limit-2*len(key)-4*len(root) {
		t.Fatalf("the gate lets a value of %d bytes through: it does not count the key and the guards", fits)
	}
	args := fmt.Sprintf("--run --yes --max-request-bytes %d --backup-dir %s", limit, t.TempDir())
	// One byte more: refused before anything is written.
	r0 := rev(t, cli)
	_, _, err := runGuardedOps(t, cli, guards, h, []Op{{Key: key, Value: []byte(strings.Repeat("v", fits+1))}}, args)
	if err == nil || framework.ExitCode(err) != 3 || !strings.Contains(err.Error(), RequestLimitName) {
		t.Fatalf("a value one byte over what fits: %v", err)
	}
	if rev(t, cli) != r0 {
		t.Fatal("a refused plan wrote")
	}
	// What the gate lets through, etcd accepts.
	if out, errs, err := runGuardedOps(t, cli, guards, h, []Op{{Key: key, Value: []byte(strings.Repeat("v", fits))}}, args); err != nil {
		t.Fatalf("the largest value the gate accepts: %v\n%s\n%s", err, out, errs)
	}
}

// TestOpBytesIsTheProtobufSize: an op's share of its transaction is the
// size etcd's protobuf gives its compare and its put or delete, for short
// and long keys and values and small and large mod revisions.
func TestOpBytesIsTheProtobufSize(t *testing.T) {
	for _, key := range []string{"k", strings.Repeat("k", 200)} {
		for _, n := range []int{0, 1, 127, 128, 20 << 10, 3 << 20} {
			for _, rev := range []int64{0, 1, 300, 1 << 40} {
				for _, del := range []bool{false, true} {
					value := make([]byte, n)
					cmp := clientv3.Compare(clientv3.ModRevision(key), "=", rev)
					req := &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestPut{RequestPut: &etcdserverpb.PutRequest{Key: []byte(key), Value: value}}}
					if del {
						req = &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestDeleteRange{RequestDeleteRange: &etcdserverpb.DeleteRangeRequest{Key: []byte(key)}}}
					}
					txn := etcdserverpb.TxnRequest{Compare: []*etcdserverpb.Compare{(*etcdserverpb.Compare)(&cmp)}, Success: []*etcdserverpb.RequestOp{req}}
					if got, want := opBytes(key, value, rev, del), txn.Size(); got != want {
						t.Errorf("key of %d, value of %d, mod revision %d, delete %v: %d bytes counted, protobuf %d", len(key), n, rev, del, got, want)
					}
				}
			}
		}
	}
}
