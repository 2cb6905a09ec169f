package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// Every transaction compares the mod revision of each of its keys with the
// one the plan read. A cheaper guard, one compare over the transaction's key
// range ("no key in it changed after the plan's revision"), holds for a key
// deleted after the plan: a deleted key is not in the range, so nothing in
// it is newer, and the put would bring the key back. The per-key compare
// (mod revision 0 now, not the one read) refuses the transaction: the key
// stays deleted and nothing of its transaction is written.
func TestRevisionGuardCatchesAKeyDeletedAfterThePlan(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	kvs := map[string]string{}
	for i := range 8 {
		kvs[fmt.Sprintf("p/%d", i)] = fmt.Sprint("old", i)
	}
	revs := seed(t, cli, kvs)
	planRev := rev(t, cli)
	var ops []Op
	for i := range 8 {
		k := fmt.Sprintf("p/%d", i)
		ops = append(ops, Op{Key: k, ModRevision: revs[k], Value: []byte("new"), Original: []byte(kvs[k])})
	}
	// After the plan: Milvus (say, its GC) deletes a key the plan rewrites.
	if _, err := cli.Delete(ctx, "p/5"); err != nil {
		t.Fatal(err)
	}
	// The range guard would let the transaction through.
	rangeGuard := clientv3.Compare(clientv3.ModRevision("p/0"), "<", planRev+1).WithRange("p/7\x00")
	if resp, err := cli.Txn(ctx).If(rangeGuard).Commit(); err != nil || !resp.Succeeded {
		t.Fatalf("the range guard caught the deleted key (%v, %v): this test shows nothing", resp, err)
	}
	before := rev(t, cli)
	_, err := Apply(ctx, cli, Slice(ops), Options{BackupPath: filepath.Join(t.TempDir(), "b"), Header: Header{Revision: planRev}, MaxTxnOps: 128})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Key != "p/5" || ce.Read != revs["p/5"] || ce.Now != 0 || ce.Written != 0 {
		t.Fatalf("the run went on over a key deleted after the plan: %v", err)
	}
	got := dump(t, cli)
	if _, back := got["p/5"]; back || got["p/0"] != "old0" || rev(t, cli) != before {
		t.Fatalf("etcd was written: %v", got)
	}
}
