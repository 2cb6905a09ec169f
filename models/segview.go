package models

import (
	"bytes"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/msgid"
)

// A reset decides a million segments several times in a run, so segments
// have a fast path: one pass over the value without allocating per field,
// and a rewrite that splices the two positions in. It takes the plain shape
// Milvus writes and hands anything else (malformed, repeated, non-canonical
// or oddly typed fields) to the general decoder; the fuzz test
// FuzzSegmentFastPath checks that both agree byte for byte.

// PositionView is what a segment position says about its WAL.
type PositionView struct {
	Present   bool
	WAL       commonpb.WALName // WAL_name; Unknown when untagged
	MsgID     []byte           // aliases the value that was viewed
	Timestamp uint64
}

// SegmentView is what a reset and the split-state rule read from a
// datapb.SegmentInfo.
type SegmentView struct {
	Channel    string // insert_channel, the vchannel
	State      commonpb.SegmentState
	Importing  bool
	Start, DML PositionView
	// plain: the fast path read it, so a rewrite can splice without reading it again.
	plain bool
}

// Target is the id a reset writes into positions, encoded once: its WAL,
// its bytes and the msgID and WAL_name fields a rewrite sets (a reset
// compares and splices it into a million segments).
type Target struct {
	ID     msgid.ID
	WAL    commonpb.WALName
	Bytes  []byte
	fields positionFields
}

// NewTarget encodes id for comparing and rewriting positions.
func NewTarget(id msgid.ID) Target {
	b := id.Bytes()
	return Target{ID: id, WAL: id.WAL(), Bytes: b, fields: newPositionFields(b, id.WAL())}
}

// In reports whether the position already holds exactly the target, tagged with its WAL.
func (p PositionView) In(t Target) bool {
	return p.WAL == t.WAL && bytes.Equal(p.MsgID, t.Bytes)
}

// Position returns the position as a MsgPosition (for descriptions); nil when absent.
func (p PositionView) Position() *msgpb.MsgPosition {
	if !p.Present {
		return nil
	}
	return &msgpb.MsgPosition{MsgID: p.MsgID, WALName: p.WAL, Timestamp: p.Timestamp}
}

// ViewSegment reads a segment value: in one pass without allocating per
// field when it has Milvus's plain shape, else with the general decoder.
func ViewSegment(b []byte) (SegmentView, error) {
	if v, channel, ok := inspectSegment(b); ok {
		v.Channel = string(channel)
		return v, nil
	}
	return viewSegmentGeneral(b)
}

// SegmentChannel is the insert_channel (the vchannel) of a
// datapb.SegmentInfo, read from its top level alone: a command that wants
// the segments of one pchannel tells the others apart without decoding
// them (a sixty-fourth of a million, say, is its). ok is false when the top
// level does not parse, or the field is not there as bytes; the last one
// counts, as a decoder's would.
func SegmentChannel(b []byte) (channel []byte, ok bool) {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return nil, false
		}
		if num == segChannel {
			if typ != protowire.BytesType {
				return nil, false
			}
			channel, _ = protowire.ConsumeBytes(b[off+n : off+n+m])
			ok = true
		}
		off += n + m
	}
	return channel, ok
}

// OnPChannel reports whether the vchannel channel names lies on pchannel
// (PChannelOf's rule), without allocating.
func OnPChannel(channel []byte, pchannel string) bool {
	if i := bytes.LastIndexByte(channel, '_'); i > 0 {
		channel = channel[:i]
	}
	return string(channel) == pchannel
}

// SegmentViewer is ViewSegment that keeps the channel names it has seen: a
// scan views a million segments of a few thousand vchannels, and each view
// would otherwise copy its channel name. It keeps at most maxViewedChannels
// names (past them it copies). The zero value is ready; not for concurrent use.
type SegmentViewer struct {
	channels map[string]string
}

const maxViewedChannels = 1 << 16

// View is ViewSegment, the channel name shared with earlier views of it (a
// nil viewer keeps none: ViewSegment).
func (sv *SegmentViewer) View(b []byte) (SegmentView, error) {
	if sv == nil {
		return ViewSegment(b)
	}
	v, channel, ok := inspectSegment(b)
	if !ok {
		return viewSegmentGeneral(b)
	}
	if name, seen := sv.channels[string(channel)]; seen {
		v.Channel = name
		return v, nil
	}
	v.Channel = string(channel)
	if sv.channels == nil {
		sv.channels = map[string]string{}
	}
	if len(sv.channels) < maxViewedChannels {
		sv.channels[v.Channel] = v.Channel
	}
	return v, nil
}

func viewSegmentGeneral(b []byte) (SegmentView, error) {
	s, err := DecodeSegmentInfo(b)
	if err != nil {
		return SegmentView{}, err
	}
	return SegmentView{Channel: s.InsertChannel, State: s.State, Importing: s.IsImporting,
		Start: positionView(s.StartPosition), DML: positionView(s.DMLPosition)}, nil
}

func positionView(p *msgpb.MsgPosition) PositionView {
	if p == nil {
		return PositionView{}
	}
	return PositionView{Present: true, WAL: p.GetWALName(), MsgID: p.GetMsgID(), Timestamp: p.GetTimestamp()}
}

// RewriteViewedSegment sets msgID and WAL_name of start_position and
// dml_position (where present) to the target in a value b that ViewSegment
// read as v; it returns the new value and how many positions changed.
// Everything else, binlogs included, keeps its bytes, and when nothing
// changes the value is returned as it is. When the fast path read b, the
// positions are spliced in without reading b again (a reset decides a
// million segments); any other view, the zero one included, rewrites b with
// the general decoder.
func RewriteViewedSegment(b []byte, v SegmentView, t Target) ([]byte, int, error) {
	if !v.plain {
		return rewriteSegmentPositionsGeneral(b, t.ID)
	}
	out, n := spliceSegment(b, v, t)
	return out, n, nil
}

// CountViewedRewrites is the number of positions RewriteViewedSegment would
// change, without building the value (a dry run needs only the count); ok
// is false when v is not Milvus's plain shape, which only the rewrite counts.
func CountViewedRewrites(v SegmentView, t Target) (n int, ok bool) {
	if !v.plain {
		return 0, false
	}
	_, n = viewedChanges(v, t)
	return n, true
}

// viewedChanges says which of a viewed segment's positions (start, dml) a
// rewrite to the target changes, and how many.
func viewedChanges(v SegmentView, t Target) (change [2]bool, n int) {
	for i, p := range [2]PositionView{v.Start, v.DML} {
		change[i] = p.Present && !p.In(t)
		if change[i] {
			n++
		}
	}
	return change, n
}

// spliceSegment rewrites the positions of a value inspectSegment accepted as v.
func spliceSegment(b []byte, v SegmentView, t Target) ([]byte, int) {
	change, n := viewedChanges(v, t)
	if n == 0 {
		return b, 0
	}
	out := make([]byte, 0, len(b)+2*(len(t.Bytes)+8))
	for off := 0; off < len(b); {
		num, typ, tn := protowire.ConsumeTag(b[off:])
		m := protowire.ConsumeFieldValue(num, typ, b[off+tn:])
		if (num == segStartPosition || num == segDMLPosition) && change[num-segStartPosition] {
			payload, _ := protowire.ConsumeBytes(b[off+tn : off+tn+m])
			out = protowire.AppendTag(out, num, protowire.BytesType)
			out = appendRewrittenPosition(out, payload, t.fields)
		} else {
			out = append(out, b[off:off+tn+m]...)
		}
		off += tn + m
	}
	return out, n
}

// inspectSegment is the fast path (the view without its Channel, which it
// returns as bytes): ok is false when the value needs the
// general decoder. It accepts a value only when the general decoder reads it
// the same way and re-encodes every unchanged byte as it is: each position
// field at most once, with a canonical tag and length, and positions that
// proto.Unmarshal accepts.
func inspectSegment(b []byte) (v SegmentView, channel []byte, ok bool) {
	var seen [2]bool
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 || num < 1 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return v, nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return v, nil, false
		}
		if int(num) < len(segmentWire) && segmentWire[num] != 0 && protowire.Type(segmentWire[num]-1) != typ {
			return v, nil, false // the general path names the field
		}
		val := b[off+n : off+n+m]
		switch num {
		case segChannel:
			if typ != protowire.BytesType {
				return v, nil, false
			}
			channel, _ = protowire.ConsumeBytes(val)
		case segState:
			if typ != protowire.VarintType {
				return v, nil, false
			}
			s, _ := protowire.ConsumeVarint(val)
			v.State = commonpb.SegmentState(s)
		case segIsImporting:
			if typ != protowire.VarintType {
				return v, nil, false
			}
			s, _ := protowire.ConsumeVarint(val)
			v.Importing = s != 0
		case segStartPosition, segDMLPosition:
			i := int(num - segStartPosition)
			if typ != protowire.BytesType || seen[i] || n != protowire.SizeTag(num) {
				return v, nil, false
			}
			payload, ln := protowire.ConsumeBytes(val)
			if ln != protowire.SizeBytes(len(payload)) {
				return v, nil, false
			}
			seen[i] = true
			p, ok := inspectPosition(payload)
			if !ok {
				return v, nil, false
			}
			if i == 0 {
				v.Start = p
			} else {
				v.DML = p
			}
		}
		off += n + m
	}
	v.plain = true
	return v, channel, true
}

// inspectPosition reads a MsgPosition, refusing what proto.Unmarshal would
// refuse or read differently (repeated, oddly typed or non-UTF-8 fields).
func inspectPosition(b []byte) (p PositionView, ok bool) {
	p.Present = true
	var seen [posWALName + 1]bool
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		// ConsumeTag takes numbers up to MaxInt32; proto.Unmarshal only valid ones.
		if n < 0 || num < 1 || num > protowire.MaxValidNumber || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return p, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return p, false
		}
		val := b[off+n : off+n+m]
		if num <= posWALName {
			if seen[num] {
				return p, false
			}
			seen[num] = true
		}
		switch num {
		case posChannel, 3: // channel_name, msgGroup: proto3 strings must be UTF-8
			if typ != protowire.BytesType {
				return p, false
			}
			if s, _ := protowire.ConsumeBytes(val); !utf8.Valid(s) {
				return p, false
			}
		case posMsgID:
			if typ != protowire.BytesType {
				return p, false
			}
			p.MsgID, _ = protowire.ConsumeBytes(val)
		case posTimestamp:
			if typ != protowire.VarintType {
				return p, false
			}
			p.Timestamp, _ = protowire.ConsumeVarint(val)
		case posWALName:
			if typ != protowire.VarintType {
				return p, false
			}
			w, _ := protowire.ConsumeVarint(val)
			p.WAL = commonpb.WALName(int32(w))
		}
		off += n + m
	}
	return p, true
}

// positionFields are the encoded msgID and WAL_name fields a rewrite sets
// (nil: the field is removed, as proto3 leaves out empty values).
type positionFields struct{ id, wal []byte }

func newPositionFields(target []byte, wal commonpb.WALName) positionFields {
	var f positionFields
	if len(target) > 0 {
		f.id = protowire.AppendBytes(protowire.AppendTag(make([]byte, 0, len(target)+3), posMsgID, protowire.BytesType), target)
	}
	if wal != commonpb.WALName_Unknown {
		f.wal = protowire.AppendVarint(protowire.AppendTag(make([]byte, 0, 11), posWALName, protowire.VarintType), uint64(wal))
	}
	return f
}

// appendRewrittenPosition appends the length-prefixed position payload b
// with msgID and WAL_name replaced by f, as setPosition does on the general
// path: the first msgID or WAL_name field is replaced in place (or the field
// appended at the end), a nil field removes it, every other field stays.
func appendRewrittenPosition(dst, b []byte, f positionFields) []byte {
	dst = protowire.AppendVarint(dst, uint64(rewritePosition(nil, b, f, true)))
	rewritePosition(&dst, b, f, false)
	return dst
}

// rewritePosition returns the size of the rewritten payload, and appends it
// to *dst unless sizeOnly.
func rewritePosition(dst *[]byte, b []byte, f positionFields, sizeOnly bool) int {
	size := 0
	emit := func(raw []byte) {
		size += len(raw)
		if !sizeOnly {
			*dst = append(*dst, raw...)
		}
	}
	placedID, placedWAL := false, false
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		raw := b[off : off+n+m]
		off += n + m
		switch num {
		case posMsgID:
			if !placedID && f.id != nil {
				emit(f.id)
			}
			placedID = true
		case posWALName:
			if !placedWAL && f.wal != nil {
				emit(f.wal)
			}
			placedWAL = true
		default:
			emit(raw)
		}
	}
	if !placedID && f.id != nil {
		emit(f.id)
	}
	if !placedWAL && f.wal != nil {
		emit(f.wal)
	}
	return size
}

// AtEarliest reports whether the position is tagged wal and holds wal's
// earliest id in a form a reset keeps: heron's, or Milvus's own kafka -2 and
// rocksmq -1 (as its online switch writes them): a reset to wal has nothing
// to move there. Woodpecker's empty form also reads as {0, 0}, but a reset
// rewrites it to the explicit one (msgid.IsEmptyEarliest), so it is not kept.
func (p PositionView) AtEarliest(wal commonpb.WALName) bool {
	return p.Present && idAtEarliest(p.WAL, wal, p.MsgID)
}

// PositionAtEarliest is PositionView.AtEarliest for a decoded MsgPosition.
func PositionAtEarliest(p *msgpb.MsgPosition, wal commonpb.WALName) bool {
	return p != nil && idAtEarliest(p.GetWALName(), wal, p.GetMsgID())
}

func idAtEarliest(tag, wal commonpb.WALName, b []byte) bool {
	if tag != wal || msgid.IsEmptyEarliest(wal, b) {
		return false
	}
	c, err := msgid.For(wal)
	if err != nil {
		return false
	}
	id, err := c.DecodeBytes(b)
	return err == nil && id.IsEarliest()
}
