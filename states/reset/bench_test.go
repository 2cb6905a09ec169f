package reset

import (
	"context"
	"fmt"
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

// seedLarge writes an instance of n segments (n/100 collections of 2 shards
// over 64 pchannels, a channel-cp per vchannel) in transactions of 128 puts.
func seedLarge(t testing.TB, cli *clientv3.Client, layout models.Layout, wal commonpb.WALName, n int) {
	ctx := context.Background()
	var ops []clientv3.Op
	put := func(rel string, v []byte) {
		ops = append(ops, clientv3.OpPut(layout.Meta(rel), string(v)))
		if len(ops) == 128 {
			if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
				t.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	pcs := 64
	pc := func(i int) string { return fmt.Sprintf("%s-rootcoord-dml_%d", layout.RootPath, i%pcs) }
	for i := 0; i < pcs; i++ {
		put(models.ConsumeCheckpointKey(pc(i)), sample.Checkpoint{ID: sample.ID(wal, int64(i)), TimeTick: 1 << 40, RecoveryMagic: 1}.Encode())
		put(models.PChannelPrefix+pc(i), sample.PChannel(pc(i), 1))
	}
	colls := max(1, n/100)
	base := int64(449000000000000000)
	for c := 0; c < colls; c++ {
		id := base + int64(c)
		col := sample.Collection{ID: id, DB: 1, Name: fmt.Sprint("c", c), CreateTime: 1 << 40}
		for s := 0; s < 2; s++ {
			v := fmt.Sprintf("%s_%dv%d", pc(2*c+s), id, s)
			col.VChannels = append(col.VChannels, v)
			col.PChannels = append(col.PChannels, pc(2*c+s))
			col.Starts = append(col.Starts, sample.ID(wal, int64(c)).Bytes())
			put(models.ChannelCPKey(v), sample.Position(v, sample.ID(wal, int64(c)), 1<<40, 0))
		}
		put(models.CollectionInfoKey(1, id), col.Encode())
		for s := 0; s < n/colls; s++ {
			seg := id + 1000000 + int64(s)
			v := col.VChannels[s%2]
			put(models.SegmentKey(id, id+1, seg), sample.Segment{ID: seg, Collection: id, Partition: id + 1, Channel: v, Rows: 1000,
				State: commonpb.SegmentState_Flushed, Start: sample.Position(v, sample.ID(wal, int64(s)), 1<<40, 0),
				DML: sample.Position(v, sample.ID(wal, int64(s+1)), 1<<40+1, 0), Level: 2}.Encode())
		}
	}
	if len(ops) > 0 {
		if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkReset times a dry run and a run of reset checkpoint on 20,000
// segments (go test -run '^$' -bench Reset ./states/reset); make bench times
// the real thing at 1,000,000 against a separate etcd server.
func BenchmarkReset(b *testing.B) {
	cli, ep := etcdtest.Start(b)
	layout := models.NewLayout("by-dev", "meta")
	const n = 20000
	seedLarge(b, cli, layout, commonpb.WALName_Pulsar, n)
	inst := instance.New(cli, layout, []string{ep})
	ctx := context.Background()
	b.Run("dry-run", func(b *testing.B) {
		for b.Loop() {
			pl, err := Build(ctx, inst, &Params{TargetWAL: "kafka", WriteFlags: framework.WriteFlags{MaxTxnOps: 128}}, new(apply.Stage))
			if err != nil || pl.Keys < n {
				b.Fatalf("%v, %+v", err, pl)
			}
		}
	})
	b.Run("run", func(b *testing.B) {
		wals := []string{"kafka", "pulsar"}
		i := 0
		for b.Loop() {
			line := "reset checkpoint --target-wal " + wals[i%2] + " --run --backup-dir " + b.TempDir()
			if _, errs, code, _ := shelltest.Run(b, Commands(inst), line); code != 0 {
				b.Fatal(errs)
			}
			i++
		}
	})
}
