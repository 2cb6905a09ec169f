package show

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/tests/etcdtest"
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
	if !strings.Contains(table, fmt.Sprintf("%016x", lease.ID)) || !strings.Contains(table, "2 session(s), 1 alive") {
		t.Errorf("table:\n%s", table)
	}
	// The lease was granted for 60 s: what is left of it, in every format;
	// a session without a lease has none.
	for _, s := range res.Sessions {
		switch {
		case s.Alive && (s.TTLSeconds == nil || *s.TTLSeconds < 50 || *s.TTLSeconds > 60):
			t.Errorf("alive %s: ttl_seconds %v, want what is left of 60 s", s.Key, s.TTLSeconds)
		case !s.Alive && s.TTLSeconds != nil:
			t.Errorf("%s has no lease, ttl_seconds %d", s.Key, *s.TTLSeconds)
		}
	}
	if raw, _ := e.mustRun("show session --format json"); !strings.Contains(raw, `"ttl_seconds":`) || strings.Count(raw, `"ttl_seconds"`) != 1 {
		t.Errorf("json: one ttl_seconds, of the live session:\n%s", raw)
	}
	if !strings.Contains(table, "TTL") || !regexp.MustCompile(`querycoord .* (5\d|60)s`).MatchString(table) {
		t.Errorf("table TTL column:\n%s", table)
	}
	if lines, _ := e.mustRun("show session --format line"); !regexp.MustCompile(`ttl_seconds=(5\d|60)\b`).MatchString(lines) {
		t.Errorf("lines:\n%s", lines)
	}

	// Issue 9 item 9: one bad value no longer blanks the listing.
	e.put(models.SessionPrefix+"broken", []byte("not json"), clientv3.WithLease(lease.ID))
	res, stderr := runJSON[SessionResult](e, "show session")
	if len(res.Sessions) != 3 || res.Errors != 1 || res.Alive != 2 {
		t.Fatalf("with a bad value: sessions %+v errors %d alive %d", res.Sessions, res.Errors, res.Alive)
	}
	bad := res.Sessions[0] // session/broken sorts first
	if bad.Key != "session/broken" || !strings.Contains(bad.Error, "session/broken") || !strings.Contains(bad.Error, "not JSON") || !bad.Alive {
		t.Errorf("bad row: %+v", bad)
	}
	if !strings.Contains(stderr, "warning: 1 session key(s) do not decode") {
		t.Errorf("stderr: %q", stderr)
	}
	table, _ = e.mustRun("show session")
	if !strings.Contains(table, "ERROR") || !strings.Contains(table, "not JSON: invalid character") || !strings.Contains(table, "3 session(s), 2 alive") {
		t.Errorf("table with a bad value:\n%s", table)
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
	if !strings.Contains(table, "3 segment(s) shown (collection 100); by state: Dropped=1 Flushed=2") {
		t.Errorf("table:\n%s", table)
	}

	_, _, code, err := e.run("show segment --state Bogus")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--state") || !strings.Contains(err.Error(), "Flushed") {
		t.Errorf("bad --state: exit %d, %v", code, err)
	}

	// Issue 9 item 9: a bad value is a row with its error, every other row is shown.
	e.put(models.SegmentKey(100, 101, 1009), []byte{0xff})
	res, stderr := runJSON[SegmentResult](e, "show segment")
	if res.Total != 6 || res.Errors != 1 || res.Counts["Flushed"] != 3 || res.Counts["Dropped"] != 2 {
		t.Fatalf("with a bad value: total %d errors %d counts %v", res.Total, res.Errors, res.Counts)
	}
	for _, s := range res.Segments {
		if s.Key == models.SegmentKey(100, 101, 1009) {
			if s.ID != 1009 || s.Collection != 100 || !strings.Contains(s.Error, models.SegmentKey(100, 101, 1009)) || s.State != "" {
				t.Errorf("bad row: %+v", s)
			}
		} else if s.Error != "" {
			t.Errorf("good row %s has error %q", s.Key, s.Error)
		}
	}
	if !strings.Contains(stderr, models.SegmentKey(100, 101, 1009)) || !strings.Contains(stderr, "1 segment key(s) do not decode") {
		t.Errorf("stderr: %q", stderr)
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
	// Issue 9 item 9 (and issue 10 §2): a task that does not decode is listed
	// as such, not as in flight.
	e.put(models.BroadcastTaskPrefix+"5", []byte{0x12, 0x05})
	res, stderr = runJSON[BroadcastResult](e, "show broadcast-task")
	if len(res.Tasks) != 5 || res.InFlight != 3 || res.Errors != 1 {
		t.Fatalf("with a bad value: tasks %+v in flight %d errors %d", res.Tasks, res.InFlight, res.Errors)
	}
	bad := res.Tasks[4]
	if bad.ID != "5" || bad.InFlight || !strings.Contains(bad.Error, models.BroadcastTaskPrefix+"5") || !strings.Contains(bad.Error, "cannot tell whether it is in flight") {
		t.Errorf("bad row: %+v", bad)
	}
	if !strings.Contains(stderr, models.BroadcastTaskPrefix+"5") {
		t.Errorf("stderr: %q", stderr)
	}
	table, _ = e.mustRun("show broadcast-task")
	if !strings.Contains(table, "unknown") || !strings.Contains(table, "1 task(s) do not decode") {
		t.Errorf("table with a bad value:\n%s", table)
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
	res, stderr := runJSON[CollectionsResult](e, "show collections")
	if len(res.Collections) != 5 || res.Errors != 1 || res.Tombstones != 1 {
		t.Fatalf("with a bad value: %+v", res)
	}
	var bad CollectionRow
	for _, c := range res.Collections {
		if c.Key == models.LegacyCollectionKey(500) {
			bad = c
		} else if c.Error != "" {
			t.Errorf("good row %s has error %q", c.Key, c.Error)
		}
	}
	if bad.ID != 500 || bad.Layout != "legacy" || !strings.Contains(bad.Error, models.LegacyCollectionKey(500)) || !strings.Contains(bad.Error, "CollectionInfo") {
		t.Errorf("bad row: %+v", bad)
	}
	if !strings.Contains(stderr, "1 collection key(s) do not decode") {
		t.Errorf("stderr: %q", stderr)
	}
	for _, f := range []string{"table", "line"} {
		out, _ := e.mustRun("show collections --format " + f)
		if !strings.Contains(out, "books") || !strings.Contains(out, "does not decode") {
			t.Errorf("%s with a bad value:\n%s", f, out)
		}
	}
}

func TestCommandsRegistered(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	var paths []string
	for _, c := range Commands(e.inst) {
		paths = append(paths, c.Path())
	}
	if got := strings.Join(paths, ","); got != "show checkpoint,show session,show collections,show segment,show broadcast-task,"+
		"show etcd-kv,show database,show partition,show channel-watch,show replica,show index,show config-etcd,"+
		"show wal-distribution,show vchannel-health,show replicate" {
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

// oddSegment is a segment value with pulsar-style positions of the sample's
// WAL, for keys Milvus reads although heron used to skip them.
func (e *env) segmentValue(id, collection int64, vchannel string, state commonpb.SegmentState, n int64) []byte {
	wal := e.sample.WAL
	return sample.Segment{ID: id, Collection: collection, Partition: collection + 1, Channel: vchannel, Rows: 10, State: state,
		Start: sample.Position(vchannel, sample.ID(wal, n), ts(30), commonpb.WALName_Unknown),
		DML:   sample.Position(vchannel, sample.ID(wal, n+1), ts(31), commonpb.WALName_Unknown), Level: 2}.Encode()
}

// Issue 9 item 6: Milvus lists every key under datacoord-meta/s/ and
// unmarshals each value, so show segment shows every one, flagged as odd
// when the key is not {collection}/{partition}/{segment}.
func TestShowSegmentOddKeys(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	vch := e.pch(0) + "_100v0"
	odd := map[string]int64{
		models.SegmentPrefix + "100/1005":         1005,
		models.SegmentPrefix + "100/101/1006/x":   1006,
		models.SegmentPrefix + "abc/101/1007":     1007,
		models.SegmentPrefix + "100/101/1008\n":   1008,
		models.SegmentPrefix + "100/101/\x1b[2J9": 1009,
	}
	for k, id := range odd {
		e.put(k, e.segmentValue(id, 100, vch, commonpb.SegmentState_Flushed, id))
	}
	res, stderr := runJSON[SegmentResult](e, "show segment")
	if res.Total != 5+len(odd) || res.OddKeys != len(odd) || res.Errors != 0 || res.Counts["Flushed"] != 3+len(odd) {
		t.Fatalf("total %d odd %d errors %d counts %v", res.Total, res.OddKeys, res.Errors, res.Counts)
	}
	seen := map[string]bool{}
	for _, s := range res.Segments {
		id, isOdd := odd[s.Key]
		if s.Odd != isOdd {
			t.Errorf("%q: odd %v, want %v", s.Key, s.Odd, isOdd)
		}
		if !isOdd {
			continue
		}
		seen[s.Key] = true
		wal := commonpb.WALName_Pulsar
		if s.ID != id || s.Collection != 100 || s.VChannel != vch || s.State != "Flushed" ||
			s.StartPosition == nil || s.StartPosition.MessageIDHuman != human(wal, id) || s.DMLPosition == nil || s.DMLPosition.MessageIDHuman != human(wal, id+1) {
			t.Errorf("odd key %q: %+v start %+v dml %+v", s.Key, s, s.StartPosition, s.DMLPosition)
		}
	}
	if len(seen) != len(odd) {
		t.Errorf("odd keys shown: %v, want all of %v", seen, odd)
	}
	if !strings.Contains(stderr, "5 key(s) under datacoord-meta/s/ are not {collection}/{partition}/{segment}") {
		t.Errorf("no odd-key warning: %q", stderr)
	}

	// Filters on an odd key use its value: its key names no ids.
	res, _ = runJSON[SegmentResult](e, "show segment --segment 1007")
	if res.Total != 1 || res.Segments[0].Key != models.SegmentPrefix+"abc/101/1007" {
		t.Errorf("--segment 1007: %+v", res.Segments)
	}
	res, _ = runJSON[SegmentResult](e, "show segment --collection 100")
	if res.Total != 3+len(odd) {
		t.Errorf("--collection 100: %d rows", res.Total)
	}
	res, _ = runJSON[SegmentResult](e, "show segment --collection 200")
	if res.Total != 2 || res.OddKeys != 0 {
		t.Errorf("--collection 200: %+v", res)
	}

	// Table: flagged, escaped, one line per row.
	table, _ := e.mustRun("show segment --wide")
	for _, want := range []string{"odd key " + models.SegmentPrefix + `100/101/1008\n`, `100/101/\x1b[2J9`, "5 odd key(s)"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.ContainsAny(table, "\x1b\t\r") {
		t.Errorf("table holds a raw control character:\n%q", table)
	}
	if n := strings.Count(table, "\n"); n != 1+5+len(odd)+2 {
		t.Errorf("table has %d lines, want header, %d rows and 2 footer lines:\n%s", n, 5+len(odd), table)
	}
	lines, _ := e.mustRun("show segment --format line")
	if !strings.Contains(lines, `key="datacoord-meta/s/100/101/1008\n" odd=true`) || strings.Count(lines, "\n") != 5+len(odd)+1 {
		t.Errorf("line format:\n%s", lines)
	}
}

// seedSegments puts n Flushed segments of collection 900 in transactions of 100 puts.
func (e *env) seedSegments(n int) {
	e.t.Helper()
	vch := e.pch(2) + "_900v0"
	var ops []clientv3.Op
	flush := func() {
		if _, err := e.cli.Txn(ctxT(e.t)).Then(ops...).Commit(); err != nil {
			e.t.Fatal(err)
		}
		ops = ops[:0]
	}
	for i := 0; i < n; i++ {
		id := int64(900000 + i)
		ops = append(ops, clientv3.OpPut(e.inst.Layout.Meta(models.SegmentKey(900, 901, id)), string(e.segmentValue(id, 900, vch, commonpb.SegmentState_Flushed, int64(i)))))
		if len(ops) == 100 {
			flush()
		}
	}
	if len(ops) > 0 {
		flush()
	}
}

// Issue 10 §4: a table shows 1000 segments unless --limit, then says how many
// more there are; JSON and line are complete unless --limit is given.
func TestShowSegmentLimit(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	e.inst.PageSize = 400
	e.seedSegments(1003)
	const all = 1003 + 5

	table, stderr := e.mustRun("show segment")
	if !strings.Contains(stderr, "(1000 segment(s) shown; counting the others by state...)") {
		t.Errorf("no note while counting past the limit: %q", stderr)
	}
	rows := strings.Count(table, "\n") - 1 - 2 // header; "more" and counts lines
	if rows != 1000 || !strings.Contains(table, "\n8 more, --limit 0 for all\n") || !strings.Contains(table, "1000 segment(s) shown; by state: Dropped=2 Flushed=1006") {
		t.Errorf("default table: %d rows; tail:\n%s", rows, table[max(0, len(table)-300):])
	}
	table, _ = e.mustRun("show segment --limit 0")
	if n := strings.Count(table, "\n"); n != 1+all+1 || strings.Contains(table, "more") {
		t.Errorf("--limit 0: %d lines", n)
	}
	table, _ = e.mustRun("show segment --limit 3 --collection 100")
	if !strings.Contains(table, "\n3 segment(s) shown (collection 100); by state: Dropped=1 Flushed=2\n") || strings.Contains(table, "more") {
		t.Errorf("--limit 3 of 3:\n%s", table)
	}

	res, _ := runJSON[SegmentResult](e, "show segment")
	if res.Total != all || len(res.Segments) != all || res.More != 0 {
		t.Errorf("json: %d rows, total %d, more %d", len(res.Segments), res.Total, res.More)
	}
	res, _ = runJSON[SegmentResult](e, "show segment --limit 2")
	if len(res.Segments) != 2 || res.Total != 2 || res.More != all-2 || res.Counts["Flushed"] != 1006 {
		t.Errorf("json --limit 2: %d rows, total %d, more %d, counts %v", len(res.Segments), res.Total, res.More, res.Counts)
	}
	lines, _ := e.mustRun("show segment --format line")
	if n := strings.Count(lines, "kind=segment "); n != all {
		t.Errorf("line: %d segments, want %d", n, all)
	}
	lines, _ = e.mustRun("show segment --format line --limit 5")
	if n := strings.Count(lines, "kind=segment "); n != 5 || !strings.Contains(lines, fmt.Sprintf("more=%d", all-5)) {
		t.Errorf("line --limit 5: %d segments:\n%s", n, lines)
	}
	for _, bad := range []string{"--limit -1", "--limit x", "--limit ''"} {
		if _, _, code, err := e.run("show segment " + bad); bad != "--limit ''" && (code != 2 || !strings.Contains(fmt.Sprint(err), "--limit")) {
			t.Errorf("%s: exit %d, %v", bad, code, err)
		}
	}
	res, _ = runJSON[SegmentResult](e, "show segment --segment 900500")
	if len(res.Segments) != 1 || res.Segments[0].ID != 900500 || res.Counts["Flushed"] != 1 {
		t.Errorf("--segment 900500: %+v", res)
	}
}

// The streamed JSON document is byte for byte what framework.Render writes
// for the same value.
func TestShowSegmentJSONStreamsTheSameDocument(t *testing.T) {
	e := seeded(t, commonpb.WALName_WoodPecker)
	e.put(models.SegmentPrefix+"100/1005", []byte{0xff})
	for _, line := range []string{"show segment", "show segment --collection 4242"} {
		p := &SegmentParam{}
		p.Format = "json"
		if strings.Contains(line, "4242") {
			p.Collection = 4242
		}
		r, err := runSegment(ctxT(t), e.inst, p, framework.IO{Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(r.JSON(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := framework.Render(&got, r, "json"); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("%s: streamed JSON differs:\n%s\nwant:\n%s", line, got.String(), want)
		}
	}
}

// Issue 9 item 8: no key or value reaches the terminal raw through a table.
func TestTablesEscapeControlCharacters(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	e.put(models.SessionPrefix+"clear\x1b[2J", []byte(`{"ServerID":7,"ServerName":"x\ty","Address":"10.0.0.7:1\n2"}`))
	e.put(models.BroadcastTaskPrefix+"tab\tid", sample.BroadcastTask(int32(models.BroadcastPending)))
	e.put(models.SegmentPrefix+"100/101/1\t2", e.segmentValue(12, 100, e.pch(0)+"_100v0\x1b[31m", commonpb.SegmentState_Flushed, 3))
	for line, want := range map[string][]string{
		"show session":            {`session/clear\x1b[2J`, `x\ty`, `10.0.0.7:1\n2`},
		"show broadcast-task":     {`tab\tid`},
		"show segment --wide":     {`odd key datacoord-meta/s/100/101/1\t2`, `_100v0\x1b[31m`},
		"show collections":        {"books"},
		"show segment --detail":   {"START ID"},
		"show collections --wide": {"VCHANNELS"},
	} {
		out, _ := e.mustRun(line)
		if strings.ContainsAny(out, "\x1b\t\r") {
			t.Errorf("%s: raw control character in\n%q", line, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: lacks %q:\n%s", line, w, out)
			}
		}
	}
	// JSON stays exact.
	res, _ := runJSON[SessionResult](e, "show session")
	if len(res.Sessions) != 1 || res.Sessions[0].Key != models.SessionPrefix+"clear\x1b[2J" || res.Sessions[0].Address != "10.0.0.7:1\n2" {
		t.Errorf("json sessions: %+v", res.Sessions)
	}
}

// Issue 10 §4: tables fit 120 columns unless --wide.
func TestTablesFit120Columns(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	long := "by-dev-rootcoord-dml_1_449012345678901234v0"
	e.put(models.SegmentKey(449012345678901234, 449012345678901235, 449012345678901236),
		e.segmentValue(449012345678901236, 449012345678901234, long, commonpb.SegmentState_Growing, 449012345))
	e.put(models.SessionPrefix+"datanode-449012345678901234", []byte(`{"ServerID":449012345678901234,"ServerName":"datanode","Address":"datanode-0.datanode.milvus.svc.cluster.local:21124","Version":"2.6.23-dev-449012345678901234"}`))
	widest := func(out string) int {
		w := 0
		for _, l := range strings.Split(out, "\n") {
			w = max(w, utf8.RuneCountInString(l))
		}
		return w
	}
	for _, line := range []string{"show segment", "show segment --detail", "show session", "show collections", "show broadcast-task", "show database", "show replica", "show index", "show checkpoint"} {
		out, _ := e.mustRun(line)
		if w := widest(out); w > 120 {
			t.Errorf("%s: %d columns wide:\n%s", line, w, out)
		}
	}
	out, _ := e.mustRun("show segment")
	if strings.Contains(out, "START ID") || strings.Contains(out, human(commonpb.WALName_Pulsar, 449012345)) {
		t.Errorf("narrow table shows positions:\n%s", out)
	}
	out, _ = e.mustRun("show segment --detail")
	if !strings.Contains(out, "...") {
		t.Errorf("nothing elided:\n%s", out)
	}
	out, _ = e.mustRun("show segment --detail --wide")
	if widest(out) <= 120 || !strings.Contains(out, long) || !strings.Contains(out, human(commonpb.WALName_Pulsar, 449012346)) {
		t.Errorf("--wide does not show every cell in full:\n%s", out)
	}
}

// Issue 10 §4: --format line prints a line even for an empty result.
func TestLineFormatOfEmptyResults(t *testing.T) {
	cli, endpoint := etcdtest.Start(t)
	inst := instance.New(cli, models.NewLayout("empty", "meta"), []string{endpoint})
	e := &env{t: t, cli: cli, inst: inst}
	for line, want := range map[string]string{
		"show session":        "kind=summary sessions=0 alive=0 errors=0\n",
		"show broadcast-task": "kind=summary tasks=0 in_flight=0 errors=0\n",
		"show collections":    "kind=summary collections=0 tombstones=0 errors=0\n",
		"show segment":        "kind=counts total=0 by_state=\"\" more=0 odd_keys=0 errors=0\n",
	} {
		if out, _ := e.mustRun(line + " --format line"); out != want {
			t.Errorf("%s --format line: %q, want %q", line, out, want)
		}
		if out, _ := e.mustRun(line); !strings.Contains(out, "0 ") {
			t.Errorf("%s: %q", line, out)
		}
	}
	res, _ := runJSON[SegmentResult](e, "show segment")
	if res.Segments == nil || len(res.Segments) != 0 || res.Counts == nil {
		t.Errorf("empty json: %+v", res)
	}
}

func TestNaturalOrder(t *testing.T) {
	names := []string{"by-dev-rootcoord-dml_10", "by-dev-rootcoord-dml_2", "by-dev-rootcoord-dml_1_100v0", "by-dev-rootcoord-dml_1",
		"by-dev-rootcoord-dml_02", "a", "by-dev-rootcoord-dml_10_7v1", "by-dev-rootcoord-dml_10_7v0", ""}
	slices.SortFunc(names, naturalCompare)
	want := []string{"", "a", "by-dev-rootcoord-dml_1", "by-dev-rootcoord-dml_1_100v0", "by-dev-rootcoord-dml_2", "by-dev-rootcoord-dml_02",
		"by-dev-rootcoord-dml_10", "by-dev-rootcoord-dml_10_7v0", "by-dev-rootcoord-dml_10_7v1"}
	if !slices.Equal(names, want) {
		t.Errorf("natural order:\n%q\nwant\n%q", names, want)
	}

	e := seeded(t, commonpb.WALName_Kafka)
	for _, id := range []string{"10", "9", "100"} {
		e.put(models.BroadcastTaskPrefix+id, sample.BroadcastTask(int32(models.BroadcastTombstone)))
	}
	res, _ := runJSON[BroadcastResult](e, "show broadcast-task")
	var ids []string
	for _, b := range res.Tasks {
		ids = append(ids, b.ID)
	}
	if strings.Join(ids, ",") != "1,9,10,100" {
		t.Errorf("broadcast tasks in order %v", ids)
	}
}

func TestTableElidesAndStreams(t *testing.T) {
	// The shared prefix goes, the end that tells rows apart stays
	// (issue 16 §4: dml_0 and dml_10 must not both read ...0v0).
	vchannels := []string{"by-dev-rootcoord-dml_0_100v0", "by-dev-rootcoord-dml_10_100v0"}
	col := framework.NewColumnElider(vchannels, 15)
	if got := elide(vchannels[0], 15, false, col); got != "...dml_0_100v0" {
		t.Errorf("elide shared prefix: %q", got)
	}
	if got := elide(vchannels[1], 15, false, col); got != "...dml_10_100v0" {
		t.Errorf("elide shared prefix: %q", got)
	}
	if got := elide(vchannels[1], 12, false, framework.NewColumnElider(vchannels, 12)); got != "..._10_100v0" {
		t.Errorf("elide keeps the end: %q", got)
	}
	if got := elide("does not decode: not a SegmentInfo", 15, true, col); got != "does not dec..." {
		t.Errorf("elide tail: %q", got)
	}
	if got := elide("short", 15, false, col); got != "short" {
		t.Errorf("elide short: %q", got)
	}

	// Rows go out a block at a time, before flush.
	var buf bytes.Buffer
	tb := newTable(&buf, "A", "B")
	for i := 0; i < tableBlock; i++ {
		tb.row(itoa(i), "x")
	}
	if buf.Len() == 0 {
		t.Fatalf("nothing written after %d rows", tableBlock)
	}
	tb.row("wider than before", "y")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != tableBlock+2 || lines[0] != "A    B" || lines[len(lines)-1] != "wider than before  y" {
		t.Errorf("%d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	// Without fit a table is as wide as its cells; empty cells are "-".
	buf.Reset()
	tb = newTable(&buf, "KEY", "VALUE")
	tb.row(strings.Repeat("k", 130), "")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), strings.Repeat("k", 130)+"  -\n") {
		t.Errorf("unfitted table:\n%s", buf.String())
	}
}
