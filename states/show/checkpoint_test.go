package show

import (
	"encoding/base64"
	"encoding/hex"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
)

func vchannelsByName(r CheckpointResult) map[string]VChannelRow {
	m := map[string]VChannelRow{}
	for _, v := range r.VChannels {
		m[v.Name] = v
	}
	return m
}

func pchannelsByName(r CheckpointResult) map[string]PChannelRow {
	m := map[string]PChannelRow{}
	for _, p := range r.PChannels {
		m[p.Name] = p
	}
	return m
}

func TestShowCheckpointEveryWAL(t *testing.T) {
	for _, wal := range allWALs {
		t.Run(walN(wal), func(t *testing.T) {
			e := seeded(t, wal)
			res, stderr := runJSON[CheckpointResult](e, "show checkpoint")
			if strings.Contains(stderr, "warning") {
				t.Errorf("unexpected warnings on a consistent instance:\n%s", stderr)
			}
			vs := vchannelsByName(res)
			for _, v := range e.sample.VChannels {
				if _, ok := vs[v]; !ok {
					t.Errorf("vchannel %s missing from the JSON", v)
				}
			}
			// pchannels: every one of the sample, with its consume checkpoint.
			ps := pchannelsByName(res)
			if len(ps) != len(e.sample.PChannels) {
				t.Errorf("pchannels: got %d, want %d: %+v", len(ps), len(e.sample.PChannels), res.PChannels)
			}
			for i, name := range e.sample.PChannels {
				p, ok := ps[name]
				if !ok {
					t.Fatalf("pchannel %s missing", name)
				}
				id := sample.ID(wal, int64(50+i))
				want := PChannelRow{Name: name, WAL: walN(wal), MessageID: id.Text(), MessageIDHuman: id.Human(),
					TimeTick: ts(60 + i), Time: sample.Base.Add(time.Duration(60+i) * time.Minute).Format(time.RFC3339), ReplicateCheckpoint: i == 2}
				if p.WAL != want.WAL || p.MessageID != want.MessageID || p.MessageIDHuman != want.MessageIDHuman ||
					p.TimeTick != want.TimeTick || p.Time != want.Time || p.ReplicateCheckpoint != want.ReplicateCheckpoint {
					t.Errorf("pchannel %s:\n got %+v\nwant %+v", name, p, want)
				}
				if p.Split || !p.InMeta || !p.HasCheckpoint || p.Error != "" {
					t.Errorf("pchannel %s: split=%v in_meta=%v has_checkpoint=%v error=%q", name, p.Split, p.InMeta, p.HasCheckpoint, p.Error)
				}
				if p.WALCounts[walN(wal)] != 1 || len(p.WALCounts) != 1 {
					t.Errorf("pchannel %s: wal_counts %v, want only the checkpoint's %s", name, p.WALCounts, walN(wal))
				}
			}
			if got := ps[e.pch(0)].Time; got != "2026-11-30T09:00:00Z" {
				t.Errorf("time tick of dml_0 rendered %q", got)
			}
			if len(res.SplitPChannels) != 0 {
				t.Errorf("split_pchannels %v on a consistent instance", res.SplitPChannels)
			}

			books0, books1 := e.pch(0)+"_100v0", e.pch(1)+"_100v1"
			movies, logs := e.pch(1)+"_200v0", e.pch(2)+"_300v0"
			want := map[string]VChannelRow{
				books0: {Level: "channel-cp", SourceKey: models.ChannelCPKey(books0), MessageIDHuman: human(wal, 40), Timestamp: ts(55), Collection: 100},
				books1: {Level: "channel-cp", SourceKey: models.ChannelCPKey(books1), MessageIDHuman: human(wal, 41), Timestamp: ts(55), Collection: 100},
				// Segment 2001 (Flushed): dml_position, ID(2) at minute 21. The
				// Dropped segment 2002 has smaller timestamps and must be skipped.
				movies: {Level: "segment", SourceKey: models.SegmentKey(200, 201, 2001), MessageIDHuman: human(wal, 2), Timestamp: ts(21), Collection: 200},
				logs:   {Level: "collection-start", SourceKey: models.CollectionInfoKey(1, 300), MessageIDHuman: human(wal, 300), Timestamp: ts(3), Collection: 300},
			}
			for name, w := range want {
				got := vs[name]
				if got.Level != w.Level || got.SourceKey != w.SourceKey || got.MessageIDHuman != w.MessageIDHuman ||
					got.Timestamp != w.Timestamp || got.Collection != w.Collection {
					t.Errorf("vchannel %s:\n got %+v\nwant %+v", name, got, w)
				}
				if got.WAL != walN(wal) || !got.WALGuessed {
					t.Errorf("vchannel %s: wal %q guessed=%v, want %s guessed (positions carry WAL_name Unknown)", name, got.WAL, got.WALGuessed, walN(wal))
				}
				if got.PChannel != models.PChannelOf(name) || got.Dropped || got.Error != "" {
					t.Errorf("vchannel %s: %+v", name, got)
				}
				if got.Time != time.UnixMilli(int64(w.Timestamp>>18)).UTC().Format(time.RFC3339) {
					t.Errorf("vchannel %s: time %q", name, got.Time)
				}
			}
			if vs[books0].CollectionName != "books" || vs[movies].CollectionName != "movies" || vs[logs].CollectionState != "Created" {
				t.Errorf("collection names/states: %+v %+v %+v", vs[books0], vs[movies], vs[logs])
			}
			// The dropped collection's vchannel: listed as dropped, its marker is no seek position.
			dropped, ok := vs[e.pch(0)+"_400v0"]
			if !ok || !dropped.Dropped || dropped.Level != "none" || dropped.MessageIDHuman != "" {
				t.Errorf("dropped vchannel: %+v (present %v)", dropped, ok)
			}

			table, _ := e.mustRun("show checkpoint")
			for _, s := range []string{"PCHANNELS", "VCHANNELS", books0, "channel-cp", "segment", "collection-start",
				human(wal, 40), walN(wal) + " (guessed)", "2026-11-30T09:00:00Z", "dropped vchannel"} {
				if !strings.Contains(table, s) {
					t.Errorf("table lacks %q:\n%s", s, table)
				}
			}
			if strings.Contains(table, "SPLIT") {
				t.Errorf("table reports a split on a consistent instance:\n%s", table)
			}
			lines, _ := e.mustRun("show checkpoint --format line")
			if n := strings.Count(lines, "kind=vchannel "); n != len(res.VChannels) {
				t.Errorf("line format: %d vchannel lines, want %d:\n%s", n, len(res.VChannels), lines)
			}
			if !strings.Contains(lines, "kind=vchannel name="+movies+" ") || !strings.Contains(lines, "level=segment") {
				t.Errorf("line format:\n%s", lines)
			}
		})
	}
}

func TestShowCheckpointFilters(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	p1 := e.pch(1)
	res, _ := runJSON[CheckpointResult](e, "show checkpoint --pchannel "+p1)
	if len(res.PChannels) != 1 || res.PChannels[0].Name != p1 {
		t.Errorf("--pchannel: pchannels %+v", res.PChannels)
	}
	names := []string{}
	for _, v := range res.VChannels {
		names = append(names, v.Name)
	}
	if strings.Join(names, ",") != p1+"_100v1,"+p1+"_200v0" {
		t.Errorf("--pchannel: vchannels %v", names)
	}

	res, _ = runJSON[CheckpointResult](e, "show checkpoint --collection 100")
	names = names[:0]
	for _, v := range res.VChannels {
		names = append(names, v.Name)
	}
	if strings.Join(names, ",") != e.pch(0)+"_100v0,"+p1+"_100v1" {
		t.Errorf("--collection: vchannels %v", names)
	}
	if len(res.PChannels) != 2 || res.PChannels[0].Name != e.pch(0) || res.PChannels[1].Name != p1 {
		t.Errorf("--collection: pchannels %+v", res.PChannels)
	}

	res, _ = runJSON[CheckpointResult](e, "show checkpoint --collection 200 --pchannel "+p1)
	if len(res.VChannels) != 1 || res.VChannels[0].Level != "segment" {
		t.Errorf("--collection 200 --pchannel: %+v", res.VChannels)
	}

	for _, line := range []string{"show checkpoint --collection 12345", "show checkpoint --pchannel nosuch"} {
		if _, _, code, err := e.run(line); code != 1 {
			t.Errorf("%s: exit %d (%v), want 1", line, code, err)
		}
	}
	if _, _, code, _ := e.run("show checkpoint --collection abc"); code != 2 {
		t.Errorf("--collection abc: exit %d, want 2", code)
	}
}

// An interrupted reset: one channel-cp of a pulsar instance already says
// woodpecker while the consume checkpoint still says pulsar.
func TestShowCheckpointSplitState(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	v := e.pch(0) + "_100v0"
	e.put(models.ChannelCPKey(v), sample.Position(v, msgid.WoodpeckerID{}, ts(55), commonpb.WALName_WoodPecker))

	res, stderr := runJSON[CheckpointResult](e, "show checkpoint")
	if len(res.SplitPChannels) != 1 || res.SplitPChannels[0] != e.pch(0) {
		t.Fatalf("split_pchannels = %v, want [%s]", res.SplitPChannels, e.pch(0))
	}
	ps := pchannelsByName(res)
	p0 := ps[e.pch(0)]
	if !p0.Split || p0.WALCounts["pulsar"] != 1 || p0.WALCounts["woodpecker"] != 1 || len(p0.WALCounts) != 2 {
		t.Errorf("dml_0: split=%v wal_counts=%v", p0.Split, p0.WALCounts)
	}
	if ps[e.pch(1)].Split || ps[e.pch(2)].Split {
		t.Errorf("other pchannels reported split: %+v", res.PChannels)
	}
	vr := vchannelsByName(res)[v]
	if vr.WAL != "woodpecker" || vr.WALGuessed || vr.MessageIDHuman != "0:0" || vr.Level != "channel-cp" {
		t.Errorf("rewritten vchannel: %+v", vr)
	}
	if !strings.Contains(stderr, "SPLIT STATE") || !strings.Contains(stderr, e.pch(0)) {
		t.Errorf("no split warning on stderr:\n%s", stderr)
	}

	table, stderr := e.mustRun("show checkpoint")
	if !strings.Contains(table, "WARNING: SPLIT STATE") || !strings.Contains(table, e.pch(0)+": consume checkpoint in pulsar; positions by WAL: pulsar 1, woodpecker 1") {
		t.Errorf("table has no split block:\n%s", table)
	}
	if !strings.Contains(stderr, "SPLIT STATE") {
		t.Errorf("table run: no split warning on stderr:\n%s", stderr)
	}
	lines, _ := e.mustRun("show checkpoint --format line")
	if !strings.Contains(lines, "kind=split pchannel="+e.pch(0)) {
		t.Errorf("line format has no split record:\n%s", lines)
	}

	// Segment positions count too: tag one of movies' segments with kafka.
	seg := sample.Segment{ID: 2003, Collection: 200, Partition: 201, Channel: e.pch(1) + "_200v0", Rows: 1, State: commonpb.SegmentState_Dropped,
		Start: sample.Position(e.pch(1)+"_200v0", msgid.OffsetID{Of: commonpb.WALName_Kafka, Offset: 0}, ts(1), commonpb.WALName_Kafka)}
	e.put(models.SegmentKey(200, 201, 2003), seg.Encode())
	res, _ = runJSON[CheckpointResult](e, "show checkpoint --pchannel "+e.pch(1))
	if len(res.SplitPChannels) != 1 || res.PChannels[0].WALCounts["kafka"] != 1 {
		t.Errorf("a tagged Dropped segment position is not counted: %+v", res.PChannels)
	}
}

// Undecodable values: show checkpoint warns and reports the rest.
func TestShowCheckpointBadValues(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	e.put(models.ConsumeCheckpointKey(e.pch(1)), []byte{0xff, 0xff})
	// A pulsar consume checkpoint whose id text is not base64.
	e.put(models.ConsumeCheckpointKey(e.pch(2)), sample.Checkpoint{ID: badText{}, TimeTick: ts(1)}.Encode())
	e.put(models.SegmentKey(200, 201, 2009), []byte{0x0a})

	res, stderr := runJSON[CheckpointResult](e, "show checkpoint")
	ps := pchannelsByName(res)
	if p := ps[e.pch(1)]; p.HasCheckpoint || !strings.Contains(p.Error, models.ConsumeCheckpointKey(e.pch(1))) {
		t.Errorf("undecodable checkpoint: %+v", p)
	}
	if p := ps[e.pch(2)]; !p.HasCheckpoint || p.Error == "" || p.MessageIDHuman != "" {
		t.Errorf("bad message id text: %+v", p)
	}
	for _, s := range []string{models.ConsumeCheckpointKey(e.pch(1)), models.ConsumeCheckpointKey(e.pch(2)), models.SegmentKey(200, 201, 2009)} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr does not name %s:\n%s", s, stderr)
		}
	}
	// dml_1's vchannels lost their checkpoint's WAL: the channel-cp cannot be decoded.
	vr := vchannelsByName(res)[e.pch(1)+"_100v1"]
	if vr.Error == "" || vr.MessageIDHuman != "" {
		t.Errorf("vchannel without a WAL: %+v", vr)
	}
	if len(res.VChannels) < len(e.sample.VChannels) {
		t.Errorf("vchannels lost: %+v", res.VChannels)
	}
}

// A vchannel known only to the streamingnode (its collection meta is gone)
// is still listed, with no seek position.
func TestShowCheckpointVChannelMetaOnly(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	orphan := e.pch(2) + "_777v0"
	e.put(models.WALPrefix+e.pch(2)+"/vchannel/"+orphan, sample.VChannelMeta(orphan, 777))
	res, _ := runJSON[CheckpointResult](e, "show checkpoint")
	if v, ok := vchannelsByName(res)[orphan]; !ok || v.Level != "none" || v.PChannel != e.pch(2) {
		t.Errorf("orphan vchannel: %+v (listed %v)", v, ok)
	}
	res, _ = runJSON[CheckpointResult](e, "show checkpoint --collection 777")
	if len(res.VChannels) != 1 || res.VChannels[0].Name != orphan {
		t.Errorf("--collection 777: %+v", res.VChannels)
	}
}

// badText is a pulsar id whose text form is not base64.
type badText struct{ msgid.PulsarID }

func (badText) Text() string { return "not base64!" }

func TestTSOTime(t *testing.T) {
	for _, c := range []struct {
		ts   uint64
		want string
	}{
		{sample.TSO(sample.Base, 0), "2026-11-30T08:00:00Z"},
		{sample.TSO(sample.Base.Add(1500*time.Millisecond), 7), "2026-11-30T08:00:01.5Z"},
		{0, ""},
		{^uint64(0), "max"},
	} {
		if got := tsoTime(c.ts); got != c.want {
			t.Errorf("tsoTime(%d) = %q, want %q", c.ts, got, c.want)
		}
	}
}

// putAbs writes an absolute key (woodpecker's metadata lies outside the meta root).
func (e *env) putAbs(key string, v []byte) {
	e.t.Helper()
	if _, err := e.cli.Put(ctxT(e.t), key, string(v)); err != nil {
		e.t.Fatal(err)
	}
}

// alterWALState encodes streamingpb.AlterWALState (target 1, time_tick 2, stage 4).
func alterWALState(target commonpb.WALName, stage models.AlterWALStage) []byte {
	return (&wire.Builder{}).Varint(1, uint64(target)).Varint(2, ts(70)).Varint(4, uint64(stage)).Build()
}

// alter_wal_state is shown in the table and JSON; null when unset. Fields
// above 6 are listed.
func TestShowCheckpointAlterWAL(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	for i, stage := range []models.AlterWALStage{models.AlterWALStageAdvanceCheckpoint, models.AlterWALStageFlushing} {
		cp := sample.Checkpoint{ID: sample.ID(commonpb.WALName_Pulsar, int64(50+i)), TimeTick: ts(60 + i), RecoveryMagic: 1,
			Extra: (&wire.Builder{}).Message(6, alterWALState(commonpb.WALName_Kafka, stage)).Varint(20, 3).Build()}
		e.put(models.ConsumeCheckpointKey(e.pch(i)), cp.Encode())
	}
	res, _ := runJSON[CheckpointResult](e, "show checkpoint")
	ps := pchannelsByName(res)
	for i, stage := range []string{"ADVANCE_CHECKPOINT", "FLUSHING"} {
		p := ps[e.pch(i)]
		want := AlterWALRow{Target: "kafka", Stage: stage, Interrupted: true, TimeTick: ts(70), Description: "online switch to kafka, stage " + stage}
		if p.AlterWAL == nil || *p.AlterWAL != want {
			t.Errorf("%s alter_wal: %+v, want %+v", p.Name, p.AlterWAL, want)
		}
		if len(p.UnknownFields) != 1 || p.UnknownFields[0] != 20 {
			t.Errorf("%s unknown_fields %v, want [20]", p.Name, p.UnknownFields)
		}
		if p.MessageIDHuman != human(commonpb.WALName_Pulsar, int64(50+i)) || p.Split {
			t.Errorf("%s: %+v", p.Name, p)
		}
	}
	if p := ps[e.pch(2)]; p.AlterWAL != nil {
		t.Errorf("dml_2 has no alter_wal_state: %+v", p.AlterWAL)
	}
	raw, _ := e.mustRun("show checkpoint --pchannel " + e.pch(2) + " --format json")
	if !strings.Contains(raw, `"alter_wal": null`) {
		t.Errorf("JSON of a checkpoint without alter_wal_state lacks \"alter_wal\": null:\n%s", raw)
	}
	table, _ := e.mustRun("show checkpoint")
	for _, s := range []string{"ALTER WAL", "online switch to kafka, stage ADVANCE_CHECKPOINT", "online switch to kafka, stage FLUSHING", "unknown fields 20 kept"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}
	lines, _ := e.mustRun("show checkpoint --format line")
	if !strings.Contains(lines, "alter_wal=kafka/ADVANCE_CHECKPOINT") {
		t.Errorf("line format lacks alter_wal:\n%s", lines)
	}
}

// Milvus's online switch writes kafka -2 as earliest: show decodes it, in the
// consume checkpoint (text) and in positions (bytes), and it is no split.
func TestShowCheckpointNegativeKafkaIDs(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	minus2 := msgid.OffsetID{Of: commonpb.WALName_Kafka, Offset: -2}
	e.put(models.ConsumeCheckpointKey(e.pch(0)), sample.Checkpoint{ID: minus2, TimeTick: ts(60), RecoveryMagic: 1}.Encode())
	v := e.pch(0) + "_100v0"
	e.put(models.ChannelCPKey(v), sample.Position(v, minus2, ts(55), commonpb.WALName_Unknown))

	res, stderr := runJSON[CheckpointResult](e, "show checkpoint")
	if strings.Contains(stderr, "warning") {
		t.Errorf("warnings on negative kafka ids:\n%s", stderr)
	}
	p := pchannelsByName(res)[e.pch(0)]
	if p.MessageID != "-2" || p.MessageIDHuman != "-2" || p.Error != "" || p.Split {
		t.Errorf("kafka -2 checkpoint: %+v", p)
	}
	if p.Positions["kafka"] == 0 || len(p.Positions) != 1 {
		t.Errorf("positions %v: every one is kafka", p.Positions)
	}
	if vr := vchannelsByName(res)[v]; vr.MessageIDHuman != "-2" || vr.Error != "" || vr.WAL != "kafka" {
		t.Errorf("kafka -2 channel-cp: %+v", vr)
	}
	table, _ := e.mustRun("show checkpoint")
	if strings.Contains(table, "SPLIT") {
		t.Errorf("table reports a split:\n%s", table)
	}
}

// The models split rule: an untagged position whose id does not decode in its
// pchannel's WAL (pulsar bytes left on a kafka pchannel) is a split, although
// no position names another WAL.
func TestShowCheckpointSplitUndecodableUntagged(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	v := e.pch(0) + "_100v0"
	e.put(models.ChannelCPKey(v), sample.Position(v, msgid.PulsarEarliest, ts(55), commonpb.WALName_Unknown))
	res, stderr := runJSON[CheckpointResult](e, "show checkpoint")
	p := pchannelsByName(res)[e.pch(0)]
	if !p.Split || p.Positions["undecodable as kafka"] != 1 || p.Positions["kafka"] == 0 {
		t.Errorf("dml_0: split=%v positions=%v", p.Split, p.Positions)
	}
	if len(p.WALCounts) != 1 || p.WALCounts["kafka"] != 1 {
		t.Errorf("wal_counts %v: only the checkpoint is tagged", p.WALCounts)
	}
	if len(res.SplitPChannels) != 1 || res.SplitPChannels[0] != e.pch(0) {
		t.Errorf("split_pchannels %v", res.SplitPChannels)
	}
	if !strings.Contains(stderr, "SPLIT STATE") || !strings.Contains(stderr, "undecodable as kafka 1") {
		t.Errorf("split warning:\n%s", stderr)
	}
	table, _ := e.mustRun("show checkpoint")
	if !strings.Contains(table, "with the untagged ones: kafka ") || !strings.Contains(table, "undecodable as kafka 1") {
		t.Errorf("table split block:\n%s", table)
	}
}

// Woodpecker's own logs of the instance's pchannels are reported under every
// prefix, with log id, segments and truncation point, and the effective
// prefix is named (issue 13 item 1).
func TestShowCheckpointWoodpeckerLogs(t *testing.T) {
	e := seeded(t, commonpb.WALName_WoodPecker)
	res, _ := runJSON[CheckpointResult](e, "show checkpoint")
	if res.WoodpeckerLogs == nil || len(res.WoodpeckerLogs) != 0 {
		t.Errorf("woodpecker_logs %v on an instance without woodpecker metadata, want []", res.WoodpeckerLogs)
	}
	if res.Woodpecker.Effective.Prefix != "by-dev/woodpecker" || res.Woodpecker.Effective.Reason != "default" || len(res.Woodpecker.Prefixes) != 3 {
		t.Errorf("woodpecker %+v", res.Woodpecker)
	}
	table, _ := e.mustRun("show checkpoint")
	for _, s := range []string{"effective prefix: by-dev/woodpecker/ (default", "no log of this instance's pchannels under by-dev/woodpecker/, woodpecker/, by-dev/wp/"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}

	def, wp := "by-dev/woodpecker", "by-dev/wp"
	e.putAbs(def+"/logs/"+e.pch(0), sample.WoodpeckerLog{ID: 1, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	e.putAbs(def+"/logs/"+e.pch(0)+"/segments/0", sample.WoodpeckerSegment{No: 0, State: sample.WoodpeckerSealed, LastEntry: 9, Size: 10}.Encode())
	e.putAbs(def+"/logs/"+e.pch(0)+"/segments/1", sample.WoodpeckerSegment{No: 1, State: sample.WoodpeckerActive, LastEntry: 3, Size: 10}.Encode())
	e.putAbs(def+"/logs/"+e.pch(1), sample.WoodpeckerLog{ID: 2, TruncatedSegment: 4, TruncatedEntry: 17}.Encode()) // truncated, no segments
	e.putAbs(def+"/logs/"+e.pch(1)+"/lock", []byte("lock"))
	e.putAbs(def+"/logs/other-log", sample.WoodpeckerLog{ID: 3, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	e.putAbs(def+"/logidgen", []byte("3"))
	e.putAbs(wp+"/logs/"+e.pch(2)+"/segments/7", sample.WoodpeckerSegment{No: 7, State: sample.WoodpeckerSealed, LastEntry: 1, Size: 1}.Encode())

	res, _ = runJSON[CheckpointResult](e, "show checkpoint")
	want := []WoodpeckerLogRow{
		{Log: e.pch(0), Prefix: def + "/logs/", MetaPrefix: def, Effective: true, LogID: 1, Segments: 2, FirstSegment: 0, LastSegment: 1,
			TruncatedSegment: -1, TruncatedEntry: -1, Keys: 3, PChannel: true},
		{Log: e.pch(1), Prefix: def + "/logs/", MetaPrefix: def, Effective: true, LogID: 2, FirstSegment: -1, LastSegment: -1,
			TruncatedSegment: 4, TruncatedEntry: 17, Keys: 2, PChannel: true},
		{Log: e.pch(2), Prefix: wp + "/logs/", MetaPrefix: wp, LogID: -1, Segments: 1, FirstSegment: 7, LastSegment: 7,
			TruncatedSegment: -1, TruncatedEntry: -1, Keys: 1, PChannel: true},
	}
	if !reflect.DeepEqual(res.WoodpeckerLogs, want) {
		t.Errorf("woodpecker_logs %+v\nwant %+v", res.WoodpeckerLogs, want)
	}
	table, _ = e.mustRun("show checkpoint")
	for _, s := range []string{"WOODPECKER LOGS", "4:17", "truncated without segments: not fresh", "2 (0-1)", "not the effective prefix"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}
	if strings.Contains(table, "other-log") {
		t.Errorf("a log of no pchannel of the instance is listed:\n%s", table)
	}
	res, _ = runJSON[CheckpointResult](e, "show checkpoint --pchannel "+e.pch(1))
	if len(res.WoodpeckerLogs) != 1 || res.WoodpeckerLogs[0].Log != e.pch(1) || res.WoodpeckerLogs[0].TruncatedEntry != 17 {
		t.Errorf("--pchannel: woodpecker_logs %+v", res.WoodpeckerLogs)
	}
	lines, _ := e.mustRun("show checkpoint --format line")
	for _, s := range []string{
		"kind=woodpecker effective_prefix=by-dev/woodpecker reason=default meta_prefix=woodpecker from=default\n",
		"kind=woodpecker_log log=" + e.pch(0) + " prefix=" + def + "/logs/ segments=2 legacy=false pchannel=true log_id=1 effective=true truncated=- keys=3\n",
		"truncated=4:17",
	} {
		if !strings.Contains(lines, s) {
			t.Errorf("line format lacks %q:\n%s", s, lines)
		}
	}

	// A legacy key makes the shared top-level prefix effective; --wp-meta-prefix names another configured one.
	e.putAbs("woodpecker/logs/"+e.pch(2), sample.WoodpeckerLog{ID: 9, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	e.putAbs("by-dev/mine/logs/"+e.pch(0), sample.WoodpeckerLog{ID: 1, TruncatedSegment: -1, TruncatedEntry: -1}.Encode())
	res, _ = runJSON[CheckpointResult](e, "show checkpoint --wp-meta-prefix mine")
	eff := res.Woodpecker.Effective
	if eff.Prefix != "woodpecker" || eff.Reason != "legacy" || eff.Configured != "by-dev/mine" || eff.From != "--wp-meta-prefix" {
		t.Errorf("effective %+v", eff)
	}
	found := map[string]bool{}
	for _, l := range res.WoodpeckerLogs {
		found[l.MetaPrefix+" "+l.Log] = l.Effective
	}
	if eff, ok := found["woodpecker "+e.pch(2)]; !ok || !eff {
		t.Errorf("legacy log: %v", found)
	}
	if _, ok := found["by-dev/mine "+e.pch(0)]; !ok {
		t.Errorf("configured log: %v", found)
	}
}

// widestLine is the width, in runes, of the widest line of out.
func widestLine(out string) int {
	w := 0
	for _, l := range strings.Split(out, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// seedDML10 adds pchannel dml_10 with a consume checkpoint and a channel-cp
// whose pulsar ids are as long as production ones (ledger ids of 18 digits).
func seedDML10(e *env) (pchannel, vchannel string, cpID, seekID msgid.PulsarID) {
	pchannel = "by-dev-rootcoord-dml_10"
	vchannel = pchannel + "_449012345678901234v0"
	cpID = msgid.PulsarID{Ledger: 449012345678901234, Entry: 123456789012, Partition: 0, Batch: -1}
	seekID = msgid.PulsarID{Ledger: 449012345678900001, Entry: 987654321098, Partition: 0, Batch: -1}
	e.put(models.PChannelPrefix+pchannel, sample.PChannel(pchannel, 1))
	e.put(models.ConsumeCheckpointKey(pchannel), sample.Checkpoint{ID: cpID, TimeTick: ts(90), RecoveryMagic: 1}.Encode())
	e.put(models.ChannelCPKey(vchannel), sample.Position(vchannel, seekID, ts(80), commonpb.WALName_Unknown))
	return pchannel, vchannel, cpID, seekID
}

// Issue 10 §4: pchannels and vchannels in natural order, dml_2 before dml_10
// (byte order puts dml_10 between dml_1 and dml_2).
func TestShowCheckpointNaturalOrder(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	p10, v10, _, _ := seedDML10(e)
	res, _ := runJSON[CheckpointResult](e, "show checkpoint")
	var names []string
	for _, p := range res.PChannels {
		names = append(names, p.Name)
	}
	if want := []string{e.pch(0), e.pch(1), e.pch(2), p10}; !slices.Equal(names, want) {
		t.Errorf("pchannels in order %q, want %q", names, want)
	}
	var pchs []string
	for _, v := range res.VChannels {
		if len(pchs) == 0 || pchs[len(pchs)-1] != v.PChannel {
			pchs = append(pchs, v.PChannel)
		}
	}
	if want := []string{e.pch(0), e.pch(1), e.pch(2), p10}; !slices.Equal(pchs, want) {
		t.Errorf("vchannels grouped by pchannel in order %q, want %q", pchs, want)
	}
	if last := res.VChannels[len(res.VChannels)-1]; last.Name != v10 {
		t.Errorf("last vchannel %s, want %s", last.Name, v10)
	}
	table, _ := e.mustRun("show checkpoint")
	if i2, i10 := strings.Index(table, e.pch(2)+" "), strings.Index(table, p10+" "); i2 < 0 || i10 < 0 || i2 > i10 {
		t.Errorf("table: dml_2 at %d, dml_10 at %d:\n%s", i2, i10, table)
	}
}

// Issue 10 §4: the tables of show checkpoint fit 120 columns, eliding long
// message ids with "..."; --wide shows every column and every id in full.
func TestShowCheckpointFits120Columns(t *testing.T) {
	for _, wal := range allWALs {
		e := seeded(t, wal)
		if out, _ := e.mustRun("show checkpoint"); widestLine(out) > 120 {
			t.Errorf("%s sample: %d columns wide:\n%s", walN(wal), widestLine(out), out)
		}
	}
	e := seeded(t, commonpb.WALName_Pulsar)
	_, v10, cpID, seekID := seedDML10(e)
	out, _ := e.mustRun("show checkpoint")
	if w := widestLine(out); w > 120 {
		t.Errorf("%d columns wide:\n%s", w, out)
	}
	if !strings.Contains(out, "...") || strings.Contains(out, seekID.Human()) {
		t.Errorf("the long seek id is not elided:\n%s", out)
	}
	if !strings.Contains(out, v10+" ") || strings.Contains(out, "SOURCE KEY") {
		t.Errorf("narrow table: the vchannel name is cut or the source key column is shown:\n%s", out)
	}
	wide, _ := e.mustRun("show checkpoint --wide")
	if widestLine(wide) <= 120 {
		t.Errorf("--wide is no wider than 120 columns:\n%s", wide)
	}
	for _, s := range []string{cpID.Human(), seekID.Human(), models.ChannelCPKey(v10), "SOURCE KEY", "REPLICATE CP", "ALTER WAL", "100 (books)"} {
		if !strings.Contains(wide, s) {
			t.Errorf("--wide lacks %q:\n%s", s, wide)
		}
	}
	if strings.Contains(wide, "...") {
		t.Errorf("--wide elides:\n%s", wide)
	}
}

// Issue 10 §4: one naming rule for message ids across rows: every pchannel
// and vchannel row gives its id's bytes as message_id_hex and
// message_id_base64; a consume checkpoint keeps its text form in message_id.
func TestShowCheckpointMessageIDEncodings(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	p10, v10, cpID, seekID := seedDML10(e)
	raw, _ := e.mustRun("show checkpoint --format json")
	for _, field := range []string{`"message_id"`, `"message_id_hex"`, `"message_id_base64"`, `"message_id_human"`} {
		if n := strings.Count(raw, field+":"); n < 4 {
			t.Errorf("%s appears %d times in the JSON", field, n)
		}
	}
	res, _ := runJSON[CheckpointResult](e, "show checkpoint")
	p := pchannelsByName(res)[p10]
	if p.MessageID != cpID.Text() || p.MessageIDHex != hex.EncodeToString(cpID.Bytes()) ||
		p.MessageIDBase64 != base64.StdEncoding.EncodeToString(cpID.Bytes()) || p.MessageIDHuman != cpID.Human() {
		t.Errorf("pchannel %s: %+v", p10, p)
	}
	v := vchannelsByName(res)[v10]
	if v.MessageIDHex != hex.EncodeToString(seekID.Bytes()) || v.MessageIDBase64 != base64.StdEncoding.EncodeToString(seekID.Bytes()) || v.MessageIDHuman != seekID.Human() {
		t.Errorf("vchannel %s: %+v", v10, v)
	}
	// A checkpoint id that does not decode keeps its text, and no bytes.
	e.put(models.ConsumeCheckpointKey(p10), sample.Checkpoint{ID: badText{}, TimeTick: ts(90)}.Encode())
	res, _ = runJSON[CheckpointResult](e, "show checkpoint --pchannel "+p10)
	if p := res.PChannels[0]; p.MessageID != "not base64!" || p.MessageIDHex != "" || p.MessageIDBase64 != "" || p.Error == "" {
		t.Errorf("undecodable checkpoint id: %+v", p)
	}
}

// Issue 10 §4: --format line prints a line even for an empty result.
func TestShowCheckpointEmptyLineFormat(t *testing.T) {
	cli, endpoint := etcdtest.Start(t)
	e := &env{t: t, cli: cli, inst: instance.New(cli, models.NewLayout("empty", "meta"), []string{endpoint})}
	if out, _ := e.mustRun("show checkpoint --format line"); out != "kind=summary pchannels=0 vchannels=0 split=0 woodpecker_logs=0\n" {
		t.Errorf("empty --format line: %q", out)
	}
	if out, _ := e.mustRun("show checkpoint"); !strings.Contains(out, "0 pchannel(s); none split; 0 vchannel(s)") {
		t.Errorf("empty table: %q", out)
	}
	seeded := seeded(t, commonpb.WALName_Kafka)
	lines, _ := seeded.mustRun("show checkpoint --format line")
	if !strings.HasSuffix(lines, "kind=summary pchannels=3 vchannels=5 split=0 woodpecker_logs=0\n") {
		t.Errorf("line format ends without its summary:\n%s", lines)
	}
}

// Issue 10 §3: help show checkpoint names the values, says what omitting a
// flag means and gives an example.
func TestShowCheckpointHelp(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	out, _ := e.mustRun("help show checkpoint")
	for _, s := range []string{"--collection ID", "--pchannel PCHANNEL", "all when omitted", "--wide", "--format table|json|line", "Example:\n  show checkpoint --"} {
		if !strings.Contains(out, s) {
			t.Errorf("help lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "(default 0)") || strings.Contains(out, "STRING") {
		t.Errorf("help shows a zero default or an unnamed value:\n%s", out)
	}
}
