package show

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// protosFile holds values marshaled by Milvus's own generated types (see
// tests/golden): the bytes a real instance stores.
const protosFile = "../../tests/golden/testdata/protos.json"

type protoVector struct {
	Type   string         `json:"type"`
	Name   string         `json:"name"`
	Hex    string         `json:"hex"`
	Fields map[string]any `json:"fields"`
}

func loadProtos(t *testing.T) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(protosFile)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s not generated yet", protosFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	var vs []protoVector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatalf("%s: %v", protosFile, err)
	}
	out := map[string][]byte{}
	for _, v := range vs {
		raw, err := hex.DecodeString(v.Hex)
		if err != nil {
			t.Fatalf("%s %s: %v", v.Type, v.Name, err)
		}
		out[v.Type+"/"+v.Name] = raw
	}
	return out
}

// The names and times of tests/golden/protos.go.
const (
	gColl  = 451234567890123456
	gPart  = 451234567890123457
	gSeg   = 451234567890123460
	gSeg2  = 451234567890123461
	gPch0  = "by-dev-rootcoord-dml_0"
	gPch1  = "by-dev-rootcoord-dml_1"
	gVch0  = "by-dev-rootcoord-dml_0_451234567890123456v0"
	gVch1  = "by-dev-rootcoord-dml_1_451234567890123456v1"
	gTime1 = "2025-03-20T23:03:16.362Z" // ts1 456789012345671680
	gTime2 = "2025-03-20T23:03:17.362Z" // ts2 456789012607815680
)

// An instance made only of values marshaled by Milvus's own types is shown
// correctly: positions decoded, levels resolved, split detected.
func TestShowGoldenMilvusBytes(t *testing.T) {
	vecs := loadProtos(t)
	get := func(key string) []byte {
		v, ok := vecs[key]
		if !ok {
			t.Fatalf("%s has no vector %s", protosFile, key)
		}
		return v
	}
	cli, endpoint := etcdtest.Start(t)
	layout := models.NewLayout("by-dev", "meta")
	e := &env{t: t, cli: cli, inst: instance.New(cli, layout, []string{endpoint})}
	e.put(models.ConsumeCheckpointKey(gPch0), get("streamingpb.WALCheckpoint/pulsar_minimal"))
	e.put(models.ConsumeCheckpointKey(gPch1), get("streamingpb.WALCheckpoint/pulsar_all_fields"))
	e.put(models.ConsumeCheckpointKey("by-dev-rootcoord-dml_5"), get("streamingpb.WALCheckpoint/kafka_offset_0"))
	e.put(models.PChannelPrefix+gPch0, get("streamingpb.PChannelMeta/assigned"))
	e.put(models.CollectionInfoKey(1, gColl), get("etcdpb.CollectionInfo/two_shards_pulsar"))
	e.put(models.SegmentKey(gColl, gPart, gSeg), get("datapb.SegmentInfo/flushed"))
	e.put(models.SegmentKey(gColl, gPart, gSeg2), get("datapb.SegmentInfo/growing"))
	e.put(models.BroadcastTaskPrefix+"10", get("streamingpb.BroadcastTask/pending"))
	e.put(models.BroadcastTaskPrefix+"11", get("streamingpb.BroadcastTask/tombstone"))

	res, stderr := runJSON[CheckpointResult](e, "show checkpoint")
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	ps := pchannelsByName(res)
	p0, p1, p5 := ps[gPch0], ps[gPch1], ps["by-dev-rootcoord-dml_5"]
	if p0.WAL != "pulsar" || p0.MessageIDHuman != "123456789:42:0:-1" || p0.TimeTick != 456789012607815680 || p0.Time != gTime2 ||
		p0.ReplicateCheckpoint || !p0.InMeta {
		t.Errorf("pulsar_minimal checkpoint: %+v", p0)
	}
	if p1.WAL != "pulsar" || p1.MessageIDHuman != "123456789:42:0:-1" || !p1.ReplicateCheckpoint || p1.ReplicateCluster != "source-cluster" {
		t.Errorf("pulsar_all_fields checkpoint: %+v", p1)
	}
	if p5.WAL != "kafka" || p5.MessageIDHuman != "0" || p5.MessageID != "0" {
		t.Errorf("kafka checkpoint: %+v", p5)
	}
	// pulsar_all_fields carries Milvus's alter_wal_state (field 6).
	if a := p1.AlterWAL; a == nil || a.Target != "kafka" || a.Stage != "ADVANCE_CHECKPOINT" || !a.Interrupted ||
		a.Description != "online switch to kafka, stage ADVANCE_CHECKPOINT" || len(p1.UnknownFields) != 0 {
		t.Errorf("pulsar_all_fields alter_wal: %+v (unknown fields %v)", a, p1.UnknownFields)
	}
	if p0.AlterWAL != nil || p5.AlterWAL != nil {
		t.Errorf("alter_wal set on checkpoints without field 6: %+v %+v", p0.AlterWAL, p5.AlterWAL)
	}
	vs := vchannelsByName(res)
	// vch0 has no channel-cp: the Flushed segment's dml_position (ts2) is
	// earlier than the Growing one's (ts3).
	if v := vs[gVch0]; v.Level != "segment" || v.SourceKey != models.SegmentKey(gColl, gPart, gSeg) || v.MessageIDHuman != "123456789:42:0:-1" ||
		v.Time != gTime2 || v.WAL != "pulsar" || !v.WALGuessed || v.CollectionName != "heron_golden" {
		t.Errorf("vch0: %+v", v)
	}
	if v := vs[gVch1]; v.Level != "collection-start" || v.MessageIDHuman != "101:0:0:-1" || v.Time != gTime1 {
		t.Errorf("vch1: %+v", v)
	}

	// Channel-cps as datacoord writes them: a pulsar one tagged Pulsar, and a dropped marker.
	e.put(models.ChannelCPKey(gVch0), get("msgpb.MsgPosition/pulsar"))
	e.put(models.ChannelCPKey(gVch1), get("msgpb.MsgPosition/dropped_channel_cp"))
	res, _ = runJSON[CheckpointResult](e, "show checkpoint")
	vs = vchannelsByName(res)
	if v := vs[gVch0]; v.Level != "channel-cp" || v.MessageIDHuman != "100:5:0:-1" || v.WAL != "pulsar" || v.WALGuessed || v.Time != gTime1 {
		t.Errorf("vch0 with channel-cp: %+v", v)
	}
	if v := vs[gVch1]; !v.Dropped || v.Level != "collection-start" {
		t.Errorf("vch1 with dropped marker: %+v", v)
	}
	if len(res.SplitPChannels) != 0 {
		t.Errorf("split %v", res.SplitPChannels)
	}

	// A woodpecker channel-cp on a pulsar pchannel: a split.
	e.put(models.ChannelCPKey(gVch0), get("msgpb.MsgPosition/woodpecker_s3_e12"))
	res, stderr = runJSON[CheckpointResult](e, "show checkpoint")
	if len(res.SplitPChannels) != 1 || res.SplitPChannels[0] != gPch0 || !strings.Contains(stderr, "SPLIT STATE") {
		t.Errorf("split: %v\n%s", res.SplitPChannels, stderr)
	}
	if v := vchannelsByName(res)[gVch0]; v.WAL != "woodpecker" || v.MessageIDHuman != "3:12" {
		t.Errorf("woodpecker channel-cp: %+v", v)
	}

	segs, _ := runJSON[SegmentResult](e, "show segment")
	if segs.Total != 2 || segs.Counts["Flushed"] != 1 || segs.Counts["Growing"] != 1 {
		t.Fatalf("segments: %+v", segs)
	}
	for _, s := range segs.Segments {
		if s.Collection != gColl || s.Partition != gPart || s.VChannel != gVch0 || s.Level != "L1" {
			t.Errorf("segment %+v", s)
		}
		if s.StartPosition == nil || s.StartPosition.MessageIDHuman != "100:5:0:-1" || s.StartPosition.Time != gTime1 {
			t.Errorf("segment %d start: %+v", s.ID, s.StartPosition)
		}
	}
	if s := segs.Segments[0]; s.ID != gSeg || s.Rows != 3000 || s.State != "Flushed" || s.DMLPosition.MessageIDHuman != "123456789:42:0:-1" {
		t.Errorf("flushed: %+v", s)
	}
	if s := segs.Segments[1]; s.ID != gSeg2 || s.Rows != 120 || s.State != "Growing" || s.DMLPosition.MessageIDHuman != "123456789:50:0:-1" {
		t.Errorf("growing: %+v", s)
	}

	colls, _ := runJSON[CollectionsResult](e, "show collections")
	if len(colls.Collections) != 1 {
		t.Fatalf("collections: %+v", colls)
	}
	c := colls.Collections[0]
	if c.ID != gColl || c.DB != 1 || c.Name != "heron_golden" || c.Shards != 2 || c.State != "Created" || c.Time != gTime1 ||
		len(c.StartPositions) != 2 || c.StartPositions[0].MessageIDHuman != "100:5:0:-1" || c.StartPositions[1].MessageIDHuman != "101:0:0:-1" {
		t.Errorf("collection: %+v", c)
	}

	bts, _ := runJSON[BroadcastResult](e, "show broadcast-task")
	if len(bts.Tasks) != 2 || bts.Tasks[0].State != "Pending" || !bts.Tasks[0].InFlight || bts.Tasks[0].AckedCheckpoints != 2 ||
		bts.Tasks[1].State != "Tombstone" || bts.Tasks[1].InFlight || bts.Tasks[1].AckedCheckpoints != 2 {
		t.Errorf("broadcast tasks: %+v", bts.Tasks)
	}
}

// Consume checkpoints as Milvus's own online switch writes them (kafka -2,
// rocksmq -1; Milvus's streamingpb types) decode and show, with no error and
// no split; alter_wal_state in each stage is shown.
func TestShowGoldenOnlineSwitchCheckpoints(t *testing.T) {
	vecs := loadProtos(t)
	cli, endpoint := etcdtest.Start(t)
	e := &env{t: t, cli: cli, inst: instance.New(cli, models.NewLayout("by-dev", "meta"), []string{endpoint})}
	checkpoints := map[string]string{
		"by-dev-rootcoord-dml_0": "kafka_offset_beginning",
		"by-dev-rootcoord-dml_1": "rocksmq_earliest_negative",
		"by-dev-rootcoord-dml_2": "pulsar_alter_wal_state_flushing_kafka",
		"by-dev-rootcoord-dml_3": "pulsar_alter_wal_state_none_woodpecker",
		"by-dev-rootcoord-dml_4": "pulsar_all_fields_without_alter_wal_state",
	}
	for pc, name := range checkpoints {
		v, ok := vecs["streamingpb.WALCheckpoint/"+name]
		if !ok {
			t.Fatalf("no golden checkpoint %s", name)
		}
		e.put(models.ConsumeCheckpointKey(pc), v)
	}
	res, stderr := runJSON[CheckpointResult](e, "show checkpoint")
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	ps := pchannelsByName(res)
	for pc, want := range map[string]struct{ wal, id, alter string }{
		"by-dev-rootcoord-dml_0": {"kafka", "-2", ""},
		"by-dev-rootcoord-dml_1": {"rocksmq", "-1", ""},
		"by-dev-rootcoord-dml_2": {"pulsar", "123456789:42:0:-1", "online switch to kafka, stage FLUSHING"},
		"by-dev-rootcoord-dml_3": {"pulsar", "123456789:42:0:-1", "online switch to woodpecker, stage NONE"},
		"by-dev-rootcoord-dml_4": {"pulsar", "123456789:42:0:-1", ""},
	} {
		p := ps[pc]
		if p.WAL != want.wal || p.MessageIDHuman != want.id || p.Error != "" || p.Split {
			t.Errorf("%s (%s): %+v", pc, checkpoints[pc], p)
		}
		alter := ""
		if p.AlterWAL != nil {
			alter = p.AlterWAL.Description
		}
		if alter != want.alter {
			t.Errorf("%s alter_wal %q, want %q", pc, alter, want.alter)
		}
	}
}
