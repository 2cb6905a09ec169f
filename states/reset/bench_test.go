package reset

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
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

// TestLargeReset times a dry run and a run on HERON_RESET_BENCH segments.
func TestLargeReset(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HERON_RESET_BENCH"))
	if n <= 0 {
		t.Skip("set HERON_RESET_BENCH=segments to run")
	}
	cli, ep := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "meta")
	start := time.Now()
	seedLarge(t, cli, layout, commonpb.WALName_Pulsar, n)
	t.Logf("seeded %d segments in %s", n, time.Since(start))
	e := &env{t: t, cli: cli, inst: instance.New(cli, layout, []string{ep}), dir: t.TempDir()}
	var ms runtime.MemStats
	for _, args := range []string{"--target-wal kafka", "--target-wal kafka --run", "--target-wal kafka"} {
		start = time.Now()
		out, errs, code := e.reset(args + " --format line")
		runtime.ReadMemStats(&ms)
		t.Logf("%s: exit %d in %s (heap in use %d MiB, sys %d MiB)\n%.600s\n%.2000s", args, code, time.Since(start), ms.HeapInuse>>20, ms.Sys>>20, out, errs)
	}
}
