package sample

import (
	"fmt"
	"iter"
	"sort"
	"strconv"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
)

// Instance is a sample Milvus instance: every key and value to seed, keys
// absolute. Its callers write it (KeyValues); tests read it to know what to expect.
type Instance struct {
	Layout      models.Layout
	WAL         commonpb.WALName
	PChannels   []string
	VChannels   []string
	Collections []int64
	KVs         map[string][]byte
}

// Keys returns the instance's keys, sorted.
func (in *Instance) Keys() []string {
	keys := make([]string, 0, len(in.KVs))
	for k := range in.KVs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (in *Instance) put(rel string, v []byte) { in.KVs[in.Layout.Meta(rel)] = v }

// Build returns the demo instance with positions encoded for wal:
//   - pchannels dml_0, dml_1, dml_2, each with a consume checkpoint (dml_2's
//     carries a replicate_checkpoint, dml_1's a field from a later Milvus);
//   - "books" (db 1, new layout, 2 shards on dml_0 and dml_1, channel-cps,
//     Flushed and Dropped segments, a snapshot copy);
//   - "movies" (legacy layout, dml_1, no channel-cp: the seek position falls
//     back to its segments);
//   - "logs" (db 1, dml_2, no channel-cp and no segments: the collection start);
//   - a dropped collection: tombstone, dropped channel-cp marker, removal marker;
//   - query targets (one orphan), channel-removal markers, vchannel schemas,
//     a tombstone broadcast task, the session id counter and no live session.
func Build(layout models.Layout, wal commonpb.WALName) *Instance {
	in := &Instance{Layout: layout, WAL: wal, KVs: map[string][]byte{}}
	root := layout.RootPath
	p := func(i int) string { return fmt.Sprintf("%s-rootcoord-dml_%d", root, i) }
	in.PChannels = []string{p(0), p(1), p(2)}
	ts := func(minutes int) uint64 { return TSO(Base.Add(time.Duration(minutes)*time.Minute), 0) }

	for i, pc := range in.PChannels {
		cp := Checkpoint{ID: ID(wal, int64(50+i)), TimeTick: ts(60 + i), RecoveryMagic: 1}
		switch i {
		case 1:
			cp.Extra = LaterCheckpointField
		case 2:
			cp.Replicate = true
		}
		in.put(models.ConsumeCheckpointKey(pc), cp.Encode())
		in.put(models.PChannelPrefix+pc, PChannel(pc, int64(i+1)))
	}

	type shard struct {
		v, p string
	}
	coll := func(id, db int64, name string, legacy bool, shards []shard, created int) {
		c := Collection{ID: id, DB: db, Name: name, CreateTime: ts(created)}
		for n, s := range shards {
			c.VChannels = append(c.VChannels, s.v)
			c.PChannels = append(c.PChannels, s.p)
			c.Starts = append(c.Starts, ID(wal, id+int64(n)).Bytes())
			in.VChannels = append(in.VChannels, s.v)
			in.put(models.ChannelRemovalPrefix+s.v, []byte("non-removed"))
			vkey := models.WALPrefix + s.p + "/vchannel/" + s.v
			in.put(vkey, VChannelMeta(s.v, id))
			in.put(vkey+"/schema/"+strconv.FormatUint(c.CreateTime, 10), Schema(name))
		}
		in.Collections = append(in.Collections, id)
		if legacy {
			in.put(models.LegacyCollectionKey(id), c.Encode())
		} else {
			in.put(models.CollectionInfoKey(db, id), c.Encode())
		}
	}
	books := []shard{{p(0) + "_100v0", p(0)}, {p(1) + "_100v1", p(1)}}
	coll(100, 1, "books", false, books, 1)
	in.put(models.SnapshotCollectionInfo+"1/100_ts"+strconv.FormatUint(ts(1), 10), in.KVs[layout.Meta(models.CollectionInfoKey(1, 100))])
	coll(200, 0, "movies", true, []shard{{p(1) + "_200v0", p(1)}}, 2)
	coll(300, 1, "logs", false, []shard{{p(2) + "_300v0", p(2)}}, 3)

	for n, v := range books {
		in.put(models.ChannelCPKey(v.v), Position(v.v, ID(wal, int64(40+n)), ts(55), commonpb.WALName_Unknown))
	}
	seg := func(id, collection int64, ch string, state commonpb.SegmentState, minute int) {
		pos := Position(ch, ID(wal, id%100), ts(minute), commonpb.WALName_Unknown)
		dml := Position(ch, ID(wal, id%100+1), ts(minute+1), commonpb.WALName_Unknown)
		in.put(models.SegmentKey(collection, collection+1, id), Segment{
			ID: id, Collection: collection, Partition: collection + 1, Channel: ch,
			Rows: 1000 + id, State: state, Start: pos, DML: dml, Level: 2,
		}.Encode())
	}
	seg(1001, 100, books[0].v, commonpb.SegmentState_Flushed, 10)
	seg(1002, 100, books[1].v, commonpb.SegmentState_Flushed, 11)
	seg(1003, 100, books[0].v, commonpb.SegmentState_Dropped, 12)
	seg(2001, 200, p(1)+"_200v0", commonpb.SegmentState_Flushed, 20)
	seg(2002, 200, p(1)+"_200v0", commonpb.SegmentState_Dropped, 5)
	in.put("datacoord-meta/statslog/100/101/1001/100/1", []byte("statslog-path"))
	in.put("datacoord-meta/binlog/100/101/1001/101", []byte("binlog-path"))

	// A dropped collection: tombstone, dropped-channel marker, removal marker.
	dropped := p(0) + "_400v0"
	in.put(models.CollectionInfoKey(1, 400), models.CollectionTombstone)
	in.put(models.ChannelCPKey(dropped), DroppedChannelCP(dropped))
	in.put(models.ChannelRemovalPrefix+dropped, []byte("removed"))

	in.put(models.QueryTargetKey(100), Target(100, []string{books[0].v, books[1].v},
		[][]byte{Position(books[0].v, ID(wal, 40), ts(55), 0), Position(books[1].v, ID(wal, 41), ts(55), 0)}))
	in.put(models.QueryTargetKey(200), Target(200, []string{p(1) + "_200v0"},
		[][]byte{Position(p(1)+"_200v0", ID(wal, 1), ts(21), 0)}))
	in.put(models.QueryTargetKey(999), Target(999, []string{p(2) + "_999v0"},
		[][]byte{Position(p(2)+"_999v0", ID(wal, 9), ts(4), 0)}))

	in.put(models.BroadcastTaskPrefix+"1", BroadcastTask(int32(models.BroadcastTombstone)))
	in.put(models.SessionIDKey, []byte("7"))
	in.KVs[layout.Root("kv/gid/idTimestamp")] = []byte(strconv.FormatUint(ts(90), 10))
	return in
}

// KeyValues yields every key (absolute) and value of the instance, in key
// order; the caller writes them (instance.Load).
func (in *Instance) KeyValues() iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		for _, k := range in.Keys() {
			if !yield(k, in.KVs[k]) {
				return
			}
		}
	}
}
