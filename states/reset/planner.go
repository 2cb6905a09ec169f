package reset

import (
	"bytes"
	"fmt"
	"maps"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// Kinds of keys the reset plans for, as the plan names them.
const (
	KindSegment          = "segment"
	KindChannelCP        = "channel-cp"
	KindCollection       = "collection-info"
	KindLegacyCollection = "collection-info (legacy)"
	KindSnapshot         = "collection-info snapshot"
	KindQueryTarget      = "query-target"
	KindSegmentAssign    = "segment-assign"
	KindMQType           = "mq.type config"
	KindConsumeCP        = "consume-checkpoint"
	// KindAlterWALState is the alter_wal_state (field 6) removed from a
	// consume checkpoint: the state of an online switch Milvus would resume.
	KindAlterWALState = "alter-wal-state"
)

// Write phases: the order kinds are written in. Consume checkpoints go last,
// so an interrupted run leaves target-tagged positions beside a checkpoint
// still naming the old WAL, which the next plan reports as a split state.
const (
	phaseSegment = iota + 1
	phaseChannelCP
	phaseCollection
	phaseQueryTarget
	phaseSegmentAssign
	phaseMQType
	phaseConsumeCP
)

// kindOrder lists the kinds in write order, for reports.
var kindOrder = []string{KindSegment, KindChannelCP, KindCollection, KindLegacyCollection, KindSnapshot,
	KindQueryTarget, KindSegmentAssign, KindMQType, KindConsumeCP, KindAlterWALState}

var kindPhase = map[string]int{
	KindSegment: phaseSegment, KindChannelCP: phaseChannelCP,
	KindCollection: phaseCollection, KindLegacyCollection: phaseCollection, KindSnapshot: phaseCollection,
	KindQueryTarget: phaseQueryTarget, KindSegmentAssign: phaseSegmentAssign,
	KindMQType: phaseMQType, KindConsumeCP: phaseConsumeCP, KindAlterWALState: phaseConsumeCP,
}

// Action is what the plan does with one key.
type Action int

const (
	Keep Action = iota
	Rewrite
	Delete
)

// Reasons a key in a scanned kind is kept.
const (
	KeepAtTarget   = "already at the target"
	KeepDropped    = "dropped-channel marker"
	KeepTombstone  = "tombstone"
	KeepOutOfScope = "out of scope"
	KeepNoPosition = "no position"
)

// Decision is the planner's verdict on one key.
type Decision struct {
	Action Action
	Kind   string
	// Value is the new value of a rewrite.
	Value []byte
	// Positions is the number of positions the rewrite changes.
	Positions int
	// Reason says why a key is kept.
	Reason string
	// Unflushed: an in-scope segment that is Growing, Sealed or Flushing (gate).
	Unflushed bool
	State     string
	// Tags are every position the value holds (in scope or not), for the
	// split-state census (models.WALCensus); a segment's are in segmentTags
	// (tags() returns either): a scan decides a million segments.
	Tags        []Tag
	segmentTags [2]Tag
	nSegment    int
	// AlterWAL is the alter_wal_state of a consume checkpoint (nil: none);
	// in scope, the rewrite removes it.
	AlterWAL *models.AlterWALState
	// Empty: the value was empty (a consume checkpoint or channel-cp that
	// decodes as nothing); the rewrite gives it the target's position.
	Empty bool
}

// tags are the decision's Tags, a segment's included.
func (d *Decision) tags() []Tag {
	if d.nSegment > 0 {
		return d.segmentTags[:d.nSegment]
	}
	return d.Tags
}

// Tag is one position of a pchannel and the WAL it names, as the census
// counts it.
type Tag struct {
	PChannel string
	WAL      commonpb.WALName // WAL_name; Unknown when untagged
	// Data is the id bytes of a position (the census checks that an
	// untagged one decodes in the WAL it is attributed to).
	Data []byte
	// Checkpoint: the consume checkpoint of PChannel, whose id names WAL.
	Checkpoint bool
}

// Context is what a reset plan reads before it decides any key, at the
// plan's revision: Build reads it once, NewPlanner freezes a copy.
type Context struct {
	// CheckpointWAL is the WAL of each pchannel's consume checkpoint: the WAL
	// untagged positions are attributed to in examples and the split-state
	// report.
	CheckpointWAL map[string]commonpb.WALName
	// Collections own a vchannel in scope (scoped plans: their query targets go).
	Collections map[int64]bool
	// KafkaBeginning: a Kafka target's earliest is written as Kafka's
	// OffsetBeginning (-2), the form Milvus's own online switch writes
	// (MustGetEarliestMessageIDFromMQType, pkg/v2@v2.6.23
	// streaming/util/message/adaptor/message_id.go), for an instance on
	// Milvus 3.x, which parses it back from checkpoints (master's
	// milvus-io/milvus#50241, "special positions such as OffsetBeginning can
	// recover from checkpoints") and whose read-only replicas accept only an
	// offset inside the retained range or that sentinel (issue 28; not read
	// in master's source). Otherwise offset 0: Milvus before 2.6.19 (the 2.6
	// backport #50242) cannot read a negative id.
	KafkaBeginning bool
}

// Planner is the pure per-key function of a reset: it decides each key from
// its key and value alone, plus the target, the scope and the frozen
// Context. The dry run, both apply passes and the verify call the same one.
type Planner struct {
	Target  msgid.ID // the target's earliest id
	target  models.Target
	WAL     commonpb.WALName
	WALName string // operator name of the target (kafka, ...)
	Whole   bool
	scope   map[string]bool
	// checkpointWAL, collections and kafkaBeginning are the Context's, copied.
	checkpointWAL  map[string]commonpb.WALName
	collections    map[int64]bool
	kafkaBeginning bool
}

// NewPlanner returns the planner for target (an operator WAL name) over the
// given pchannels (none: the whole instance) with what the plan read first.
func NewPlanner(target string, pchannels []string, c Context) (*Planner, error) {
	wal, err := msgid.Parse(target)
	if err != nil {
		return nil, err
	}
	codec, err := msgid.For(wal)
	if err != nil {
		return nil, err
	}
	p := &Planner{Target: codec.Earliest(), WAL: wal, WALName: msgid.Name(wal), Whole: len(pchannels) == 0,
		scope: map[string]bool{}, checkpointWAL: maps.Clone(c.CheckpointWAL), collections: maps.Clone(c.Collections),
		kafkaBeginning: c.KafkaBeginning && wal == commonpb.WALName_Kafka}
	if p.kafkaBeginning {
		p.Target = msgid.OffsetID{Of: wal, Offset: msgid.KafkaOffsetBeginning}
	}
	p.target = models.NewTarget(p.Target)
	if p.checkpointWAL == nil {
		p.checkpointWAL = map[string]commonpb.WALName{}
	}
	for _, pc := range pchannels {
		p.scope[pc] = true
	}
	return p, nil
}

// settled reports whether value, a new value the planner decided for the
// key k, is one it keeps: planning again would not rewrite it (sv views
// segments; nil: ViewSegment).
func (p *Planner) settled(k models.Key, value []byte, sv *models.SegmentViewer) bool {
	if k.Kind == models.KindSegment && !strings.HasPrefix(k.Rel, models.QueryTargetPrefix) {
		// Nearly every key a run writes: decided as segment does, without
		// the census's tags.
		v, err := sv.View(value)
		return err == nil && p.segmentReason(v) != ""
	}
	d, err := p.decide(k, value, false, sv)
	return err == nil && d.Action == Keep
}

// InScope reports whether a pchannel is in scope.
func (p *Planner) InScope(pchannel string) bool { return p.Whole || p.scope[pchannel] }

// inScopeKey reports whether a start_positions key (a pchannel, or a vchannel) is in scope.
func (p *Planner) inScopeKey(key string) bool {
	return p.InScope(key) || p.InScope(models.PChannelOf(key))
}

// DecodeError is a value under a position key that does not decode.
type DecodeError struct {
	Key string
	Err error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("the value of %s does not decode (%v): nothing was written; repair or remove that key, then plan again", framework.EscapeText(e.Key), e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Decide plans one key under the meta root (rel is relative to it).
func (p *Planner) Decide(k models.Key, value []byte) (Decision, error) {
	return p.decide(k, value, true, nil)
}

// decide is Decide; without build (the dry run) a segment rewrite of
// Milvus's plain shape counts its positions and builds no value: a dry run
// only counts, and segments are nearly every key it decides. sv views the
// segments (nil: ViewSegment).
func (p *Planner) decide(k models.Key, value []byte, build bool, sv *models.SegmentViewer) (Decision, error) {
	if strings.HasPrefix(k.Rel, models.QueryTargetPrefix) {
		return p.queryTarget(k), nil
	}
	switch k.Kind {
	case models.KindSegment:
		return p.segment(k, value, build, sv)
	case models.KindChannelCP:
		return p.channelCP(k, value)
	case models.KindCollectionInfo:
		return p.collection(k, value, KindCollection)
	case models.KindLegacyCollection:
		return p.collection(k, value, KindLegacyCollection)
	case models.KindSnapshotCollection:
		return p.collection(k, value, KindSnapshot)
	case models.KindSegmentAssign:
		if !p.InScope(k.PChannel) {
			return Decision{Kind: KindSegmentAssign, Reason: KeepOutOfScope}, nil
		}
		return Decision{Action: Delete, Kind: KindSegmentAssign}, nil
	case models.KindConsumeCheckpoint:
		return p.consumeCheckpoint(k, value)
	}
	return Decision{Reason: KeepNoPosition}, nil
}

// DecideConfig plans an mq.type override under {rootPath}/config/ (one of
// the keys models.IsMQTypeConfigKey names).
func (p *Planner) DecideConfig(value []byte) Decision {
	d := Decision{Kind: KindMQType}
	if string(value) == p.WALName {
		d.Reason = KeepAtTarget
		return d
	}
	d.Action, d.Value = Rewrite, []byte(p.WALName)
	return d
}

func (p *Planner) queryTarget(k models.Key) Decision {
	d := Decision{Kind: KindQueryTarget}
	if p.Whole || (k.Kind == models.KindQueryTarget && p.collections[k.Collection]) {
		d.Action = Delete
		return d
	}
	d.Reason = KeepOutOfScope
	return d
}

// consumeCheckpoint moves the message id to the target (an id already at
// the target's earliest, Milvus's kafka -2 and rocksmq -1 included, stays)
// and removes alter_wal_state: a checkpoint that still has it is not done,
// since Milvus would resume that online switch toward its own target.
func (p *Planner) consumeCheckpoint(k models.Key, value []byte) (Decision, error) {
	d := Decision{Kind: KindConsumeCP}
	if !p.InScope(k.PChannel) {
		// Out of scope it need not decode; it is counted when it does.
		if cp, err := models.DecodeWALCheckpoint(value); err == nil {
			d.Tags = checkpointTags(k.PChannel, cp)
			d.AlterWAL = cp.AlterWAL
		}
		d.Reason = KeepOutOfScope
		return d, nil
	}
	cp, err := models.DecodeWALCheckpoint(value)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	d.Tags, d.AlterWAL, d.Empty = checkpointTags(k.PChannel, cp), cp.AlterWAL, len(value) == 0
	atTarget := cp.InWAL(p.Target) || (p.milvusEarliestKept() && cp.AtEarliest(p.WAL))
	if atTarget && cp.AlterWAL == nil {
		d.Reason = KeepAtTarget
		return d, nil
	}
	nv := value
	if cp.AlterWAL != nil {
		if nv, err = models.ClearAlterWALState(nv); err != nil {
			return d, &DecodeError{Key: k.Rel, Err: err}
		}
	}
	if atTarget {
		d.Kind = KindAlterWALState
	} else {
		if nv, err = models.RewriteWALCheckpoint(nv, p.Target); err != nil {
			return d, &DecodeError{Key: k.Rel, Err: err}
		}
		d.Positions = 1
	}
	d.Action, d.Value = Rewrite, nv
	return d, nil
}

func checkpointTags(pchannel string, cp *models.WALCheckpoint) []Tag {
	if !cp.HasMessageID {
		return nil
	}
	return []Tag{{PChannel: pchannel, WAL: cp.WAL, Checkpoint: true}}
}

func (p *Planner) channelCP(k models.Key, value []byte) (Decision, error) {
	d := Decision{Kind: KindChannelCP}
	if !p.InScope(k.PChannel) {
		if pos, err := models.DecodePosition(value); err == nil && !models.IsDroppedChannelCP(pos) {
			d.Tags = []Tag{posTag(k.PChannel, pos)}
		}
		d.Reason = KeepOutOfScope
		return d, nil
	}
	pos, err := models.DecodePosition(value)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	if models.IsDroppedChannelCP(pos) {
		d.Reason = KeepDropped
		return d, nil
	}
	if d.Empty = len(value) == 0; !d.Empty {
		// An empty value holds no position: it is rewritten, not counted.
		d.Tags = []Tag{posTag(k.PChannel, pos)}
	}
	if models.PositionIn(pos, p.Target) || (p.milvusEarliestKept() && models.PositionAtEarliest(pos, p.WAL)) {
		d.Reason = KeepAtTarget
		return d, nil
	}
	nv, err := models.RewritePosition(value, p.Target)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	d.Action, d.Value, d.Positions = Rewrite, nv, 1
	return d, nil
}

// segment decides a segment from its models.SegmentView (one pass over the
// value, without allocating per field, for the plain shape Milvus writes);
// a rewrite splices the positions in without reading the value again. A
// decision that builds no value allocates nothing (BenchmarkDecideSegment).
func (p *Planner) segment(k models.Key, value []byte, build bool, sv *models.SegmentViewer) (Decision, error) {
	d := Decision{Kind: KindSegment}
	v, err := sv.View(value)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	pc := models.PChannelOf(v.Channel)
	for _, pos := range [2]models.PositionView{v.Start, v.DML} {
		if pos.Present {
			d.segmentTags[d.nSegment] = Tag{PChannel: pc, WAL: pos.WAL, Data: pos.MsgID}
			d.nSegment++
		}
	}
	if d.Reason = p.segmentReason(v); d.Reason == KeepOutOfScope {
		return d, nil
	}
	d.State = v.State.String()
	d.Unflushed = models.UnflushedState(v.State)
	if d.Reason != "" {
		return d, nil
	}
	if n, ok := models.CountViewedRewrites(v, p.target); !build && ok && len(value) < maxValueBytes/2 {
		// A value near etcd's request limit is built: the plan warns
		// about the size of the new value.
		d.Action, d.Positions = Rewrite, n
		return d, nil
	}
	nv, n, err := models.RewriteViewedSegment(value, v, p.target)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	d.Action, d.Value, d.Positions = Rewrite, nv, n
	return d, nil
}

// segmentReason is why the planner keeps a viewed segment ("": it
// rewrites it): the one rule of segment and settled.
func (p *Planner) segmentReason(v models.SegmentView) string {
	switch {
	case v.Channel == "" || !p.InScope(models.PChannelOf(v.Channel)):
		return KeepOutOfScope
	case !v.Start.Present && !v.DML.Present:
		return KeepNoPosition
	case p.positionDone(v.Start) && p.positionDone(v.DML):
		return KeepAtTarget
	}
	return ""
}

// positionDone reports whether a segment position needs no rewrite: absent,
// or at the target's earliest (exactly heron's bytes, checked first, or
// Milvus's own earliest id of that WAL).
func (p *Planner) positionDone(v models.PositionView) bool {
	return !v.Present || v.In(p.target) || (p.milvusEarliestKept() && v.AtEarliest(p.WAL))
}

// milvusEarliestKept reports whether an id at the target WAL's earliest in
// another form than the one written (offset 0 or Milvus's -2 for kafka, -1
// for rocksmq) is kept as already at the target. Not when the plan writes
// Kafka's OffsetBeginning for Milvus 3.x: an offset 0 there is what a 3.x
// read-only replica refuses on an empty topic, so it moves to -2 too.
func (p *Planner) milvusEarliestKept() bool { return !p.kafkaBeginning }

func (p *Planner) collection(k models.Key, value []byte, kind string) (Decision, error) {
	d := Decision{Kind: kind}
	if models.IsTombstone(value) {
		d.Reason = KeepTombstone
		return d, nil
	}
	// The decision needs the start positions only: one parse reads and
	// rewrites them.
	nv, n, starts, err := models.EditStartPositions(value, p.inScopeKey, p.Target)
	if err != nil {
		return d, &DecodeError{Key: k.Rel, Err: err}
	}
	if kind != KindSnapshot {
		for _, sp := range starts {
			d.Tags = append(d.Tags, Tag{PChannel: models.StartPositionPChannel(sp.Key), Data: sp.Data})
		}
	}
	if n == 0 {
		d.Reason = KeepAtTarget
		inScope := false
		for _, sp := range starts {
			inScope = inScope || p.inScopeKey(sp.Key)
		}
		if !inScope {
			d.Reason = KeepOutOfScope
		}
		return d, nil
	}
	d.Action, d.Value, d.Positions = Rewrite, nv, n
	return d, nil
}

func posTag(pchannel string, pos *msgpb.MsgPosition) Tag {
	return Tag{PChannel: pchannel, WAL: pos.GetWALName(), Data: pos.GetMsgID()}
}

// Describe says what a decision changes, for the plan's examples: the first
// changed position before and after, or what a deletion removes. The plan
// asks only for the few examples it shows, so it decodes the value again
// rather than making every Decide describe.
func (p *Planner) Describe(k models.Key, value []byte, d Decision) (before, after string) {
	if d.Action == Delete {
		switch d.Kind {
		case KindSegmentAssign:
			return "segment " + fmt.Sprint(k.Segment), "deleted"
		case KindQueryTarget:
			return "target of collection " + strings.TrimPrefix(k.Rel, models.QueryTargetPrefix), "deleted"
		}
		return "", "deleted"
	}
	if d.Action != Rewrite {
		return "", ""
	}
	after = p.after()
	switch d.Kind {
	case KindMQType:
		return fmt.Sprintf("%q", value), fmt.Sprintf("%q", p.WALName)
	case KindConsumeCP:
		if cp, err := models.DecodeWALCheckpoint(value); err == nil {
			before = describeText(cp.WAL, cp.MessageID, cp.HasMessageID)
		}
	case KindAlterWALState:
		if cp, err := models.DecodeWALCheckpoint(value); err == nil && cp.AlterWAL != nil {
			return cp.AlterWAL.Describe(), "cleared"
		}
	case KindChannelCP:
		if pos, err := models.DecodePosition(value); err == nil {
			before = p.describePosition(k.PChannel, pos)
		}
	case KindSegment:
		if v, err := models.ViewSegment(value); err == nil {
			first := v.DML
			if p.positionDone(first) {
				first = v.Start
			}
			before = p.describePosition(models.PChannelOf(v.Channel), first.Position())
		}
	case KindCollection, KindLegacyCollection, KindSnapshot:
		if c, err := models.DecodeCollectionInfo(value); err == nil {
			for _, sp := range c.StartPositions {
				if p.inScopeKey(sp.Key) && !bytes.Equal(sp.Data, p.Target.Bytes()) {
					before = describeBytes(p.checkpointWAL[models.StartPositionPChannel(sp.Key)], sp.Data, true)
					break
				}
			}
		}
	}
	if p.WAL == commonpb.WALName_WoodPecker && strings.HasSuffix(before, " 0:0") {
		// Woodpecker's empty earliest, rewritten to the explicit form.
		before, after = before+" (empty form)", after+" (explicit zero fields)"
	}
	return before, after
}

func (p *Planner) after() string {
	return msgid.Name(p.WAL) + " " + p.Target.Human()
}

// describePosition names the WAL of a position (its WAL_name, else its
// pchannel's consume checkpoint WAL, marked as a guess) and its decoded id.
func (p *Planner) describePosition(pchannel string, pos *msgpb.MsgPosition) string {
	if pos == nil {
		return "none"
	}
	wal, guessed := models.PositionWAL(pos, p.checkpointWAL[pchannel])
	return describeBytes(wal, pos.GetMsgID(), guessed)
}

func describeBytes(wal commonpb.WALName, b []byte, guessed bool) string {
	name := msgid.Name(wal)
	if guessed {
		name += "?"
	}
	h, err := models.DescribeBytes(wal, b)
	if err != nil {
		return fmt.Sprintf("%s (%d bytes)", name, len(b))
	}
	return name + " " + h
}

func describeText(wal commonpb.WALName, s string, has bool) string {
	if !has {
		return "no message id"
	}
	h, err := models.DescribeText(wal, s)
	if err != nil {
		return fmt.Sprintf("%s %q", msgid.Name(wal), s)
	}
	return msgid.Name(wal) + " " + h
}
