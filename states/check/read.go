package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/show"
	"github.com/heron-shell/heron/states/targetcheck"
	"github.com/heron-shell/heron/states/woodpecker"
)

// Snapshot is one read of the instance: its channels, its broadcast tasks
// and the wall clock when it was read.
type Snapshot struct {
	At    time.Time
	State *show.ChannelState
	Tasks []Task
	// Replicate is the replication state (small: a configuration and one
	// entry per pchannel and target cluster).
	Replicate Replicate
	// Segments is the segment scan (the last read only; nil otherwise).
	Segments *SegmentScan
	// Kafka is what the Kafka target's brokers hold (--kafka-brokers; the
	// last read only).
	Kafka *KafkaState
	// compared: wentBack holds what went back since the read before this
	// one (and the reads dropped between; see keep), so Judge does not
	// compare them again.
	compared bool
	wentBack []finding
	// rises counts, by pchannel, the read intervals since the first read
	// in which its term rose (a crash loop rises at consecutive reads).
	rises map[string]int
	// Woodpecker lists the woodpecker logs of the pchannels under the
	// prefix woodpecker uses, with their creation time (a woodpecker
	// target and a switch time only; the last read).
	Woodpecker []WoodpeckerLog
}

// WoodpeckerLog is a log of one of the instance's pchannels under the
// effective woodpecker prefix: its LogMeta key, when it was created
// (LogMeta.creation_timestamp, seconds; zero when unset) and its segments.
type WoodpeckerLog struct {
	Key      string
	Created  time.Time
	Segments int64
}

// readWoodpecker lists the logs of st's pchannels under the prefix
// woodpecker really uses (states/woodpecker.Find, milvus-metadata.md
// section 7), with each LogMeta's creation time.
func readWoodpecker(ctx context.Context, inst *instance.Instance, st *show.ChannelState) ([]WoodpeckerLog, error) {
	pcs := map[string]bool{}
	for p := range st.ConsumeCPs {
		pcs[p] = true
	}
	created := map[string]time.Time{}
	inv, err := woodpecker.Find(ctx, inst, st.Revision, woodpecker.Options{PChannels: pcs, OnKey: func(k woodpecker.Key) error {
		if k.Kind == models.WPLog {
			if m, err := models.DecodeWPLogMeta(k.Value); err == nil && m.Created > 0 {
				created[k.Key] = time.Unix(int64(m.Created), 0).UTC()
			}
		}
		return nil
	}})
	if err != nil {
		return nil, err
	}
	var out []WoodpeckerLog
	for _, l := range inv.InstanceLogs(nil) {
		if !l.Effective || !l.HasMeta {
			continue
		}
		key := l.Prefix + "/logs/" + l.Name
		out = append(out, WoodpeckerLog{Key: key, Created: created[key], Segments: l.Segments})
	}
	return out, nil
}

// KafkaState is each pchannel's topic on the Kafka target and, for those
// holding records, when the first remaining one was written.
type KafkaState struct {
	Topics []targetcheck.Topic
	First  map[string]time.Time
}

// readKafka reads the topics of the pchannels that have a consume checkpoint.
func readKafka(ctx context.Context, c targetcheck.KafkaConfig, st *show.ChannelState) (*KafkaState, error) {
	topics, err := targetcheck.CheckKafka(ctx, c, slices.Sorted(maps.Keys(st.ConsumeCPs)))
	if err != nil {
		return nil, err
	}
	first, err := targetcheck.KafkaFirstRecordTimes(ctx, c, topics)
	if err != nil {
		return nil, err
	}
	return &KafkaState{Topics: topics, First: first}, nil
}

// Task is one broadcast task.
type Task struct {
	Key         string
	ModRevision int64
	Task        *models.BroadcastTask
	Error       string
}

// Replicate is the replicate configuration and the replicating pchannels.
type Replicate struct {
	// Config is nil when none is stored (ConfigError: when it does not decode).
	Config      *models.ReplicateConfig
	ConfigError string
	PChannels   []Replicating
}

// Replicating is one replicating-pchannel key.
type Replicating struct {
	Key   string
	Meta  *models.ReplicatingPChannelMeta
	Error string
}

// SegmentScan is what the segment scan found: segments whose start
// position is later than the switch, and those of them not in the target WAL.
type SegmentScan struct {
	Scanned, New int64
	NotTarget    []string // keys, the first few
	NotTargetN   int64
}

// keep adds s to a watch's reads and keeps only the first and the latest
// (each snapshot holds every channel of the instance: a five-minute watch
// must not hold thirty): what went back from the latest to s, and what a
// dropped read had found, travel with s, and so do the counts of term
// rises at each read.
func keep(reads []*Snapshot, s *Snapshot, o Options) []*Snapshot {
	if len(reads) == 0 {
		return []*Snapshot{s}
	}
	prev := reads[len(reads)-1]
	s.compared, s.wentBack = true, wentBack(prev.State, s.State, o)
	s.rises = maps.Clone(prev.rises)
	if s.rises == nil {
		s.rises = map[string]int{}
	}
	addRises(s.rises, prev.State, s.State)
	if len(reads) == 2 {
		s.wentBack = append(prev.wentBack, s.wentBack...)
		return []*Snapshot{reads[0], s}
	}
	return append(reads, s)
}

// maxListed bounds the keys an item lists.
const maxListed = 20

// read takes one snapshot at the current revision.
func read(ctx context.Context, inst *instance.Instance) (*Snapshot, error) {
	st, err := show.ReadChannelState(ctx, inst, 0)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{At: time.Now().UTC(), State: st}
	rp := &snap.Replicate
	_, err = inst.Walk(ctx, st.Revision, []string{models.BroadcastTaskPrefix, models.ReplicateConfiguration, models.ReplicatingPChannel}, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindBroadcastTask:
			t := Task{Key: e.Rel, ModRevision: e.ModRevision}
			if bt, err := models.DecodeBroadcastTask(e.Value); err != nil {
				t.Error = err.Error()
			} else {
				t.Task = bt
			}
			snap.Tasks = append(snap.Tasks, t)
		case models.KindReplicateConfiguration:
			if c, err := models.DecodeReplicateConfig(e.Value); err != nil {
				rp.ConfigError = err.Error()
			} else {
				rp.Config = c
			}
		case models.KindReplicatingPChannel:
			r := Replicating{Key: e.Rel}
			if m, err := models.DecodeReplicatingPChannel(e.Value); err != nil {
				r.Error = err.Error()
			} else {
				r.Meta = m
			}
			rp.PChannels = append(rp.PChannels, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// scanSegments reads every segment at rev, a page at a time, and keeps
// those whose start position is later than since and not a target-WAL id:
// tagged with another WAL, or untagged bytes the target's codec cannot read.
func scanSegments(ctx context.Context, inst *instance.Instance, rev int64, since time.Time, target commonpb.WALName) (*SegmentScan, error) {
	sc := &SegmentScan{}
	codec, cerr := msgid.For(target)
	_, err := inst.Walk(ctx, rev, []string{models.SegmentPrefix}, func(e instance.Entry) error {
		if e.Kind != models.KindSegment {
			return nil
		}
		sc.Scanned++
		v, err := models.ViewSegment(e.Value)
		if err != nil || !v.Start.Present || !models.TSOTime(v.Start.Timestamp).After(since) {
			return nil
		}
		sc.New++
		bad := v.Start.WAL != commonpb.WALName_Unknown && v.Start.WAL != target
		if !bad && v.Start.WAL == commonpb.WALName_Unknown && cerr == nil {
			_, derr := codec.DecodeBytes(v.Start.MsgID)
			bad = derr != nil
		}
		if bad {
			sc.NotTargetN++
			if len(sc.NotTarget) < maxListed {
				sc.NotTarget = append(sc.NotTarget, e.Rel)
			}
		}
		return nil
	})
	return sc, err
}

// Before is what a heron backup taken before the switch says: when it was
// taken (the switch came after), each pchannel's term, and each consume
// checkpoint's time tick and replication checkpoint.
type Before struct {
	Path      string
	Created   time.Time
	Command   string
	Terms     map[string]int64
	TimeTicks map[string]uint64
	Replicate map[string]bool
}

// readBefore reads a heron backup file (a `backup` of the instance, or the
// backup a reset wrote) through framework/apply's reader, checksum checked;
// only the values of the pchannel metas and of the keys under the WAL prefix
// (the consume checkpoints) are decoded: a reset's backup of a million
// segments holds a million values check does not use.
func readBefore(path string, layout models.Layout) (*Before, error) {
	b := &Before{Path: path, Terms: map[string]int64{}, TimeTicks: map[string]uint64{}, Replicate: map[string]bool{}}
	pchannels, wal := layout.Meta(models.PChannelPrefix), layout.Meta(models.WALPrefix)
	used := func(key string) bool {
		return strings.HasPrefix(key, pchannels) || strings.HasPrefix(key, wal)
	}
	info, err := apply.VerifyBackupValues(path, false, used, func(e apply.Entry) error {
		if e.Absent || !used(e.Key) {
			return nil
		}
		rel, ok := layout.Rel(e.Key)
		if !ok {
			return nil
		}
		k := models.Classify(rel)
		switch k.Kind {
		case models.KindPChannel:
			if m, err := models.DecodePChannelMeta(e.Value); err == nil {
				b.Terms[k.PChannel] = m.Term
			}
		case models.KindConsumeCheckpoint:
			if cp, err := models.DecodeWALCheckpoint(e.Value); err == nil {
				b.TimeTicks[k.PChannel] = cp.TimeTick
				b.Replicate[k.PChannel] = cp.HasReplicateCheckpoint
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--since-backup: %w", err)
	}
	if info.Header.RootPath != "" && info.Header.RootPath != layout.RootPath {
		return nil, fmt.Errorf("--since-backup %s is a backup of root path %q, not of %q", path, info.Header.RootPath, layout.RootPath)
	}
	b.Created, b.Command = info.Header.Created.UTC(), info.Header.Command
	return b, nil
}
