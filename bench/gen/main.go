// Command gen writes a large, realistic Milvus 2.6 meta root into etcd for the
// benchmark and the fault tests, and times a raw etcd write loop to compare
// heron with:
//
//	gen seed --etcd HOST:PORT [--rootPath by-dev] [--wal pulsar] [--segments 1000000]
//	         [--collections 10000] [--shards 2] [--pchannels 64] [--writers 4] [--txn-ops 128]
//	gen raw  --etcd HOST:PORT --keys N [--prefix bench-raw/] [--txn-ops 128] [--inflight 1] [--compare]
//	gen count --etcd HOST:PORT [--prefix P]
//	gen read --etcd HOST:PORT [--rootPath by-dev] [--segments N] [--collections N] [--repair NAME]
//	gen findings --etcd HOST:PORT [--rootPath by-dev] [--collections N] [--shards 2] [--pchannels 64]
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
// keys/s: the floor heron's reads are compared with. With --repair NAME
// (one of findings' names) it reads instead, the same plain way, every range
// that repair's dry run reads: the write gates' (the streaming markers
// counted, the sessions, the broadcast tasks) and the repair's own.
//
// findings gives a seeded instance one thing for each repair to repair
// (a vchannel registration deleted, a vchannel's schema keys deleted, a
// replicating pchannel of a cluster not configured; the broadcast task and
// the channel checkpoint need none) and prints one line per repair: its
// name, a tab, its command (a dry run).
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
	"syscall"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/tests/sampletest"
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
		return fmt.Errorf("usage: gen seed|raw|count|read|findings [flags]")
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
	repairName := fs.String("repair", "", "read what this repair reads (read)")
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
		if *repairName != "" {
			cfg := config{root: *root, segments: *segments, collections: *collections, shards: *shards, pchannels: *pchannels}
			return readRepair(ctx, cli, cfg, *repairName)
		}
		return read(ctx, cli, *root, *segments, *collections)
	case "findings":
		cfg := config{root: *root, collections: *collections, shards: *shards, pchannels: *pchannels}
		return findings(ctx, cli, cfg)
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

func (cfg config) pchannel(i int) string { return fmt.Sprintf("%s-rootcoord-dml_%d", cfg.root, i) }

// vchannel is shard s of collection c, and its pchannel.
func (cfg config) vchannel(c, s int) (v, p string) {
	p = cfg.pchannel((c*cfg.shards + s) % cfg.pchannels)
	return fmt.Sprintf("%s_%dv%d", p, collectionBase+int64(c), s), p
}

// generate yields every key of the instance, in a fixed order.
func generate(cfg config, yield func(k string, v []byte)) {
	layout := models.NewLayout(cfg.root, "meta")
	meta := layout.Meta
	wal := cfg.wal
	ts := func(minutes int) uint64 { return sample.TSO(sample.Base.Add(time.Duration(minutes)*time.Minute), 0) }
	pch := cfg.pchannel

	for i := 0; i < cfg.pchannels; i++ {
		p := pch(i)
		cp := sample.Checkpoint{ID: sample.ID(wal, int64(5000+i)), TimeTick: ts(6000 + i), RecoveryMagic: 1, Replicate: i%16 == 3}
		yield(meta(models.ConsumeCheckpointKey(p)), cp.Encode())
		yield(meta(models.PChannelPrefix+p), sample.PChannel(p, int64(i+1)))
	}

	vch := cfg.vchannel
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
	cpu0 := cpuSeconds()
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
		"seconds": round(sec), "keys_per_second": round(float64(n) / sec), "cpu_seconds": round(cpuSeconds() - cpu0),
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

// reader reads ranges at the revision of its first read, counting keys and
// requests.
type reader struct {
	ctx                 context.Context
	cli                 *clientv3.Client
	keys, requests, rev int64
}

// get reads [from, to) whole; to "" reads the key from alone; count reads
// only the number of keys.
func (r *reader) get(from, to string, count bool) error {
	var opts []clientv3.OpOption
	if to != "" {
		opts = append(opts, clientv3.WithRange(to))
	}
	if count {
		opts = append(opts, clientv3.WithCountOnly())
	}
	if r.rev > 0 {
		opts = append(opts, clientv3.WithRev(r.rev))
	}
	resp, err := r.cli.Get(r.ctx, from, opts...)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	r.rev = resp.Header.Revision
	r.keys += int64(len(resp.Kvs))
	r.requests++
	return nil
}

// segments reads the segment prefix in windows of whole collections of
// about 10,000 keys.
func (r *reader) segments(segPrefix string, segments, collections int) error {
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
		if err := r.get(from, to, false); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) print(start time.Time, cpu0 float64) error {
	sec := time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"keys": r.keys, "requests": r.requests, "seconds": round(sec), "keys_per_second": round(float64(r.keys) / sec),
		"cpu_seconds": round(cpuSeconds() - cpu0),
	})
}

// cpuSeconds is the CPU time (user and system) this process has used: the
// bench sets a raw pass's CPU from its clock's start beside heron's for the
// same work.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// read is the raw read loop (see the package comment).
func read(ctx context.Context, cli *clientv3.Client, root string, segments, collections int) error {
	layout := models.NewLayout(root, "meta")
	segPrefix := layout.Meta(models.SegmentPrefix)
	start := time.Now()
	cpu0 := cpuSeconds()
	r := &reader{ctx: ctx, cli: cli}
	if err := r.get(layout.Root(""), segPrefix, false); err != nil {
		return err
	}
	if err := r.segments(segPrefix, segments, collections); err != nil {
		return err
	}
	if err := r.get(clientv3.GetPrefixRangeEnd(segPrefix), clientv3.GetPrefixRangeEnd(layout.Root("")), false); err != nil {
		return err
	}
	return r.print(start, cpu0)
}

// rangeRead is one read of a repair, relative to the meta root: a key, or
// a whole prefix, or its count only; the segment prefix is read in windows.
type rangeRead struct {
	rel           string
	prefix, count bool
}

func key(rel string) rangeRead    { return rangeRead{rel: rel} }
func prefix(rel string) rangeRead { return rangeRead{rel: rel, prefix: true} }
func count(rel string) rangeRead  { return rangeRead{rel: rel, prefix: true, count: true} }

// repairCase is a repair the bench times: its dry run's command and the
// ranges it reads.
type repairCase struct {
	name, command string
	reads         []rangeRead
}

// The findings' vchannels and the stale replication's cluster.
const staleCluster = "old-dr"

func (cfg config) checkpointVChannel() (string, string)   { return cfg.vchannel(0, 0) }
func (cfg config) registrationVChannel() (string, string) { return cfg.vchannel(1, 0) }
func (cfg config) recoveryVChannel() (string, string)     { return cfg.vchannel(2, 0) }

// repairCases are the five repairs on the instance findings prepared, each
// with what its dry run reads (states/repair, states/remove, states/gates):
// the write gates read the same for all.
func repairCases(cfg config) []repairCase {
	gates := []rangeRead{prefix(models.SessionPrefix), prefix(models.BroadcastTaskPrefix), prefix(models.SessionPrefix)}
	for _, m := range models.StreamingMarkers {
		gates = append(gates, count(m))
	}
	collections := []rangeRead{prefix(models.CollectionInfoPrefix), prefix(models.LegacyCollectionPrefix)}
	rootcoord := func(c int) []rangeRead {
		id := collectionBase + int64(c)
		return []rangeRead{prefix(models.PartitionPrefixOf(id)), prefix(models.FieldPrefixOf(id)),
			prefix(models.StructArrayFieldPrefixOf(id)), prefix(models.FunctionPrefixOf(id))}
	}
	cpV, cpP := cfg.checkpointVChannel()
	regV, regP := cfg.registrationVChannel()
	cases := []repairCase{
		{"repair wal-broadcast-task", "repair wal-broadcast-task --id 1 --mode remove --force", []rangeRead{key(models.BroadcastTaskKey(1))}},
		{"repair checkpoint", "repair checkpoint --vchannel " + cpV + " --set-to pchannel-cp",
			append(slices.Clone(collections), key(models.ChannelCPKey(cpV)), key(models.ConsumeCheckpointKey(cpP)), prefix(models.SegmentPrefix))},
		{"repair vchannel-registration", "repair vchannel-registration --vchannel " + regV,
			slices.Concat([]rangeRead{key(models.ConsumeCheckpointKey(regP)), key(models.VChannelMetaKey(regP, regV)), key(models.ChannelCPKey(regV))},
				collections, []rangeRead{count(models.VChannelSchemaPrefix(regP, regV))}, rootcoord(1))},
		{"repair wal-recovery-storage", "repair wal-recovery-storage", slices.Concat([]rangeRead{prefix(models.WALPrefix)}, collections, rootcoord(2))},
		{"remove replicate-pchannel", "remove replicate-pchannel --target-cluster " + staleCluster + " --source-channel " + cfg.pchannel(3),
			[]rangeRead{prefix(models.ReplicateConfiguration), prefix(models.ReplicatingPChannel)}},
	}
	for i := range cases {
		cases[i].reads = append(slices.Clone(gates), cases[i].reads...)
	}
	return cases
}

// findings prepares a seeded instance for the repairs (see the package
// comment) and prints their commands.
func findings(ctx context.Context, cli *clientv3.Client, cfg config) error {
	meta := models.NewLayout(cfg.root, "meta").Meta
	regV, regP := cfg.registrationVChannel()
	recV, recP := cfg.recoveryVChannel()
	src := cfg.pchannel(3)
	_, err := cli.Txn(ctx).Then(
		clientv3.OpDelete(meta(models.VChannelMetaKey(regP, regV))),
		clientv3.OpDelete(meta(models.VChannelSchemaPrefix(recP, recV)), clientv3.WithPrefix()),
		clientv3.OpPut(meta(models.ReplicatingPChannelKey(staleCluster, src)), string(sampletest.ReplicatingPChannel(src, staleCluster+"-rootcoord-dml_0", staleCluster))),
	).Commit()
	if err != nil {
		return fmt.Errorf("findings: %w", err)
	}
	for _, c := range repairCases(cfg) {
		fmt.Printf("%s\t%s\n", c.name, c.command)
	}
	return nil
}

// readRepair reads what the repair name reads (see the package comment).
func readRepair(ctx context.Context, cli *clientv3.Client, cfg config, name string) error {
	i := slices.IndexFunc(repairCases(cfg), func(c repairCase) bool { return c.name == name })
	if i < 0 {
		return fmt.Errorf("read: --repair %q: no such repair", name)
	}
	meta := models.NewLayout(cfg.root, "meta").Meta
	start := time.Now()
	cpu0 := cpuSeconds()
	r := &reader{ctx: ctx, cli: cli}
	for _, rr := range repairCases(cfg)[i].reads {
		from := meta(rr.rel)
		var err error
		switch {
		case rr.rel == models.SegmentPrefix:
			err = r.segments(from, cfg.segments, cfg.collections)
		case rr.prefix:
			err = r.get(from, clientv3.GetPrefixRangeEnd(from), rr.count)
		default:
			err = r.get(from, "", false)
		}
		if err != nil {
			return err
		}
	}
	return r.print(start, cpu0)
}
