package apply

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// heron's requests go on the wire as the bytes grpc's own codec would send:
// a write transaction (compares, binary puts over the 32 KiB grpc pools
// above, a delete), a range and a non-etcd message all encode the same.
func TestRequestCodecSendsGRPCsBytes(t *testing.T) {
	value := bytes.Repeat([]byte{0, 0xff, '\n', 'v'}, 300)
	txn := &etcdserverpb.TxnRequest{}
	for i := range 64 {
		key := []byte(fmt.Sprintf("by-dev/meta/k/%03d", i))
		txn.Compare = append(txn.Compare, &etcdserverpb.Compare{Key: key, Target: etcdserverpb.Compare_MOD, Result: etcdserverpb.Compare_EQUAL,
			TargetUnion: &etcdserverpb.Compare_ModRevision{ModRevision: int64(i + 7)}})
		txn.Success = append(txn.Success, &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestPut{RequestPut: &etcdserverpb.PutRequest{Key: key, Value: value}}})
	}
	txn.Success = append(txn.Success, &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestDeleteRange{RequestDeleteRange: &etcdserverpb.DeleteRangeRequest{Key: []byte("by-dev/meta/gone")}}})
	rng := &etcdserverpb.RangeRequest{Key: []byte("by-dev/meta/"), RangeEnd: []byte("by-dev/meta0"), Limit: 1000, Revision: 42, KeysOnly: true}
	grpcs := encoding.GetCodecV2(proto.Name)
	ours := requestCodec{grpcs}
	if ours.Name() != grpcs.Name() {
		t.Fatalf("codec name %q, grpc's is %q (the content type etcd reads)", ours.Name(), grpcs.Name())
	}
	for _, msg := range []any{txn, rng, &etcdserverpb.TxnRequest{}} {
		want, err := grpcs.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ours.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Materialize(), want.Materialize()) {
			t.Fatalf("%T: requestCodec's %d bytes differ from grpc's %d", msg, got.Len(), want.Len())
		}
	}
	if n, _ := ours.Marshal(txn); n.Len() <= 32<<10 {
		t.Fatalf("the transaction is %d bytes: the test needs one over grpc's pooled 32 KiB", n.Len())
	}
}

// A client dialed with DialOptions (as heron dials) writes a plan's binary
// values byte for byte, in transactions larger than 32 KiB, and reads them
// back.
func TestDialOptionsWriteAndReadBytes(t *testing.T) {
	_, ep := etcdtest.Start(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second, DialOptions: DialOptions()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	var ops []Op
	for i := range 100 {
		v := bytes.Repeat([]byte{byte(i), 0, 0xff, '"'}, 200+i)
		ops = append(ops, Op{Key: fmt.Sprintf("by-dev/meta/k/%03d", i), Value: v})
	}
	res, err := Apply(ctx, cli, Slice(ops), Options{BackupPath: filepath.Join(t.TempDir(), "b")})
	if err != nil || res.Written != int64(len(ops)) {
		t.Fatalf("apply: %v (%+v)", err, res)
	}
	for _, op := range ops {
		got, err := cli.Get(ctx, op.Key)
		if err != nil || len(got.Kvs) != 1 || !bytes.Equal(got.Kvs[0].Value, op.Value) {
			t.Fatalf("%s: read back %v, %v; want the %d bytes written", op.Key, got, err, len(op.Value))
		}
	}
}
