package reset

import (
	"bytes"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models"
)

// A million segments are decided three times in a run (the scan that plans
// and backs up, the replay of the backup, the verify), so segments take a
// fast path: one pass over the value without
// allocating per field, and a rewrite that splices the two positions in. It
// handles the plain shape Milvus writes and gives up (ok false) on anything
// else (malformed, repeated, non-canonical or oddly typed fields), where the
// models path decides instead. Tests check that both paths agree byte for byte.

type fastPos struct {
	present bool
	wal     uint64
	msgID   []byte
}

type fastSeg struct {
	channel   []byte
	state     uint64
	importing bool
	pos       [2]fastPos // start_position (9), dml_position (10)
}

// inspectSegment reads what the planner needs from a SegmentInfo.
func inspectSegment(b []byte) (s fastSeg, ok bool) {
	var seen [2]bool
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 || num < 1 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return s, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return s, false
		}
		val := b[off+n : off+n+m]
		switch num {
		case 4: // insert_channel
			if typ != protowire.BytesType {
				return s, false
			}
			s.channel, _ = protowire.ConsumeBytes(val)
		case 6: // state
			if typ != protowire.VarintType {
				return s, false
			}
			s.state, _ = protowire.ConsumeVarint(val)
		case 17: // is_importing
			if typ != protowire.VarintType {
				return s, false
			}
			v, _ := protowire.ConsumeVarint(val)
			s.importing = v != 0
		case 9, 10:
			i := int(num - 9)
			if typ != protowire.BytesType || seen[i] || n != protowire.SizeTag(num) {
				return s, false
			}
			payload, ln := protowire.ConsumeBytes(val)
			if ln != protowire.SizeBytes(len(payload)) {
				return s, false
			}
			seen[i] = true
			p, ok := inspectPosition(payload)
			if !ok {
				return s, false
			}
			s.pos[i] = p
		}
		off += n + m
	}
	return s, true
}

// inspectPosition reads msgID and WAL_name of a MsgPosition, refusing what
// proto.Unmarshal would refuse or read differently.
func inspectPosition(b []byte) (p fastPos, ok bool) {
	p.present = true
	var seen [6]bool
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 || num < 1 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return p, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return p, false
		}
		val := b[off+n : off+n+m]
		if num <= 5 {
			if seen[num] {
				return p, false
			}
			seen[num] = true
		}
		switch num {
		case 1, 3: // channel_name, msgGroup: proto3 strings are checked for UTF-8
			v, _ := protowire.ConsumeBytes(val)
			if typ != protowire.BytesType || !utf8.Valid(v) {
				return p, false
			}
		case 2:
			if typ != protowire.BytesType {
				return p, false
			}
			p.msgID, _ = protowire.ConsumeBytes(val)
		case 4:
			if typ != protowire.VarintType {
				return p, false
			}
		case 5:
			if typ != protowire.VarintType {
				return p, false
			}
			p.wal, _ = protowire.ConsumeVarint(val)
		}
		off += n + m
	}
	return p, true
}

type rawField struct {
	num protowire.Number
	raw []byte
}

// setRaw has the semantics of wire.Message.set: nf replaces the first
// occurrence of num and drops the others, is appended when num is absent, and
// a nil nf removes num.
func setRaw(fs []rawField, num protowire.Number, nf []byte) []rawField {
	out := fs[:0:0]
	placed := false
	for _, f := range fs {
		if f.num != num {
			out = append(out, f)
			continue
		}
		if !placed && nf != nil {
			out = append(out, rawField{num, nf})
		}
		placed = true
	}
	if !placed && nf != nil {
		out = append(out, rawField{num, nf})
	}
	return out
}

// rewritePositionFast is models' setPosition on a position payload.
func (p *Planner) rewritePositionFast(b []byte, dst []byte) []byte {
	var buf [12]rawField
	fs := buf[:0]
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		fs = append(fs, rawField{num, b[off : off+n+m]})
		off += n + m
	}
	var idField, walField []byte
	if id := p.Target.Bytes(); len(id) > 0 {
		idField = protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), id)
	}
	if p.WAL != 0 {
		walField = protowire.AppendVarint(protowire.AppendTag(nil, 5, protowire.VarintType), uint64(p.WAL))
	}
	fs = setRaw(fs, 2, idField)
	fs = setRaw(fs, 5, walField)
	size := 0
	for _, f := range fs {
		size += len(f.raw)
	}
	dst = protowire.AppendVarint(dst, uint64(size))
	for _, f := range fs {
		dst = append(dst, f.raw...)
	}
	return dst
}

// segmentFast is Planner.segment on the fast path; ok is false when the
// value needs the models path.
func (p *Planner) segmentFast(value []byte) (d Decision, ok bool) {
	s, ok := inspectSegment(value)
	if !ok {
		return d, false
	}
	d.Kind = KindSegment
	pc := models.PChannelOf(string(s.channel))
	for _, pos := range s.pos {
		if pos.present {
			if pos.wal == 0 {
				data := pos.msgID
				if data == nil {
					data = []byte{}
				}
				d.Tags = append(d.Tags, Tag{PChannel: pc, Data: data})
			} else {
				d.Tags = append(d.Tags, Tag{PChannel: pc, WAL: commonpb.WALName(pos.wal)})
			}
		}
	}
	if len(s.channel) == 0 || !p.InScope(pc) {
		d.Reason = KeepOutOfScope
		return d, true
	}
	state := commonpb.SegmentState(s.state)
	d.State = state.String()
	d.Unflushed = models.UnflushedState(state)
	if !s.pos[0].present && !s.pos[1].present {
		d.Reason = KeepNoPosition
		return d, true
	}
	target := p.Target.Bytes()
	var change [2]bool
	for i, pos := range s.pos {
		change[i] = pos.present && !(pos.wal == uint64(p.WAL) && bytes.Equal(pos.msgID, target))
		if change[i] {
			d.Positions++
		}
	}
	if d.Positions == 0 {
		d.Reason = KeepAtTarget
		return d, true
	}
	out := make([]byte, 0, len(value)+2*(len(target)+8))
	for off := 0; off < len(value); {
		num, typ, n := protowire.ConsumeTag(value[off:])
		m := protowire.ConsumeFieldValue(num, typ, value[off+n:])
		if (num == 9 || num == 10) && change[num-9] {
			payload, _ := protowire.ConsumeBytes(value[off+n : off+n+m])
			out = protowire.AppendTag(out, num, protowire.BytesType)
			out = p.rewritePositionFast(payload, out)
		} else {
			out = append(out, value[off:off+n+m]...)
		}
		off += n + m
	}
	d.Action, d.Value = Rewrite, out
	return d, true
}
