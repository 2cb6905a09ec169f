package show

import (
	"fmt"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
)

func TestShowSession(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	// The sample has only session/id: no component.
	res, _ := runJSON[SessionResult](e, "show session")
	if len(res.Sessions) != 0 {
		t.Fatalf("sample: sessions %+v, want none (session/id is a counter)", res.Sessions)
	}

	lease, err := e.cli.Grant(ctxT(t), 60)
	if err != nil {
		t.Fatal(err)
	}
	e.put(models.SessionPrefix+"querycoord", []byte(`{"ServerID":3,"ServerName":"querycoord","Address":"10.0.0.3:19531","Version":"2.6.4"}`), clientv3.WithLease(lease.ID))
	e.put(models.SessionPrefix+"datanode-5", []byte(`{"ServerID":5,"ServerName":"datanode","Address":"10.0.0.5:21124"}`))

	res, _ = runJSON[SessionResult](e, "show session")
	if len(res.Sessions) != 2 || res.Alive != 1 {
		t.Fatalf("sessions %+v alive %d", res.Sessions, res.Alive)
	}
	by := map[string]SessionRowView{}
	for _, s := range res.Sessions {
		by[s.Role] = SessionRowView{s.ServerID, s.Address, s.Alive, s.Lease}
	}
	if got := by["querycoord"]; got != (SessionRowView{3, "10.0.0.3:19531", true, int64(lease.ID)}) {
		t.Errorf("querycoord: %+v (lease %d)", got, lease.ID)
	}
	if got := by["datanode"]; got != (SessionRowView{5, "10.0.0.5:21124", false, 0}) {
		t.Errorf("datanode: %+v", got)
	}
	table, _ := e.mustRun("show session")
	if !strings.Contains(table, fmt.Sprintf("%x", lease.ID)) || !strings.Contains(table, "2 session(s), 1 alive") {
		t.Errorf("table:\n%s", table)
	}

	e.put(models.SessionPrefix+"broken", []byte("not json"))
	_, _, code, err := e.run("show session")
	if code != 1 || err == nil || !strings.Contains(err.Error(), "session/broken") {
		t.Errorf("bad session value: exit %d, %v", code, err)
	}
}

type SessionRowView struct {
	ServerID int64
	Address  string
	Alive    bool
	Lease    int64
}

func TestShowSegment(t *testing.T) {
	e := seeded(t, commonpb.WALName_WoodPecker)
	res, _ := runJSON[SegmentResult](e, "show segment")
	// Only true segment keys: the statslog and binlog keys under datacoord-meta/s* are not segments.
	if res.Total != 5 || len(res.Segments) != 5 || res.Counts["Flushed"] != 3 || res.Counts["Dropped"] != 2 {
		t.Fatalf("all segments: total %d counts %v", res.Total, res.Counts)
	}
	var s2001 SegmentRow
	for _, s := range res.Segments {
		if s.ID == 2001 {
			s2001 = s
		}
	}
	if s2001.Collection != 200 || s2001.Partition != 201 || s2001.VChannel != e.pch(1)+"_200v0" || s2001.State != "Flushed" ||
		s2001.Rows != 3001 || s2001.Level != "L1" || s2001.Key != models.SegmentKey(200, 201, 2001) {
		t.Errorf("segment 2001: %+v", s2001)
	}
	wal := commonpb.WALName_WoodPecker
	if sp := s2001.StartPosition; sp == nil || sp.MessageIDHuman != human(wal, 1) || sp.Timestamp != ts(20) || sp.WAL != "woodpecker" || !sp.WALGuessed ||
		sp.Time != "2026-11-30T08:20:00Z" {
		t.Errorf("segment 2001 start: %+v", sp)
	}
	if dp := s2001.DMLPosition; dp == nil || dp.MessageIDHuman != human(wal, 2) || dp.Timestamp != ts(21) {
		t.Errorf("segment 2001 dml: %+v", dp)
	}

	res, _ = runJSON[SegmentResult](e, "show segment --state flushed")
	if res.Total != 3 {
		t.Errorf("--state flushed: %d segments", res.Total)
	}
	for _, s := range res.Segments {
		if s.State != "Flushed" {
			t.Errorf("--state flushed shows %d in %s", s.ID, s.State)
		}
	}
	res, _ = runJSON[SegmentResult](e, "show segment --collection 200 --state Dropped")
	if res.Total != 1 || res.Segments[0].ID != 2002 || res.Counts["Flushed"] != 1 || res.Counts["Dropped"] != 1 {
		t.Errorf("--collection 200 --state Dropped: %+v", res)
	}
	table, _ := e.mustRun("show segment --collection 100")
	if !strings.Contains(table, "3 segment(s) shown; by state: Dropped=1 Flushed=2") {
		t.Errorf("table:\n%s", table)
	}

	_, _, code, err := e.run("show segment --state Bogus")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--state") || !strings.Contains(err.Error(), "Flushed") {
		t.Errorf("bad --state: exit %d, %v", code, err)
	}

	e.put(models.SegmentKey(100, 101, 1009), []byte{0xff})
	_, _, code, err = e.run("show segment")
	if code != 1 || err == nil || !strings.Contains(err.Error(), models.SegmentKey(100, 101, 1009)) {
		t.Errorf("bad segment value: exit %d, %v", code, err)
	}
}

func TestShowBroadcastTask(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	acked := func(state models.BroadcastState, n int) []byte {
		var b wire.Builder
		b.Message(1, nil).Varint(2, uint64(state))
		for i := 0; i < n; i++ {
			b.Message(4, (&wire.Builder{}).Message(1, nil).Build())
		}
		return b.Build()
	}
	e.put(models.BroadcastTaskPrefix+"2", sample.BroadcastTask(int32(models.BroadcastPending)))
	e.put(models.BroadcastTaskPrefix+"3", acked(models.BroadcastWaitAck, 2))
	e.put(models.BroadcastTaskPrefix+"4", acked(models.BroadcastReplicated, 1))

	res, stderr := runJSON[BroadcastResult](e, "show broadcast-task")
	want := map[string]BroadcastRow{
		"1": {State: "Tombstone", InFlight: false, AckedCheckpoints: 0},
		"2": {State: "Pending", InFlight: true, AckedCheckpoints: 0},
		"3": {State: "WaitAck", InFlight: true, AckedCheckpoints: 2},
		"4": {State: "Replicated", InFlight: true, AckedCheckpoints: 1},
	}
	if len(res.Tasks) != len(want) || res.InFlight != 3 {
		t.Fatalf("tasks %+v in flight %d", res.Tasks, res.InFlight)
	}
	for _, got := range res.Tasks {
		w := want[got.ID]
		if got.State != w.State || got.InFlight != w.InFlight || got.AckedCheckpoints != w.AckedCheckpoints || got.Key != models.BroadcastTaskPrefix+got.ID {
			t.Errorf("task %s: %+v, want %+v", got.ID, got, w)
		}
	}
	if !strings.Contains(stderr, "3 broadcast task(s) in flight") {
		t.Errorf("no in-flight warning on stderr: %q", stderr)
	}
	table, _ := e.mustRun("show broadcast-task")
	if !strings.Contains(table, "4 task(s), 3 in flight") || strings.Count(table, "YES") != 3 {
		t.Errorf("table:\n%s", table)
	}
	e.put(models.BroadcastTaskPrefix+"5", []byte{0x12, 0x05})
	if _, _, code, err := e.run("show broadcast-task"); code != 1 || !strings.Contains(fmt.Sprint(err), models.BroadcastTaskPrefix+"5") {
		t.Errorf("bad task value: exit %d, %v", code, err)
	}
}

func TestShowCollections(t *testing.T) {
	for _, wal := range allWALs {
		t.Run(walN(wal), func(t *testing.T) {
			e := seeded(t, wal)
			res, stderr := runJSON[CollectionsResult](e, "show collections")
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			by := map[int64]CollectionRow{}
			for _, c := range res.Collections {
				by[c.ID] = c
			}
			if len(res.Collections) != 4 || res.Tombstones != 1 {
				t.Fatalf("collections %+v", res.Collections)
			}
			books, movies, logs, dropped := by[100], by[200], by[300], by[400]
			if books.Name != "books" || books.DB != 1 || books.Layout != "database" || books.Shards != 2 || books.State != "Created" ||
				strings.Join(books.VChannels, ",") != e.pch(0)+"_100v0,"+e.pch(1)+"_100v1" ||
				strings.Join(books.PChannels, ",") != e.pch(0)+","+e.pch(1) || books.Time != "2026-11-30T08:01:00Z" {
				t.Errorf("books: %+v", books)
			}
			if movies.Name != "movies" || movies.Layout != "legacy" || logs.Name != "logs" {
				t.Errorf("movies %+v logs %+v", movies, logs)
			}
			if !dropped.Tombstone || dropped.State != "dropped-tombstone" || dropped.Name != "" || dropped.DB != 1 {
				t.Errorf("tombstone: %+v", dropped)
			}
			if len(books.StartPositions) != 2 {
				t.Fatalf("books start positions: %+v", books.StartPositions)
			}
			for n, sp := range books.StartPositions {
				if sp.Key != e.pch(n) || sp.WAL != walN(wal) || sp.MessageIDHuman != human(wal, 100+int64(n)) || sp.Error != "" {
					t.Errorf("books start %d: %+v", n, sp)
				}
			}
			table, _ := e.mustRun("show collections")
			for _, s := range []string{"books", "movies", "legacy", "dropped-tombstone", human(wal, 300)} {
				if !strings.Contains(table, s) {
					t.Errorf("table lacks %q:\n%s", s, table)
				}
			}
		})
	}
}

func TestShowCollectionsBadValue(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	e.put(models.LegacyCollectionKey(500), []byte{0xff, 0x01})
	if _, _, code, err := e.run("show collections"); code != 1 || !strings.Contains(fmt.Sprint(err), models.LegacyCollectionKey(500)) {
		t.Errorf("bad collection value: exit %d, %v", code, err)
	}
}

func TestCommandsRegistered(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	var paths []string
	for _, c := range Commands(e.inst) {
		paths = append(paths, c.Path())
	}
	if got := strings.Join(paths, ","); got != "show checkpoint,show session,show collections,show segment,show broadcast-task,"+
		"show etcd-kv,show database,show partition,show channel-watch,show replica,show index,show config-etcd" {
		t.Errorf("commands: %s", got)
	}
	for _, l := range []string{"show checkpoint", "show session", "show collections", "show segment", "show broadcast-task"} {
		for _, f := range []string{"table", "json", "line"} {
			if _, _, code, err := e.run(l + " --format " + f); code != 0 {
				t.Errorf("%s --format %s: exit %d: %v", l, f, code, err)
			}
		}
		if _, _, code, _ := e.run(l + " --format xml"); code != 2 {
			t.Errorf("%s --format xml: exit %d, want 2", l, code)
		}
	}
}
