// Command gen writes a large, realistic Milvus 2.6 meta root into etcd for the
// benchmark and the fault tests, and times a raw etcd write loop to compare
// heron with:
//
//	gen seed --etcd HOST:PORT [--rootPath by-dev] [--wal pulsar] [--segments 1000000]
//	         [--collections 10000] [--shards 2] [--pchannels 64] [--writers 4] [--txn-ops 128]
//	gen raw  --etcd HOST:PORT --keys N [--prefix bench-raw/] [--txn-ops 128] [--inflight 1] [--compare]
//	gen count --etcd HOST:PORT [--prefix P]
//	gen read --etcd HOST:PORT [--rootPath by-dev] [--segments N] [--collections N]
//
// seed is deterministic: the same flags give the same keys and values, byte
// for byte, so two runs can be compared by their dumps. Its values come from
// models/sample (real protobuf bytes): per pchannel a consume checkpoint and
// its pchannel meta; per collection a collection-info (1 in 100 in the legacy
// layout, 1 in 10 with a snapshot copy), a query target, and per shard a
// channel-cp, a channel-removal marker, a vchannel meta and its schema; then
// the segments spread evenly over the collections' vchannels, 9 in 10
// Flushed and the rest Dropped, each with a start and a dml position. It
// prints one JSON line: keys written, bytes, seconds.
//
// raw writes --keys keys in transactions of --txn-ops plain puts, --inflight
// of them at a time (1: sequentially), with keys and values shaped like the
// segment infos heron writes, all built before the clock starts, and prints
// one JSON line with keys, seconds and keys/s: the ceiling heron's writes are
// compared with. With --compare each transaction also compares the mod
// revision of each of its keys, read before the clock starts, as heron's
// revision-guarded transactions do (etcd reads every compared key before it
// writes): the same work as heron's write pass, without its scan, backup or
// verify. The keys must exist (an earlier raw pass creates them).
//
// read reads every key under the root of a seeded instance at one revision
// the plainest way that costs etcd O(n): the keys outside the segments in
// two unlimited range requests, the segments in windows of whole
// collections (their ids all have 18 digits, so a window of collection ids
// is exact) of about 10,000 keys each; it prints keys, requests, seconds and
// keys/s: the floor heron's reads are compared with.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type config struct {
	root        string
	wal         commonpb.WALName
	segments    int
	collections int
	shards      int
	pchannels   int
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: gen seed|raw|count [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	endpoint := fs.String("etcd", "127.0.0.1:2379", "etcd address")
	root := fs.String("rootPath", "by-dev", "root path")
	walName := fs.String("wal", "pulsar", "WAL of the seeded positions")
	segments := fs.Int("segments", 1000000, "segments")
	collections := fs.Int("collections", 10000, "collections")
	shards := fs.Int("shards", 2, "shards (vchannels) per collection")
	pchannels := fs.Int("pchannels", 64, "pchannels")
	writers := fs.Int("writers", 4, "concurrent writers (seed)")
	txnOps := fs.Int("txn-ops", 128, "puts per transaction")
	keys := fs.Int("keys", 0, "keys to write (raw)")
	inflight := fs.Int("inflight", 1, "transactions in flight (raw)")
	prefix := fs.String("prefix", "bench-raw/", "key prefix (raw, count)")
	compare := fs.Bool("compare", false, "compare each key's mod revision in its transaction (raw)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: []string{*endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		MaxCallSendMsgSize: 4 << 20,
	})
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx := context.Background()
	switch args[0] {
	case "seed":
		wal, err := msgid.Parse(*walName)
		if err != nil {
			return err
		}
		if *collections < 1 || *shards < 1 || *pchannels < 1 || *segments < 0 {
			return fmt.Errorf("--collections, --shards and --pchannels must be positive")
		}
		cfg := config{root: *root, wal: wal, segments: *segments, collections: *collections, shards: *shards, pchannels: *pchannels}
		return seed(ctx, cli, cfg, *writers, *txnOps)
	case "raw":
		return raw(ctx, cli, *prefix, *keys, *txnOps, *inflight, *compare)
	case "read":
		return read(ctx, cli, *root, *segments, *collections)
	case "count":
		resp, err := cli.Get(ctx, *prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return err
		}
		fmt.Printf("{\"keys\":%d,\"revision\":%d}\n", resp.Count, resp.Header.Revision)
		return nil
	}
	return fmt.Errorf("unknown subcommand %q", args[0])
}

// Milvus ids are 18-digit numbers (TSO-derived); keys of that length make
// the benchmark's requests as large as a real instance's.
const (
	collectionBase int64 = 451234567890000000
	segmentBase    int64 = 451234567900000000
)

// generate yields every key of the instance, in a fixed order.
func generate(cfg config, yield func(k string, v []byte)) {
	layout := models.NewLayout(cfg.root, "meta")
	meta := layout.Meta
	wal := cfg.wal
	ts := func(minutes int) uint64 { return sample.TSO(sample.Base.Add(time.Duration(minutes)*time.Minute), 0) }
	pch := func(i int) string { return fmt.Sprintf("%s-rootcoord-dml_%d", cfg.root, i) }

	for i := 0; i < cfg.pchannels; i++ {
		p := pch(i)
		cp := sample.Checkpoint{ID: sample.ID(wal, int64(5000+i)), TimeTick: ts(6000 + i), RecoveryMagic: 1, Replicate: i%16 == 3}
		yield(meta(models.ConsumeCheckpointKey(p)), cp.Encode())
		yield(meta(models.PChannelPrefix+p), sample.PChannel(p, int64(i+1)))
	}

	vch := func(c, s int) (v, p string) {
		p = pch((c*cfg.shards + s) % cfg.pchannels)
		return fmt.Sprintf("%s_%dv%d", p, collectionBase+int64(c), s), p
	}
	for c := 0; c < cfg.collections; c++ {
		id := collectionBase + int64(c)
		created := ts(c % 5000)
		col := sample.Collection{ID: id, DB: 1, Name: "collection_" + strconv.Itoa(c), CreateTime: created}
		var positions [][]byte
		var vchans []string
		for s := 0; s < cfg.shards; s++ {
			v, p := vch(c, s)
			col.VChannels = append(col.VChannels, v)
			col.PChannels = append(col.PChannels, p)
			col.Starts = append(col.Starts, sample.ID(wal, int64(c%1000+s)).Bytes())
			vchans = append(vchans, v)
			cpPos := sample.Position(v, sample.ID(wal, int64(4000+c%1000)), ts(5500+c%100), commonpb.WALName_Unknown)
			positions = append(positions, cpPos)
			yield(meta(models.ChannelCPKey(v)), cpPos)
			yield(meta(models.ChannelRemovalPrefix+v), []byte("non-removed"))
			vkey := models.WALPrefix + p + "/vchannel/" + v
			yield(meta(vkey), sample.VChannelMeta(v, id))
			yield(meta(vkey+"/schema/"+strconv.FormatUint(created, 10)), sample.Schema(col.Name))
		}
		info := col.Encode()
		if c%100 == 7 {
			yield(meta(models.LegacyCollectionKey(id)), info)
		} else {
			yield(meta(models.CollectionInfoKey(1, id)), info)
			if c%10 == 3 {
				yield(meta(models.SnapshotCollectionInfo+"1/"+strconv.FormatInt(id, 10)+"_ts"+strconv.FormatUint(created, 10)), info)
			}
		}
		yield(meta(models.QueryTargetKey(id)), sample.Target(id, vchans, positions))
	}

	for i := 0; i < cfg.segments; i++ {
		c := i % cfg.collections
		s := (i / cfg.collections) % cfg.shards
		v, _ := vch(c, s)
		yield(meta(segmentKey(c, i)), segmentValue(wal, c, i, v))
	}

	for i := 1; i <= 3; i++ {
		yield(meta(models.BroadcastTaskPrefix+strconv.Itoa(i)), sample.BroadcastTask(int32(models.BroadcastTombstone)))
	}
	yield(meta(models.SessionIDKey), []byte("42"))
	yield(layout.Root("kv/gid/idTimestamp"), []byte(strconv.FormatUint(ts(9000), 10)))
}

func segmentKey(c, i int) string {
	id := collectionBase + int64(c)
	return models.SegmentKey(id, id+1, segmentBase+int64(i))
}

func segmentValue(wal commonpb.WALName, c, i int, v string) []byte {
	id := collectionBase + int64(c)
	state := commonpb.SegmentState_Flushed
	if i%10 == 9 {
		state = commonpb.SegmentState_Dropped
	}
	minute := i % 5000
	start := sample.Position(v, sample.ID(wal, int64(i%100000)), sample.TSO(sample.Base.Add(time.Duration(minute)*time.Minute), 0), commonpb.WALName_Unknown)
	dml := sample.Position(v, sample.ID(wal, int64(i%100000+1)), sample.TSO(sample.Base.Add(time.Duration(minute+1)*time.Minute), 0), commonpb.WALName_Unknown)
	return sample.Segment{ID: segmentBase + int64(i), Collection: id, Partition: id + 1, Channel: v,
		Rows: 100000 + int64(i%5000), State: state, Start: start, DML: dml, Level: 2}.Encode()
}

// seed generates the instance and writes it with writers concurrent writers.
func seed(ctx context.Context, cli *clientv3.Client, cfg config, writers, txnOps int) error {
	start := time.Now()
	batches := make(chan []clientv3.Op, writers*2)
	var keys, bytes atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	failed := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ops := range batches {
				if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
					once.Do(func() { firstErr = err; close(failed) })
					for range batches {
					}
					return
				}
			}
		}()
	}
	ops := make([]clientv3.Op, 0, txnOps)
	size := 0
	stopped := false
	flush := func() {
		if len(ops) == 0 || stopped {
			return
		}
		select {
		case batches <- ops:
		case <-failed:
			stopped = true
		}
		ops, size = make([]clientv3.Op, 0, txnOps), 0
	}
	generate(cfg, func(k string, v []byte) {
		if stopped {
			return
		}
		if len(ops) > 0 && size+len(k)+len(v) > 1<<20 {
			flush()
		}
		ops = append(ops, clientv3.OpPut(k, string(v)))
		size += len(k) + len(v)
		keys.Add(1)
		bytes.Add(int64(len(k) + len(v)))
		if len(ops) == txnOps {
			flush()
		}
	})
	flush()
	close(batches)
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("seed: %w", firstErr)
	}
	sec := time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"keys": keys.Load(), "bytes": bytes.Load(), "seconds": round(sec), "keys_per_second": round(float64(keys.Load()) / sec),
	})
}

// raw writes n segment-shaped keys under prefix in transactions of txnOps
// plain puts, inflight of them in flight at a time (1: one after the
// other). Every key and value is built before the clock starts, so the loop
// measures etcd and the client's framing only, as heron's write pass does
// (it writes values it built during its scan). The values are a segment's
// after a switch to woodpecker: the size of what heron writes. With compare,
// each transaction carries a mod-revision compare per key (read before the
// clock starts), as heron's guarded transactions do.
func raw(ctx context.Context, cli *clientv3.Client, prefix string, n, txnOps, inflight int, compare bool) error {
	if n <= 0 {
		return fmt.Errorf("raw: --keys must be positive")
	}
	if inflight < 1 {
		return fmt.Errorf("raw: --inflight must be at least 1")
	}
	const collections = 10000
	v := "bench-raw-rootcoord-dml_0_" + strconv.FormatInt(collectionBase, 10) + "v0"
	keys := make([]string, n)
	// Distinct values, cycled: the keys are all written, the values need
	// only be the right size.
	values := make([]string, min(n, 4096))
	var valueBytes int64
	for i := range keys {
		keys[i] = prefix + segmentKey(i%collections, i)
		if i < len(values) {
			values[i] = string(segmentValue(commonpb.WALName_WoodPecker, i%collections, i, v))
		}
		valueBytes += int64(len(values[i%len(values)]))
	}
	var revs []int64
	if compare {
		var err error
		if revs, err = modRevisions(ctx, cli, keys); err != nil {
			return err
		}
	}
	txns := (n + txnOps - 1) / txnOps
	next := make(chan int, txns)
	for t := 0; t < txns; t++ {
		next <- t
	}
	close(next)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	start := time.Now()
	for w := 0; w < inflight; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ops := make([]clientv3.Op, 0, txnOps)
			cmps := make([]clientv3.Cmp, 0, txnOps)
			for t := range next {
				ops, cmps = ops[:0], cmps[:0]
				for i := t * txnOps; i < min(n, (t+1)*txnOps); i++ {
					ops = append(ops, clientv3.OpPut(keys[i], values[i%len(values)]))
					if compare {
						cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(keys[i]), "=", revs[i]))
					}
				}
				resp, err := cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
				if err == nil && !resp.Succeeded {
					err = fmt.Errorf("transaction %d: a compared key changed since it was read (another writer?)", t)
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("raw: %w", firstErr)
	}
	sec := time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"keys": n, "txns": txns, "inflight": inflight, "compare": compare, "value_bytes": valueBytes / int64(n),
		"seconds": round(sec), "keys_per_second": round(float64(n) / sec),
	})
}

// modRevisions reads the mod revision of each key (0: absent) at one
// revision, a range of up to 10,000 keys at a time.
func modRevisions(ctx context.Context, cli *clientv3.Client, keys []string) ([]int64, error) {
	idx := make(map[string]int, len(keys))
	for i, k := range keys {
		idx[k] = i
	}
	sorted := slices.Sorted(maps.Keys(idx))
	revs := make([]int64, len(keys))
	var rev int64
	for from := 0; from < len(sorted); {
		to := min(from+10000, len(sorted))
		opts := []clientv3.OpOption{clientv3.WithRange(sorted[to-1] + "\x00"), clientv3.WithKeysOnly()}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := cli.Get(ctx, sorted[from], opts...)
		if err != nil {
			return nil, fmt.Errorf("raw: read the mod revisions: %w", err)
		}
		rev = resp.Header.Revision
		for _, kv := range resp.Kvs {
			if i, ok := idx[string(kv.Key)]; ok {
				revs[i] = kv.ModRevision
			}
		}
		from = to
	}
	return revs, nil
}

func round(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// read is the raw read loop (see the package comment).
func read(ctx context.Context, cli *clientv3.Client, root string, segments, collections int) error {
	layout := models.NewLayout(root, "meta")
	segPrefix := layout.Meta(models.SegmentPrefix)
	start := time.Now()
	var keys, requests, rev int64
	get := func(from, to string) (*clientv3.GetResponse, error) {
		opts := []clientv3.OpOption{clientv3.WithRange(to)}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := cli.Get(ctx, from, opts...)
		if err == nil {
			keys += int64(len(resp.Kvs))
			requests++
		}
		return resp, err
	}
	first, err := get(layout.Root(""), segPrefix)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	rev = first.Header.Revision
	per := max(1, 10000*collections/max(1, segments))
	for c := 0; c < collections; c += per {
		from := segPrefix + strconv.FormatInt(collectionBase+int64(c), 10)
		if c == 0 {
			from = segPrefix
		}
		to := segPrefix + strconv.FormatInt(collectionBase+int64(c+per), 10)
		if c+per >= collections {
			to = clientv3.GetPrefixRangeEnd(segPrefix)
		}
		if _, err := get(from, to); err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
	if _, err := get(clientv3.GetPrefixRangeEnd(segPrefix), clientv3.GetPrefixRangeEnd(layout.Root(""))); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	sec := time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"keys": keys, "requests": requests, "seconds": round(sec), "keys_per_second": round(float64(keys) / sec),
	})
}
