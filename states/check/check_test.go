package check

import (
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/show"
)

var now = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

func tso(t time.Time) uint64 { return uint64(t.UnixMilli()) << 18 }

// healthy is an instance restarted on kafka: two pchannels on live node 7
// at term 5, one live vchannel each, registered, checkpoints a second old,
// and a dropped vchannel's marker.
func healthy(at time.Time, term int64, tick uint64) *Snapshot {
	st := &show.ChannelState{Revision: 10, Sessions: map[int64]instance.KV{7: {Lease: 99}}, ConsumeCPs: map[string]show.ConsumeCP{},
		Registered: map[string]bool{}, Live: map[string]int64{}, Config: map[string]string{"config/mqtype": "kafka"}, Collections: 1}
	for _, p := range []string{"dml_0", "dml_1"} {
		st.PChannels = append(st.PChannels, show.PChannelEntry{Key: models.PChannelPrefix + p,
			Meta: &models.PChannelMeta{Name: p, Term: term, State: models.PChannelAssigned, Node: &models.StreamingNode{ServerID: 7}}})
		st.ConsumeCPs[p] = show.ConsumeCP{Key: models.ConsumeCheckpointKey(p), CP: &models.WALCheckpoint{HasMessageID: true, WAL: commonpb.WALName_Kafka, MessageID: "0", TimeTick: tick}}
		v := p + "_100v0"
		st.Live[v] = 100
		st.Registered[models.VChannelMetaKey(p, v)] = true
		st.ChannelCPs = append(st.ChannelCPs, show.ChannelCPEntry{Key: models.ChannelCPKey(v), VChannel: v,
			Position: &show.ChannelPosition{MsgID: make([]byte, 8), Timestamp: tso(at.Add(-time.Second)), WAL: "kafka"}})
	}
	st.ChannelCPs = append(st.ChannelCPs, show.ChannelCPEntry{Key: models.ChannelCPKey("dml_0_400v0"), VChannel: "dml_0_400v0",
		Position: &show.ChannelPosition{Timestamp: ^uint64(0), WAL: "unknown", Dropped: true}})
	return &Snapshot{At: at, State: st}
}

func opts() Options {
	return Options{Target: commonpb.WALName_Kafka, TargetFrom: "--target-wal", MaxLag: models.DefaultChannelCPMaxLag, StuckAfter: time.Minute}
}

func item(t *testing.T, r *Result, name string) Item {
	t.Helper()
	for _, it := range r.Items {
		if it.Name == name {
			return it
		}
	}
	t.Fatalf("no item %s", name)
	return Item{}
}

func TestHealthyIsOKAndTheDroppedMarkerIsNeverJudged(t *testing.T) {
	r := Judge([]*Snapshot{healthy(now, 5, 1)}, opts())
	for _, it := range r.Items {
		assert.Equal(t, OK, it.Verdict, "%s: %s", it.Name, it.Seen)
	}
	assert.Equal(t, OK, r.Verdict)
	assert.Contains(t, item(t, r, "progress").Seen, "2 live channel checkpoint(s)")
}

func TestAFailNamesTheExactKey(t *testing.T) {
	s := healthy(now, 5, 1)
	s.State.PChannels[1].Meta.Node.ServerID = 8 // no session
	s.State.ConsumeCPs["dml_0"].CP.WAL = commonpb.WALName_Pulsar
	delete(s.State.Registered, models.VChannelMetaKey("dml_1", "dml_1_100v0"))
	s.State.ChannelCPs[0].Position.Timestamp = tso(now.Add(-time.Hour))
	r := Judge([]*Snapshot{s}, opts())
	assert.Equal(t, Fail, r.Verdict)
	assert.Equal(t, []string{"session/streamingnode-8"}, item(t, r, "pchannel-assignment").Keys)
	assert.Equal(t, []string{"streamingnode-meta/wal/dml_0/consume-checkpoint"}, item(t, r, "wal-names").Keys)
	assert.Equal(t, []string{"streamingnode-meta/wal/dml_1/vchannel/dml_1_100v0"}, item(t, r, "vchannel-registration").Keys)
	p := item(t, r, "progress")
	assert.Equal(t, Fail, p.Verdict)
	assert.Equal(t, []string{"datacoord-meta/channel-cp/dml_0_100v0"}, p.Keys)
}

// A term that rises while the consume checkpoint stands still is a crash
// loop; one that rises while it moves is a reassignment (a warning); a
// consume checkpoint that stands still on its own is an idle pchannel.
func TestTermAcrossReads(t *testing.T) {
	r := Judge([]*Snapshot{healthy(now, 5, 1), healthy(now.Add(10*time.Second), 6, 1)}, opts())
	a := item(t, r, "pchannel-assignment")
	assert.Equal(t, Fail, a.Verdict)
	assert.Contains(t, a.Seen, "crash loop")
	assert.Contains(t, item(t, r, "progress").Seen, "idle pchannel")
	assert.Equal(t, OK, item(t, r, "progress").Verdict)

	r = Judge([]*Snapshot{healthy(now, 5, 1), healthy(now.Add(10*time.Second), 6, 2)}, opts())
	assert.Equal(t, Warn, item(t, r, "pchannel-assignment").Verdict)
}

func TestGoingBackIsReplay(t *testing.T) {
	r := Judge([]*Snapshot{healthy(now, 5, 9), healthy(now.Add(10*time.Second), 5, 3)}, opts())
	assert.Equal(t, Fail, item(t, r, "replay").Verdict)

	o := opts()
	o.Before = &Before{Created: now.Add(-time.Minute), Terms: map[string]int64{"dml_0": 5}, TimeTicks: map[string]uint64{"dml_1": 50}}
	r = Judge([]*Snapshot{healthy(now, 5, 9)}, o)
	assert.Equal(t, []string{"streamingcoord-meta/pchannel/dml_0"}, item(t, r, "pchannel-assignment").Keys, "term 5 is not above the pre-switch 5")
	assert.Equal(t, []string{"streamingnode-meta/wal/dml_1/consume-checkpoint"}, item(t, r, "replay").Keys, "tick 9 is behind the pre-switch 50")
}

func TestMajorityTarget(t *testing.T) {
	s := healthy(now, 5, 1)
	s.State.ConsumeCPs["dml_0"].CP.WAL = commonpb.WALName_Pulsar
	s.State.ConsumeCPs["dml_2"] = show.ConsumeCP{Key: models.ConsumeCheckpointKey("dml_2"), CP: &models.WALCheckpoint{HasMessageID: true, WAL: commonpb.WALName_Kafka}}
	w, from := majorityWAL(s.State)
	assert.Equal(t, commonpb.WALName_Kafka, w)
	assert.Equal(t, "the majority: 2 of 3 consume checkpoints", from)
}

func TestStuckBroadcastTask(t *testing.T) {
	pending := []Task{{Key: models.BroadcastTaskPrefix + "2", ModRevision: 4, Task: &models.BroadcastTask{State: models.BroadcastPending}}}
	a, b := healthy(now, 5, 1), healthy(now.Add(2*time.Minute), 5, 1)
	a.Tasks, b.Tasks = pending, pending
	r := Judge([]*Snapshot{b}, opts())
	assert.Equal(t, Warn, item(t, r, "broadcast-tasks").Verdict, "one read cannot tell how long")
	r = Judge([]*Snapshot{a, b}, opts())
	it := item(t, r, "broadcast-tasks")
	require.Equal(t, Fail, it.Verdict)
	assert.Equal(t, []string{"streamingcoord-meta/broadcast-task/2"}, it.Keys)
}

func TestOnlineSwitch(t *testing.T) {
	s := healthy(now, 5, 1)
	for _, p := range []string{"dml_0", "dml_1"} {
		cp := s.State.ConsumeCPs[p].CP
		cp.WAL = commonpb.WALName_Pulsar
		cp.AlterWAL = &models.AlterWALState{Target: commonpb.WALName_Kafka, Stage: models.AlterWALStageFlushing}
	}
	s.State.Config["config/mqtype"] = "pulsar"
	s.Tasks = []Task{{Key: models.BroadcastTaskPrefix + "9", Task: &models.BroadcastTask{State: models.BroadcastPending, MessageType: models.MessageTypeAlterWAL,
		VChannels: []string{"dml_0_vcchan", "dml_1_vcchan"}, AckedVChannels: []bool{true, false}, Acked: 1}}}
	o := opts()
	o.Online = true
	r := Judge([]*Snapshot{s}, o)
	assert.Equal(t, Warn, r.Verdict, "in progress, not failed")
	assert.Contains(t, item(t, r, "online-switch").Seen, "broadcast 9 Pending: 1 of 2 vchannel(s) acked (waiting on dml_1); pchannels: 2 FLUSHING")
	assert.Equal(t, OK, item(t, r, "broadcast-tasks").Verdict, "the AlterWAL task is the online item's")

	old := healthy(now, 5, 1)
	old.State.ConsumeCPs["dml_0"].CP.AlterWAL = &models.AlterWALState{Target: commonpb.WALName_Kafka, Stage: models.AlterWALStageAdvanceCheckpoint,
		TimeTick: tso(now.Add(-10 * time.Minute))}
	it := item(t, Judge([]*Snapshot{old}, o), "online-switch")
	assert.Equal(t, Fail, it.Verdict, "one read: the switch message is 10 minutes old, over --stuck-after")
	assert.Contains(t, it.Seen, "dml_0 is still in stage ADVANCE_CHECKPOINT 10m0s after the switch message")

	s.State.Config["config/mqtype"] = "kafka" // milvus#52948
	r = Judge([]*Snapshot{s}, o)
	it = item(t, r, "online-switch")
	assert.Equal(t, Fail, it.Verdict)
	assert.Equal(t, []string{"config/mqtype"}, it.Keys)
}

// On a woodpecker target, a log of a pchannel created before the switch
// holds old entries: replay FAILs naming its LogMeta key; a log created
// after it, or one whose creation time is not recorded, is not flagged.
func TestWoodpeckerLogsBeforeTheSwitch(t *testing.T) {
	s := healthy(now, 5, 1)
	s.Woodpecker = []WoodpeckerLog{
		{Key: "by-dev/woodpecker/logs/dml_0", Created: now.Add(-time.Hour), Segments: 2},
		{Key: "by-dev/woodpecker/logs/dml_1", Created: now},
		{Key: "by-dev/woodpecker/logs/dml_2"},
	}
	o := opts()
	o.Target = commonpb.WALName_WoodPecker
	o.Before = &Before{Created: now.Add(-time.Minute)}
	it := item(t, Judge([]*Snapshot{s}, o), "replay")
	assert.Equal(t, Fail, it.Verdict)
	assert.Equal(t, []string{"by-dev/woodpecker/logs/dml_0"}, it.Keys)
}

// A root with no streaming metadata at all judges without a panic: no
// pchannel is a FAIL naming the prefix, no consume checkpoint names a WAL.
func TestEmptyInstance(t *testing.T) {
	st := &show.ChannelState{Sessions: map[int64]instance.KV{}, ConsumeCPs: map[string]show.ConsumeCP{}, Registered: map[string]bool{},
		Live: map[string]int64{}, Config: map[string]string{}}
	o := opts()
	o.Target, o.TargetFrom = majorityWAL(st)
	o.Online = true
	r := Judge([]*Snapshot{{At: now, State: st}, {At: now.Add(time.Minute), State: st}}, o)
	assert.Equal(t, Fail, r.Verdict)
	assert.Equal(t, []string{models.PChannelPrefix}, item(t, r, "pchannel-assignment").Keys)
	assert.Equal(t, "unknown", r.TargetWAL)
	assert.Equal(t, Fail, item(t, r, "wal-names").Verdict)
	assert.Contains(t, item(t, r, "wal-names").Seen, "the target is not known")
}

// A watch keeps the first and the latest read only; a checkpoint that went
// back in a read dropped since is still reported.
func TestWatchKeepsTwoReadsAndWhatWentBack(t *testing.T) {
	o := opts()
	o.meta, o.root = func(s string) string { return s }, func(s string) string { return s }
	var reads []*Snapshot
	for i, tick := range []uint64{5, 3, 9, 10} { // back from 5 to 3, then past 5 again
		reads = keep(reads, healthy(now.Add(time.Duration(i)*10*time.Second), 5, tick), o)
	}
	require.Len(t, reads, 2)
	it := item(t, Judge(reads, o), "replay")
	assert.Equal(t, Fail, it.Verdict)
	assert.Contains(t, it.Seen, "went back between reads (5 -> 3)")
}
