package check

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/show"
)

// Verdicts.
const (
	OK   = "ok"
	Warn = "WARN"
	Fail = "FAIL"
)

// Item is one row of `check`: a named check, its verdict, what was seen,
// what to do, the exact keys at fault (absolute etcd keys) and the exact
// command lines of the repairs that fix its FAILs.
type Item struct {
	Name     string   `json:"item"`
	Verdict  string   `json:"verdict"`
	Seen     string   `json:"seen"`
	Do       string   `json:"do,omitempty"`
	Keys     []string `json:"keys"`
	Commands []string `json:"commands,omitempty"`
}

// finding is one problem an item found.
type finding struct {
	verdict string
	key     string
	seen    string
}

// judge folds findings into an item: the worst verdict, the first
// problem's text (with how many more), every key once.
func judge(name, okSeen, do string, fs []finding) Item {
	it := Item{Name: name, Verdict: OK, Seen: okSeen, Keys: []string{}}
	if len(fs) == 0 {
		return it
	}
	sort.SliceStable(fs, func(i, j int) bool { return rank(fs[i].verdict) > rank(fs[j].verdict) })
	it.Verdict, it.Seen, it.Do = fs[0].verdict, fs[0].seen, do
	if len(fs) > 1 {
		it.Seen += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	for _, f := range fs {
		if f.key != "" && !slices.Contains(it.Keys, f.key) && len(it.Keys) < maxListed {
			it.Keys = append(it.Keys, f.key)
		}
	}
	return it
}

// withCommands adds to a FAILed item the commands of the repairs of its
// findings, in the order found, each once, as many as keys are listed.
func withCommands(it Item, cmds []string) Item {
	if it.Verdict != Fail {
		return it
	}
	for _, c := range cmds {
		if !slices.Contains(it.Commands, c) && len(it.Commands) < maxListed {
			it.Commands = append(it.Commands, c)
		}
	}
	return it
}

func rank(v string) int {
	switch v {
	case Fail:
		return 2
	case Warn:
		return 1
	}
	return 0
}

// Options are what the items judge against.
type Options struct {
	Target     commonpb.WALName
	TargetFrom string // "--target-wal" or how the majority was counted
	Before     *Before
	MaxLag     time.Duration
	StuckAfter time.Duration
	Online     bool
	// meta and root make keys absolute for the operator.
	meta, root func(string) string
}

// majorityWAL is the WAL most consume checkpoints name, and a sentence saying so.
func majorityWAL(st *show.ChannelState) (commonpb.WALName, string) {
	count := map[commonpb.WALName]int{}
	for _, cc := range st.ConsumeCPs {
		if cc.CP.HasMessageID {
			count[cc.CP.WAL]++
		}
	}
	best, n := commonpb.WALName_Unknown, 0
	for w, c := range count {
		if c > n || (c == n && w < best) {
			best, n = w, c
		}
	}
	return best, fmt.Sprintf("the majority: %d of %d consume checkpoints", n, len(st.ConsumeCPs))
}

func pchannelName(key string) string { return strings.TrimPrefix(key, models.PChannelPrefix) }

// assignment: every pchannel ASSIGNED to a streaming node whose session
// holds a lease, its term above the pre-switch term, stable across reads:
// a term that rises while the checkpoint stands still, rises in two read
// intervals or more, or by more than one, is a crash loop (each start of
// the streaming node takes the pchannel at a new term); a single rise by
// one is a reassignment.
func assignment(reads []*Snapshot, o Options) Item {
	first, last := reads[0].State, reads[len(reads)-1].State
	var fs []finding
	if len(last.PChannels) == 0 {
		fs = append(fs, finding{Fail, o.meta(models.PChannelPrefix), "no pchannel under streamingcoord-meta/pchannel/: the streaming coordinator has not started"})
	}
	firstTerms := map[string]int64{}
	for _, pe := range first.PChannels {
		firstTerms[pchannelName(pe.Key)] = pe.Meta.Term
	}
	rises := termRises(reads)
	nodes := map[int64]bool{}
	for _, pe := range last.PChannels {
		p, m := pchannelName(pe.Key), pe.Meta
		key := o.meta(pe.Key)
		if m.State != models.PChannelAssigned {
			fs = append(fs, finding{Fail, key, fmt.Sprintf("%s is %s (term %d), not ASSIGNED", p, m.State, m.Term)})
			continue
		}
		if m.Node == nil {
			fs = append(fs, finding{Fail, key, fmt.Sprintf("%s is ASSIGNED to no streaming node", p)})
			continue
		}
		nodes[m.Node.ServerID] = true
		sess := models.StreamingNodeSessionKey(m.Node.ServerID)
		if kv, ok := last.Sessions[m.Node.ServerID]; !ok || kv.Lease == 0 {
			fs = append(fs, finding{Fail, o.meta(sess), fmt.Sprintf("%s is assigned to streaming node %d, which has no live session (%s with a lease)", p, m.Node.ServerID, sess)})
		}
		if o.Before != nil {
			if t, ok := o.Before.Terms[p]; ok && m.Term <= t {
				fs = append(fs, finding{Fail, key, fmt.Sprintf("%s term %d is not above its pre-switch term %d: not reassigned since the switch", p, m.Term, t)})
			}
		}
		if t0, ok := firstTerms[p]; ok && m.Term > t0 {
			switch {
			case consumeTick(first, p) == consumeTick(last, p):
				fs = append(fs, finding{Fail, key, fmt.Sprintf("%s term rose %d -> %d between reads while its consume checkpoint stood still: a crash loop", p, t0, m.Term)})
			case rises[p] >= 2 || m.Term-t0 > 1:
				fs = append(fs, finding{Fail, key, fmt.Sprintf("%s term rose %d -> %d between reads, in %s: a crash loop (its consume checkpoint moved)",
					p, t0, m.Term, framework.Plural(int64(max(rises[p], 1)), "read interval", ""))})
			default:
				fs = append(fs, finding{Warn, key, fmt.Sprintf("%s was reassigned between reads (term %d -> %d)", p, t0, m.Term)})
			}
		}
	}
	seen := fmt.Sprintf("%d pchannel(s) ASSIGNED on %d live streaming node(s)", len(last.PChannels), len(nodes))
	switch {
	case o.Before != nil && len(o.Before.Terms) > 0:
		seen += ", every term above the pre-switch one"
	case o.Before != nil:
		seen += "; the backup holds no pchannel meta, so terms were not compared (take `backup` before a switch)"
	default:
		seen += "; terms not compared with the pre-switch ones (no --since-backup)"
	}
	if len(reads) > 1 {
		seen += ", stable across reads"
	}
	return judge("pchannel-assignment", seen, "see `show wal-distribution` and `show session`; a pchannel that stays unassigned or a node without a session needs the streaming node's log", fs)
}

// termRises counts, by pchannel, the read intervals in which its term
// rose: kept with the latest read by a watch (keep), else counted over the
// reads given.
func termRises(reads []*Snapshot) map[string]int {
	if last := reads[len(reads)-1]; last.compared {
		return last.rises
	}
	rises := map[string]int{}
	for i := 1; i < len(reads); i++ {
		addRises(rises, reads[i-1].State, reads[i].State)
	}
	return rises
}

// addRises counts in rises each pchannel whose term rose from a to b.
func addRises(rises map[string]int, a, b *show.ChannelState) {
	before := make(map[string]int64, len(a.PChannels))
	for _, pe := range a.PChannels {
		before[pe.Key] = pe.Meta.Term
	}
	for _, pe := range b.PChannels {
		if t0, ok := before[pe.Key]; ok && pe.Meta.Term > t0 {
			rises[pchannelName(pe.Key)]++
		}
	}
}

func consumeTick(st *show.ChannelState, p string) uint64 {
	if cc, ok := st.ConsumeCPs[p]; ok {
		return cc.CP.TimeTick
	}
	return 0
}

// walNames: every consume checkpoint and channel checkpoint in the target
// WAL, no alter_wal_state, every mq.type spelling under config/ the target.
func walNames(reads []*Snapshot, o Options) Item {
	st := reads[len(reads)-1].State
	target := msgid.Name(o.Target)
	var fs []finding
	for _, p := range slices.Sorted(maps.Keys(st.ConsumeCPs)) {
		cc := st.ConsumeCPs[p]
		key := o.meta(cc.Key)
		if !cc.CP.HasMessageID || cc.CP.WAL != o.Target {
			fs = append(fs, finding{Fail, key, fmt.Sprintf("consume checkpoint of %s names %s, not %s", p, msgid.Name(cc.CP.WAL), target)})
		}
		if cc.CP.AlterWAL != nil {
			fs = append(fs, finding{Fail, key, fmt.Sprintf("consume checkpoint of %s holds alter_wal_state (%s)", p, cc.CP.AlterWAL.Describe())})
		}
	}
	codec, cerr := msgid.For(o.Target)
	untagged := 0
	for _, cc := range st.ChannelCPs {
		pos := cc.Position
		if pos.Dropped {
			continue
		}
		key := o.meta(cc.Key)
		switch {
		case pos.WAL != msgid.Name(commonpb.WALName_Unknown) && pos.WAL != target:
			fs = append(fs, finding{Fail, key, fmt.Sprintf("channel checkpoint of %s names %s, not %s", cc.VChannel, pos.WAL, target)})
		case pos.WAL != target:
			untagged++
			if cerr == nil {
				if _, err := codec.DecodeBytes(pos.MsgID); err != nil {
					fs = append(fs, finding{Fail, key, fmt.Sprintf("channel checkpoint of %s is untagged and not a %s id: %v", cc.VChannel, target, err)})
				}
			}
		}
	}
	overrides := 0
	for _, k := range st.ConfigKeys() {
		if !models.IsMQTypeConfigKey(k) {
			continue
		}
		overrides++
		if v := strings.ToLower(strings.TrimSpace(st.Config[k])); v != target {
			fs = append(fs, finding{Fail, o.root(k), fmt.Sprintf("%s says mq.type %q, not %s", k, v, target)})
		}
	}
	if overrides == 0 {
		fs = append(fs, finding{Warn, o.root(models.MQTypeConfigKey), "no mq.type override under config/: milvus.yaml decides, which heron cannot see"})
	}
	seen := fmt.Sprintf("target %s (%s): %d consume checkpoint(s), %d channel checkpoint(s) (%d untagged, read as %s ids), %d mq.type override(s)",
		target, o.TargetFrom, len(st.ConsumeCPs), len(st.ChannelCPs), untagged, target, overrides)
	if o.Online {
		// Mid-switch, checkpoints and mq.type on the old WAL are the
		// online-switch item's to judge (stages, #52948).
		for i := range fs {
			fs[i].verdict = Warn
		}
	}
	if o.Target == commonpb.WALName_Unknown {
		fs = append(fs, finding{Fail, o.meta(models.WALPrefix), "no consume checkpoint names a WAL and no --target-wal was given: the target is not known"})
	}
	return judge("wal-names", seen, "a checkpoint on another WAL: the switch did not complete (stop Milvus, run `reset checkpoint --target-wal "+target+"` again); mq.type: set it to "+target+" in milvus.yaml and under config/", fs)
}

// progress: channel checkpoints of live collections later than the
// switch, within datacoord's max lag, rising across reads.
func progress(reads []*Snapshot, o Options) Item {
	last := reads[len(reads)-1]
	var fs []finding
	var cmds []string
	live, behind := 0, 0
	for _, cc := range last.State.ChannelCPs {
		pos := cc.Position
		if _, ok := last.State.Live[cc.VChannel]; !ok || pos.Dropped {
			continue
		}
		live++
		key := o.meta(cc.Key)
		at := models.TSOTime(pos.Timestamp)
		if lag := last.At.Sub(at); lag > o.MaxLag {
			seen := fmt.Sprintf("channel checkpoint of %s lags wall clock by %s, over datacoord's max lag %s (error 504 \"channel checkpoint exceed max lag\")",
				cc.VChannel, lag.Truncate(time.Second), o.MaxLag)
			if _, frozen := last.State.FrozenBehind(cc.VChannel, pos.Timestamp, o.MaxLag); frozen {
				cmds = append(cmds, show.CheckpointRepair(cc.VChannel))
			} else {
				seen += "; its pchannel's consume checkpoint is about as old (Milvus stopped, or the pchannel idle): no repair moves it, a running flusher does"
			}
			fs = append(fs, finding{Fail, key, seen})
			continue
		}
		if o.Before != nil && !at.After(o.Before.Created) {
			behind++
			fs = append(fs, finding{Warn, key, fmt.Sprintf("channel checkpoint of %s (%s) is not later than the switch (%s): the flusher has not moved it yet",
				cc.VChannel, at.Format(time.RFC3339), o.Before.Created.Format(time.RFC3339))})
		}
	}
	still, idle := 0, 0
	if len(reads) > 1 {
		first := reads[0]
		span := last.At.Sub(first.At)
		before := map[string]uint64{}
		for _, cc := range first.State.ChannelCPs {
			before[cc.Key] = cc.Position.Timestamp
		}
		for _, cc := range last.State.ChannelCPs {
			if _, ok := last.State.Live[cc.VChannel]; !ok || cc.Position.Dropped {
				continue
			}
			if ts, ok := before[cc.Key]; ok && ts == cc.Position.Timestamp {
				still++
				if span >= stillSpan {
					fs = append(fs, finding{Warn, o.meta(cc.Key), fmt.Sprintf("channel checkpoint of %s did not move in %s", cc.VChannel, span.Truncate(time.Second))})
				}
			}
		}
		for p := range last.State.ConsumeCPs {
			if consumeTick(first.State, p) == consumeTick(last.State, p) {
				idle++
			}
		}
	}
	seen := fmt.Sprintf("%d live channel checkpoint(s) within the max lag %s", live, o.MaxLag)
	if o.Before != nil {
		seen += fmt.Sprintf(", %d of them later than the switch", live-behind)
	}
	if len(reads) > 1 {
		seen += fmt.Sprintf("; %d did not move across reads", still)
		if idle > 0 {
			seen += fmt.Sprintf("; %d consume checkpoint(s) stood still: an idle pchannel's checkpoint moves only when a persisted message arrives, not flagged", idle)
		}
	}
	return withCommands(judge("progress", seen, "a checkpoint over the max lag stops compaction and fails datacoord's health check: see `show vchannel-health` and the streaming node's flusher log; with Milvus stopped, the commands below move a frozen vchannel's checkpoint up to its pchannel's", fs), cmds)
}

// stillSpan is how long a live channel checkpoint may stand still across
// reads before it is flagged: the flusher moves it with time ticks, but
// not every read interval.
const stillSpan = 2 * time.Minute

// replay: a checkpoint or time tick going backwards (across reads, or
// behind the pre-switch backup), new segments not in the target WAL.
func replay(reads []*Snapshot, o Options) Item {
	last := reads[len(reads)-1]
	var fs []finding
	for i := 1; i < len(reads); i++ {
		if reads[i].compared {
			fs = append(fs, reads[i].wentBack...)
		} else {
			fs = append(fs, wentBack(reads[i-1].State, reads[i].State, o)...)
		}
	}
	if o.Before != nil {
		for p, cc := range last.State.ConsumeCPs {
			if t0, ok := o.Before.TimeTicks[p]; ok && cc.CP.TimeTick < t0 {
				fs = append(fs, finding{Fail, o.meta(cc.Key), fmt.Sprintf("consume checkpoint time tick of %s is behind the pre-switch one (%s < %s)", p,
					models.TSOTime(cc.CP.TimeTick).Format(time.RFC3339), models.TSOTime(t0).Format(time.RFC3339))})
			}
		}
	}
	seen := "no checkpoint or time tick went back"
	if len(reads) == 1 && o.Before == nil {
		seen += " (one read and no --since-backup: nothing to compare with)"
	}
	if sc := last.Segments; sc != nil {
		for _, k := range sc.NotTarget {
			fs = append(fs, finding{Fail, o.meta(k), fmt.Sprintf("%d new segment(s) start at a position that is not a %s id", sc.NotTargetN, msgid.Name(o.Target))})
		}
		seen += fmt.Sprintf("; %d of %d segment(s) are new since the switch, all starting at %s ids", sc.New, sc.Scanned, msgid.Name(o.Target))
	} else {
		seen += "; segments not checked (no --since-backup: the switch time is not known)"
	}
	if k := last.Kafka; k != nil {
		for _, t := range k.Topics {
			key := o.meta(models.ConsumeCheckpointKey(t.PChannel))
			if at, ok := k.First[t.Topic]; ok && o.Before != nil && at.Before(o.Before.Created) {
				fs = append(fs, finding{Fail, key, fmt.Sprintf("Kafka topic %s holds records written before the switch (the first at %s, %s): Milvus replays them from offset 0 (milvus#47802)",
					t.Topic, at.Format(time.RFC3339), t.Short())})
			}
			if t.LowWatermark != nil && *t.LowWatermark > 0 {
				fs = append(fs, finding{Warn, key, fmt.Sprintf("Kafka topic %s starts at offset %d: retention deleted offset 0, where the switch set the checkpoint (how Milvus reads it then is not verified)",
					t.Topic, *t.LowWatermark)})
			}
		}
		if o.Before != nil {
			seen += fmt.Sprintf("; %d Kafka topic(s) read, none holding records older than the switch", len(k.Topics))
		} else {
			seen += fmt.Sprintf("; %d Kafka topic(s) read (their records' age not compared: no --since-backup)", len(k.Topics))
		}
	}
	if o.Target == commonpb.WALName_WoodPecker && o.Before != nil {
		for _, l := range last.Woodpecker {
			if !l.Created.IsZero() && l.Created.Before(o.Before.Created) {
				fs = append(fs, finding{Fail, l.Key, fmt.Sprintf("woodpecker log %s was created before the switch (LogMeta.creation_timestamp %s, %d segment(s)): its entries predate it and are replayed, or the reader waits at its truncation point (`reset wal` empties it)",
					l.Key, l.Created.Format(time.RFC3339), l.Segments)})
			}
		}
		seen += fmt.Sprintf("; %d woodpecker log(s), none created before the switch (by LogMeta.creation_timestamp)", len(last.Woodpecker))
	}
	return judge("replay", seen, "a position going back or a new segment on the old WAL means old records are replayed: stop Milvus, keep its logs, and compare with the backup (`restore --file` rolls back)", fs)
}

// wentBack is every checkpoint that went back from read a to read b: a
// consume checkpoint's time tick, a channel checkpoint's timestamp.
func wentBack(a, b *show.ChannelState, o Options) []finding {
	var fs []finding
	for p, cc := range b.ConsumeCPs {
		if t0 := consumeTick(a, p); t0 > cc.CP.TimeTick {
			fs = append(fs, finding{Fail, o.meta(cc.Key), fmt.Sprintf("consume checkpoint time tick of %s went back between reads (%d -> %d): old data is replayed", p, t0, cc.CP.TimeTick)})
		}
	}
	prev := map[string]uint64{}
	for _, cc := range a.ChannelCPs {
		prev[cc.Key] = cc.Position.Timestamp
	}
	for _, cc := range b.ChannelCPs {
		if t0, ok := prev[cc.Key]; ok && !cc.Position.Dropped && t0 > cc.Position.Timestamp {
			fs = append(fs, finding{Fail, o.meta(cc.Key), fmt.Sprintf("channel checkpoint of %s went back between reads", cc.VChannel)})
		}
	}
	return fs
}

// broadcastTasks: no task in flight for longer than the threshold.
func broadcastTasks(reads []*Snapshot, o Options) Item {
	first, last := reads[0], reads[len(reads)-1]
	span := last.At.Sub(first.At)
	was := map[string]int64{}
	for _, t := range first.Tasks {
		if t.Task != nil && t.Task.State.InFlight() {
			was[t.Key] = t.ModRevision
		}
	}
	var fs []finding
	var cmds []string
	for _, t := range last.Tasks {
		key := o.meta(t.Key)
		if t.Task == nil {
			fs = append(fs, finding{Warn, key, "broadcast task does not decode: " + t.Error})
			continue
		}
		if !t.Task.State.InFlight() {
			continue
		}
		if o.Online && t.Task.MessageType == models.MessageTypeAlterWAL {
			continue // the online switch item follows it
		}
		if rev, ok := was[t.Key]; ok && rev == t.ModRevision && len(reads) > 1 && span >= o.StuckAfter {
			id := strings.TrimPrefix(t.Key, models.BroadcastTaskPrefix)
			fs = append(fs, finding{Fail, key, fmt.Sprintf("broadcast task %s has been %s for %s (unchanged across reads)", id, t.Task.State, span.Truncate(time.Second))})
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				cmds = append(cmds, show.BroadcastTaskRepair(n))
			}
			continue
		}
		fs = append(fs, finding{Warn, key, fmt.Sprintf("broadcast task %s is %s: in flight (check --watch --for %s tells whether it is stuck)", strings.TrimPrefix(t.Key, models.BroadcastTaskPrefix),
			t.Task.State, o.StuckAfter)})
	}
	seen := fmt.Sprintf("%d broadcast task(s), none in flight", len(last.Tasks))
	return withCommands(judge("broadcast-tasks", seen, "a task stuck in flight blocks DDL: see `show broadcast-task` and the streaming coordinator's log; with Milvus stopped, the commands below make a task PENDING again with no ack (the coordinator appends its message again)", fs), cmds)
}

// registration: every live collection's vchannel registered on its pchannel.
func registration(reads []*Snapshot, o Options) Item {
	st := reads[len(reads)-1].State
	vs := make([]string, 0, len(st.Live))
	for v := range st.Live {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, models.NaturalCompare)
	var fs []finding
	var cmds []string
	for _, v := range vs {
		key := models.VChannelMetaKey(models.PChannelOf(v), v)
		if !st.Registered[key] {
			fs = append(fs, finding{Fail, o.meta(key), fmt.Sprintf("vchannel %s of live collection %d is not registered on its pchannel", v, st.Live[v])})
			cmds = append(cmds, show.RegistrationRepair(v))
		}
	}
	seen := fmt.Sprintf("%d vchannel(s) of %d live collection(s), each registered", len(vs), st.Collections)
	return withCommands(judge("vchannel-registration", seen, "the streaming node does not recover an unregistered vchannel: with Milvus stopped, the commands below recreate its registration from its collection's meta", fs), cmds)
}
