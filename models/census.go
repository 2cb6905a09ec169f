package models

import (
	"slices"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/models/msgid"
)

// WALCensus is the split-state rule that show and reset share. Per pchannel
// it counts positions by the WAL they are in: a position's WAL_name; for an
// untagged one (WAL_name Unknown) the WAL of the pchannel's consume
// checkpoint, or "undecodable as W" when its id does not decode in that WAL
// W (as the ids an interrupted reset leaves in untagged positions); the
// consume checkpoint itself counts for its WAL. A pchannel whose positions
// fall in more than one bucket is split: Milvus decodes every position of a
// pchannel with one WAL (shared/milvus-metadata.md section 4) and fails.
//
// The census holds one small map per pchannel, never one entry per position.
type WALCensus struct {
	checkpointWAL map[string]commonpb.WALName
	counts        map[string]map[string]int64
}

// PChannelWALs is the census of one pchannel.
type PChannelWALs struct {
	PChannel string `json:"pchannel"`
	// CheckpointWAL is the WAL of the consume checkpoint, "none" without one.
	CheckpointWAL string           `json:"consume_checkpoint_wal"`
	Positions     map[string]int64 `json:"positions"`
	Split         bool             `json:"split"`
}

// NoCheckpoint is the CheckpointWAL of a pchannel without a consume checkpoint.
const NoCheckpoint = "none"

// NewWALCensus starts a census. checkpointWAL holds the WAL of each
// pchannel's consume checkpoint when the caller knows them before any
// position (a reset reads them first); AddCheckpoint completes it (show
// scans the consume checkpoints before the positions). Untagged positions
// are attributed with the checkpoint WAL known when they are added.
func NewWALCensus(checkpointWAL map[string]commonpb.WALName) *WALCensus {
	c := &WALCensus{checkpointWAL: make(map[string]commonpb.WALName, len(checkpointWAL)), counts: map[string]map[string]int64{}}
	for p, w := range checkpointWAL {
		c.checkpointWAL[p] = w
	}
	return c
}

var undecodableBucket = func() map[commonpb.WALName]string {
	m := map[commonpb.WALName]string{}
	for _, n := range msgid.Names() {
		w, _ := msgid.Parse(n)
		m[w] = "undecodable as " + n
	}
	return m
}()

// Bucket names the bucket a position of pchannel counts in (see WALCensus).
func (c *WALCensus) Bucket(pchannel string, wal commonpb.WALName, msgID []byte) string {
	if wal != commonpb.WALName_Unknown {
		return msgid.Name(wal)
	}
	cw := c.checkpointWAL[pchannel]
	return untaggedBucket(cw, msgid.Supported(cw) && msgid.Decodes(cw, msgID))
}

// untaggedBucket is the bucket of an untagged position of a pchannel whose
// consume checkpoint is in cw; decodes: its id decodes in cw.
func untaggedBucket(cw commonpb.WALName, decodes bool) string {
	if msgid.Supported(cw) && !decodes {
		return undecodableBucket[cw]
	}
	return msgid.Name(cw)
}

func (c *WALCensus) count(pchannel, bucket string) { c.countN(pchannel, bucket, 1) }

func (c *WALCensus) countN(pchannel, bucket string, n int64) {
	m := c.counts[pchannel]
	if m == nil {
		m = map[string]int64{}
		c.counts[pchannel] = m
	}
	m[bucket] += n
}

// Add counts one position of pchannel: wal is its WAL_name (Unknown when
// untagged), msgID its id bytes (MsgPosition.msgID, KeyDataPair.data).
func (c *WALCensus) Add(pchannel string, wal commonpb.WALName, msgID []byte) {
	c.count(pchannel, c.Bucket(pchannel, wal, msgID))
}

// AddCheckpoint counts the consume checkpoint of pchannel, whose message id
// names wal, and makes wal the WAL its untagged positions are attributed to
// unless NewWALCensus was given one.
func (c *WALCensus) AddCheckpoint(pchannel string, wal commonpb.WALName) {
	if _, ok := c.checkpointWAL[pchannel]; !ok {
		c.checkpointWAL[pchannel] = wal
	}
	c.count(pchannel, msgid.Name(wal))
}

// PChannel returns the census of one pchannel (no positions: empty, not split).
func (c *WALCensus) PChannel(pchannel string) PChannelWALs {
	r := PChannelWALs{PChannel: pchannel, CheckpointWAL: NoCheckpoint, Positions: map[string]int64{}}
	if w, ok := c.checkpointWAL[pchannel]; ok {
		r.CheckpointWAL = msgid.Name(w)
	}
	for b, n := range c.counts[pchannel] {
		r.Positions[b] = n
	}
	r.Split = len(r.Positions) > 1
	return r
}

// Report returns every pchannel counted, in natural order (dml_2 before dml_10).
func (c *WALCensus) Report() []PChannelWALs {
	names := make([]string, 0, len(c.counts))
	for p := range c.counts {
		names = append(names, p)
	}
	slices.SortFunc(names, NaturalCompare)
	out := make([]PChannelWALs, 0, len(names))
	for _, p := range names {
		out = append(out, c.PChannel(p))
	}
	return out
}

// Split lists the split pchannels, sorted.
func (c *WALCensus) Split() []string {
	out := []string{}
	for _, r := range c.Report() {
		if r.Split {
			out = append(out, r.PChannel)
		}
	}
	return out
}

// OnlyOn reports whether every position counted for pchannel (its consume
// checkpoint included) is in wal: the one-WAL gate of a scoped reset. A
// pchannel with nothing counted is on no other WAL.
func (c *WALCensus) OnlyOn(pchannel string, wal commonpb.WALName) bool {
	name := msgid.Name(wal)
	for b := range c.counts[pchannel] {
		if b != name {
			return false
		}
	}
	return true
}

// AddSegment counts the positions of a segment for the pchannel of its
// vchannel; a segment without insert_channel belongs to no pchannel and
// counts nowhere.
func (c *WALCensus) AddSegment(v SegmentView) {
	if v.Channel == "" {
		return
	}
	pc := PChannelOf(v.Channel)
	for _, p := range [2]PositionView{v.Start, v.DML} {
		if p.Present {
			c.Add(pc, p.WAL, p.MsgID)
		}
	}
}

// AddCollection counts the start positions of a collection (untagged: they
// carry no WAL_name), each for the pchannel its key names.
func (c *WALCensus) AddCollection(info *CollectionInfo) {
	for _, sp := range info.StartPositions {
		c.Add(StartPositionPChannel(sp.Key), commonpb.WALName_Unknown, sp.Data)
	}
}

// InterruptedTarget names the WAL an interrupted reset was moving the split
// pchannels to: a reset writes the consume checkpoints last, so positions
// in a WAL other than their pchannel's consume checkpoint are the ones it
// moved; of those, the WAL most name ("undecodable as W" buckets name none).
// "" when no position moved.
func InterruptedTarget(split []PChannelWALs) string {
	sum := map[string]int64{}
	for _, p := range split {
		for b, n := range p.Positions {
			if b != p.CheckpointWAL && msgid.Supported(walOf(b)) {
				sum[b] += n
			}
		}
	}
	best := ""
	for b, n := range sum {
		if best == "" || n > sum[best] || n == sum[best] && b < best {
			best = b
		}
	}
	return best
}

// walOf is the WAL a census bucket names (Unknown for the "undecodable as"
// buckets).
func walOf(bucket string) commonpb.WALName {
	w, _ := msgid.Parse(bucket)
	return w
}

// PositionTally holds the positions of segments by pchannel for a census
// whose consume checkpoints are read after them (restore tallies the
// segments its scan reads; its verify reads the checkpoints): an untagged
// position keeps the WALs its id decodes in, so AddTo counts it in the
// bucket Add would have, whatever its pchannel's checkpoint turns out to be.
// Like the census, it holds one small map per pchannel.
type PositionTally struct {
	counts map[string]map[tallied]int64
}

// tallied is a position as the census needs it: its WAL_name and, untagged,
// the WALs its id decodes in (bit i: supportedWALs[i]).
type tallied struct {
	wal     commonpb.WALName
	decodes uint8
}

// supportedWALs are the WALs heron decodes ids of, in msgid.Names order.
var supportedWALs = func() []commonpb.WALName {
	var out []commonpb.WALName
	for _, n := range msgid.Names() {
		if w, err := msgid.Parse(n); err == nil && msgid.Supported(w) {
			out = append(out, w)
		}
	}
	return out
}()

// NewPositionTally starts an empty tally.
func NewPositionTally() *PositionTally {
	return &PositionTally{counts: map[string]map[tallied]int64{}}
}

// AddSegment tallies the positions of a segment as WALCensus.AddSegment
// counts them.
func (t *PositionTally) AddSegment(v SegmentView) {
	if v.Channel == "" {
		return
	}
	pc := PChannelOf(v.Channel)
	for _, p := range [2]PositionView{v.Start, v.DML} {
		if p.Present {
			t.add(pc, p.WAL, p.MsgID)
		}
	}
}

func (t *PositionTally) add(pchannel string, wal commonpb.WALName, msgID []byte) {
	k := tallied{wal: wal}
	if wal == commonpb.WALName_Unknown {
		for i, w := range supportedWALs {
			if msgid.Decodes(w, msgID) {
				k.decodes |= 1 << i
			}
		}
	}
	m := t.counts[pchannel]
	if m == nil {
		m = map[tallied]int64{}
		t.counts[pchannel] = m
	}
	m[k]++
}

// AddTo counts the tallied positions into c, its consume checkpoints
// counted first (AddCheckpoint), as c.Add would have counted each.
func (t *PositionTally) AddTo(c *WALCensus) {
	for pc, m := range t.counts {
		cw := c.checkpointWAL[pc]
		for k, n := range m {
			if k.wal != commonpb.WALName_Unknown {
				c.countN(pc, msgid.Name(k.wal), n)
				continue
			}
			i := slices.Index(supportedWALs, cw)
			c.countN(pc, untaggedBucket(cw, i >= 0 && k.decodes&(1<<i) != 0), n)
		}
	}
}

// CensusPrefixes are the prefixes (relative to the meta root) whose keys
// hold what a census counts, consume checkpoints first: a walk in this
// order knows each pchannel's checkpoint before its untagged positions.
var CensusPrefixes = []string{WALPrefix, CollectionInfoPrefix, LegacyCollectionPrefix, ChannelCPPrefix, SegmentPrefix}

// AddValue counts what a key under CensusPrefixes holds: a consume
// checkpoint with an id, a collection's start positions, a channel
// checkpoint, a segment's positions. A value that does not decode, a
// tombstone, a dropped-channel marker and any other key count nowhere.
func (c *WALCensus) AddValue(k Key, value []byte) {
	switch k.Kind {
	case KindConsumeCheckpoint:
		if cp, err := DecodeWALCheckpoint(value); err == nil && cp.HasMessageID {
			c.AddCheckpoint(k.PChannel, cp.WAL)
		}
	case KindCollectionInfo, KindLegacyCollection:
		if IsTombstone(value) {
			return
		}
		if info, err := DecodeCollectionInfo(value); err == nil {
			c.AddCollection(info)
		}
	case KindChannelCP:
		if pos, err := DecodePosition(value); err == nil && !IsDroppedChannelCP(pos) {
			c.Add(k.PChannel, pos.GetWALName(), pos.GetMsgID())
		}
	case KindSegment:
		if v, err := ViewSegment(value); err == nil {
			c.AddSegment(v)
		}
	}
}

// AddValue tallies a segment key's value as WALCensus.AddValue counts it
// (any other key, or a value that does not decode, counts nowhere).
func (t *PositionTally) AddValue(k Key, value []byte) {
	if k.Kind != KindSegment {
		return
	}
	if v, err := ViewSegment(value); err == nil {
		t.AddSegment(v)
	}
}
