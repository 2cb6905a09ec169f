package check

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/show"
	"github.com/heron-shell/heron/tests/sampletest"
	"github.com/heron-shell/heron/tests/shelltest"
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

// Every FAIL a repair fixes names that repair's exact command: in the
// item's Commands (JSON "commands"), each once, in the order found, and in
// the table on a line of its own after the item (at the margin when it
// does not fit 80 columns indented); a WARN and an ok item name none.
func TestEachFailNamesItsRepair(t *testing.T) {
	long := "by-dev-rootcoord-dml_3_437744071571606912v1"
	pending := []Task{{Key: models.BroadcastTaskPrefix + "2", ModRevision: 4, Task: &models.BroadcastTask{State: models.BroadcastPending}}}
	a, b := healthy(now, 5, tso(now.Add(-time.Minute))), healthy(now.Add(2*time.Minute), 5, tso(now))
	a.Tasks, b.Tasks = pending, pending
	st := b.State
	// long's pchannel's consume checkpoint is fresh (long is frozen behind it); dml_5's
	// is as old as its vchannel's channel checkpoint (an idle pchannel): a
	// FAIL no repair moves, so it names none.
	st.ConsumeCPs[models.PChannelOf(long)] = show.ConsumeCP{Key: models.ConsumeCheckpointKey(models.PChannelOf(long)), CP: &models.WALCheckpoint{HasMessageID: true, WAL: commonpb.WALName_Kafka, MessageID: "0", TimeTick: tso(now)}}
	st.ConsumeCPs["dml_5"] = show.ConsumeCP{Key: models.ConsumeCheckpointKey("dml_5"), CP: &models.WALCheckpoint{HasMessageID: true, WAL: commonpb.WALName_Kafka, MessageID: "0", TimeTick: tso(now.Add(-time.Hour))}}
	st.Live["dml_5_100v0"] = 100
	st.Registered[models.VChannelMetaKey("dml_5", "dml_5_100v0")] = true
	st.ChannelCPs = append(st.ChannelCPs, show.ChannelCPEntry{Key: models.ChannelCPKey("dml_5_100v0"), VChannel: "dml_5_100v0",
		Position: &show.ChannelPosition{MsgID: make([]byte, 8), Timestamp: tso(now.Add(-time.Hour)), WAL: "kafka"}})
	st.ChannelCPs[0].Position.Timestamp = tso(now.Add(-time.Hour)) // dml_0_100v0 frozen
	st.Live[long] = 437744071571606912
	st.Registered[models.VChannelMetaKey(models.PChannelOf(long), long)] = true
	st.ChannelCPs = append(st.ChannelCPs, show.ChannelCPEntry{Key: models.ChannelCPKey(long), VChannel: long,
		Position: &show.ChannelPosition{MsgID: make([]byte, 8), Timestamp: tso(now.Add(-time.Hour)), WAL: "kafka"}})
	delete(st.Registered, models.VChannelMetaKey("dml_1", "dml_1_100v0"))
	st.Schemaless = map[string]show.VChannelRef{
		models.VChannelMetaKey("dml_0", "dml_0_100v0"): {VChannel: "dml_0_100v0", Collection: 100},
		models.VChannelMetaKey("dml_1", "dml_1_100v0"): {VChannel: "dml_1_100v0", Collection: 100},
	}
	b.Replicate = Replicate{Config: &models.ReplicateConfig{Clusters: []models.ReplicateCluster{{ID: "by-dev"}, {ID: "standby"}}}, PChannels: []Replicating{
		{Key: models.ReplicatingPChannelKey("old", "dml_1"), Meta: &models.ReplicatingPChannelMeta{Source: "dml_1", TargetCluster: models.ReplicateCluster{ID: "old"}}},
		{Key: models.ReplicatingPChannelKey("standby", "dml_0"), Meta: &models.ReplicatingPChannelMeta{Source: "dml_0", TargetCluster: models.ReplicateCluster{ID: "standby"}}},
	}}
	r := Judge([]*Snapshot{a, b}, opts())
	want := map[string][]string{
		"progress":              {"repair checkpoint --vchannel dml_0_100v0 --set-to pchannel-cp", "repair checkpoint --vchannel " + long + " --set-to pchannel-cp"},
		"vchannel-registration": {"repair vchannel-registration --vchannel dml_1_100v0"},
		"broadcast-tasks":       {"repair wal-broadcast-task --id 2 --mode reset"},
		"recovery-storage":      {"repair wal-recovery-storage"},
		"replicate-pchannels":   {"remove replicate-pchannel --target-cluster old --source-channel dml_1"},
	}
	for _, it := range r.Items {
		if cmds, ok := want[it.Name]; ok {
			assert.Equal(t, Fail, it.Verdict, it.Name)
			assert.Equal(t, cmds, it.Commands, it.Name)
		} else {
			assert.Empty(t, it.Commands, "%s (%s) names no repair", it.Name, it.Verdict)
		}
	}
	assert.Equal(t, []string{"streamingnode-meta/wal/dml_0/vchannel/dml_0_100v0", "streamingnode-meta/wal/dml_1/vchannel/dml_1_100v0"}, item(t, r, "recovery-storage").Keys)
	assert.Contains(t, item(t, r, "progress").Keys, "datacoord-meta/channel-cp/dml_5_100v0", "the idle pchannel's vchannel FAILs")
	assert.Equal(t, []string{"streamingcoord-meta/replicating-pchannel/old-dml_1"}, item(t, r, "replicate-pchannels").Keys)

	j, err := json.Marshal(r.JSON())
	require.NoError(t, err)
	assert.Contains(t, string(j), `"commands":["repair wal-broadcast-task --id 2 --mode reset"]`)
	assert.Equal(t, len(want), strings.Count(string(j), `"commands"`), "an item without a repair has no commands field")

	var tb bytes.Buffer
	require.NoError(t, r.Table(&tb))
	table := tb.String()
	for _, cmds := range want {
		for _, c := range cmds {
			assert.Regexp(t, "(?m)^(        )?"+regexp.QuoteMeta(c)+"$", table, "each command whole on a line of its own")
		}
	}
	assert.Contains(t, table, "      commands (each a plan unless --run):\n        repair checkpoint --vchannel dml_0_100v0 --set-to pchannel-cp\nrepair checkpoint --vchannel "+long+" --set-to pchannel-cp\n",
		"the command too wide for its indent starts at the margin")
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "WARN") || strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "      do: ") {
			continue // an item's row and its do: line are as they were
		}
		if len(l) > 80 {
			assert.Regexp(t, "^(repair|remove) [^ ]+ --", l, "only a command alone on its line is wider than 80 columns")
		}
	}
	var lb bytes.Buffer
	require.NoError(t, r.Lines(&lb))
	assert.Contains(t, lb.String(), "kind=command item=recovery-storage command=\"repair wal-recovery-storage\"\n")

	assert.Empty(t, item(t, Judge([]*Snapshot{b}, opts()), "broadcast-tasks").Commands, "one read: a WARN, no repair named")
}

// A replicate configuration that does not decode is a WARN naming its key
// (stale entries cannot be told); with none stored, every entry is stale.
func TestReplicatePChannelsWithoutAConfiguration(t *testing.T) {
	s := healthy(now, 5, 1)
	s.Replicate = Replicate{ConfigError: "garbage", PChannels: []Replicating{{Key: models.ReplicatingPChannelKey("old", "dml_1"),
		Meta: &models.ReplicatingPChannelMeta{Source: "dml_1", TargetCluster: models.ReplicateCluster{ID: "old"}}}}}
	it := item(t, Judge([]*Snapshot{s}, opts()), "replicate-pchannels")
	assert.Equal(t, Warn, it.Verdict)
	assert.Equal(t, []string{models.ReplicateConfiguration}, it.Keys)
	assert.Empty(t, it.Commands)

	s.Replicate.ConfigError = ""
	it = item(t, Judge([]*Snapshot{s}, opts()), "replicate-pchannels")
	assert.Equal(t, Fail, it.Verdict)
	assert.Equal(t, []string{"remove replicate-pchannel --target-cluster old --source-channel dml_1"}, it.Commands)

	assert.Equal(t, OK, item(t, Judge([]*Snapshot{healthy(now, 5, 1)}, opts()), "replicate-pchannels").Verdict)
}

// A watch over a crash loop: a term that rises at consecutive reads, or by
// more than one, is a FAIL even while the checkpoint moves (the e2e case:
// term 4 -> 21 over a watch of a few reads used to be a WARN); a single
// rise by one stays a reassignment (WARN). The count of rises survives
// the reads keep drops.
func TestCrashLoopAcrossReads(t *testing.T) {
	o := opts()
	watch := func(terms ...int64) Item {
		var reads []*Snapshot
		for i, term := range terms {
			reads = keep(reads, healthy(now.Add(time.Duration(i)*time.Second), term, uint64(10+i)), o)
		}
		return item(t, Judge(reads, o), "pchannel-assignment")
	}
	it := watch(4, 9, 15, 21)
	assert.Equal(t, Fail, it.Verdict)
	assert.Contains(t, it.Seen, "dml_0 term rose 4 -> 21 between reads, in 3 read intervals: a crash loop")
	assert.Equal(t, []string{"streamingcoord-meta/pchannel/dml_0", "streamingcoord-meta/pchannel/dml_1"}, it.Keys)

	it = watch(4, 21)
	assert.Equal(t, Fail, it.Verdict, "by more than one in one interval")
	assert.Contains(t, it.Seen, "in 1 read interval: a crash loop")

	it = watch(5, 6, 5, 6)
	assert.Equal(t, Fail, it.Verdict, "risen in two intervals, though 5 -> 6 overall")
	assert.Contains(t, it.Seen, "in 2 read intervals")

	it = watch(5, 6, 6, 6)
	assert.Equal(t, Warn, it.Verdict)
	assert.Contains(t, it.Seen, "reassigned between reads (term 5 -> 6)")

	// Reads given to Judge directly (not kept by a watch) are counted too.
	reads := []*Snapshot{healthy(now, 5, 1), healthy(now.Add(time.Second), 6, 2), healthy(now.Add(2*time.Second), 7, 3)}
	assert.Equal(t, Fail, item(t, Judge(reads, o), "pchannel-assignment").Verdict)
}

// check reads what its new items need from etcd: a NORMAL vchannel meta
// with no schema and a replicating pchannel to a cluster the configuration
// does not hold are FAILs naming their absolute keys and their repairs.
func TestCheckReadsRecoveryStorageAndReplication(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Kafka)
	put := func(rel string, v []byte) {
		if _, err := s.Cli.Put(context.Background(), s.Inst.Layout.Meta(rel), string(v)); err != nil {
			t.Fatal(err)
		}
	}
	p := s.Sample.PChannels[1]
	v := p + "_900v0"
	put(models.VChannelMetaKey(p, v), sample.VChannelMeta(v, 900))
	put(models.ReplicateConfiguration, sampletest.ReplicateConfiguration("by-dev", "standby"))
	put(models.ReplicatingPChannelKey("standby", p), sampletest.ReplicatingPChannel(p, "standby-rootcoord-dml_0", "standby"))
	put(models.ReplicatingPChannelKey("old", p), sampletest.ReplicatingPChannel(p, "old-rootcoord-dml_0", "old"))
	out, errs, code, _ := shelltest.Run(t, Commands(s.Inst), "check --target-wal kafka --format json")
	require.Equal(t, 1, code, errs)
	var res Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	byName := map[string]Item{}
	for _, it := range res.Items {
		byName[it.Name] = it
	}
	rs := byName["recovery-storage"]
	assert.Equal(t, Fail, rs.Verdict)
	assert.Equal(t, []string{s.Inst.Layout.Meta(models.VChannelMetaKey(p, v))}, rs.Keys, "the sample's own vchannels have schema keys")
	assert.Equal(t, []string{"repair wal-recovery-storage"}, rs.Commands)
	rp := byName["replicate-pchannels"]
	assert.Equal(t, Fail, rp.Verdict)
	assert.Equal(t, []string{s.Inst.Layout.Meta(models.ReplicatingPChannelKey("old", p))}, rp.Keys)
	assert.Equal(t, []string{"remove replicate-pchannel --target-cluster old --source-channel " + p}, rp.Commands)

	out, _, _, _ = shelltest.Run(t, Commands(s.Inst), "check --target-wal kafka")
	assert.Contains(t, out, "\n      commands (each a plan unless --run):\nremove replicate-pchannel --target-cluster old --source-channel "+p+"\n")
}

// An entry that names no target cluster or no source pchannel cannot be
// removed by its flags (remove replicate-pchannel refuses an empty one):
// a WARN naming its key, never a command that does not close it.
func TestReplicatePChannelsWithoutACluster(t *testing.T) {
	for _, m := range []*models.ReplicatingPChannelMeta{{Source: "dml_1"}, {Source: "dml_1", TargetCluster: models.ReplicateCluster{ID: " "}}, {TargetCluster: models.ReplicateCluster{ID: "old"}}} {
		s := healthy(now, 5, 1)
		s.Replicate = Replicate{Config: &models.ReplicateConfig{Clusters: []models.ReplicateCluster{{ID: "by-dev"}}},
			PChannels: []Replicating{{Key: models.ReplicatingPChannelKey("old", "dml_1"), Meta: m}}}
		it := item(t, Judge([]*Snapshot{s}, opts()), "replicate-pchannels")
		assert.Equal(t, Warn, it.Verdict)
		assert.Equal(t, []string{models.ReplicatingPChannelKey("old", "dml_1")}, it.Keys)
		assert.Empty(t, it.Commands)
	}
}
