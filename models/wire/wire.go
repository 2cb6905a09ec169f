// Package wire edits protobuf messages at the wire level. A rewrite touches only
// the fields it names; every other field, known to heron or not, keeps its exact
// bytes and its place, so values written by newer Milvus versions survive a reset.
package wire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field is one encoded field of a message, kept as the bytes it was read from.
type Field struct {
	Num  protowire.Number
	Type protowire.Type
	// Raw is the whole field: tag and value.
	Raw []byte
	// Payload is the value without the tag: the content of a length-delimited
	// field, or the encoded varint/fixed value.
	Payload []byte
	// Varint is the decoded value of a varint field.
	Varint uint64
}

// Message is a parsed protobuf message whose fields keep their original order and bytes.
type Message struct {
	Fields []Field
}

// Parse splits b into fields. It fails on any malformed tag, length or group.
func Parse(b []byte) (*Message, error) {
	m := &Message{Fields: make([]Field, 0, countFields(b))}
	err := Each(b, func(f Field) error {
		m.Fields = append(m.Fields, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Each calls fn with every field of b in order, as Parse splits them, and
// keeps none: a decoder that needs a few fields of a value read for every
// key of a scan allocates nothing for the rest. It fails as Parse does,
// after the fields before the malformed one, or with fn's error.
func Each(b []byte, fn func(f Field) error) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("bad field tag at byte %d: %w", off, protowire.ParseError(n))
		}
		if num < 1 {
			return fmt.Errorf("bad field number %d at byte %d", num, off)
		}
		vlen := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if vlen < 0 {
			return fmt.Errorf("bad value of field %d at byte %d: %w", num, off, protowire.ParseError(vlen))
		}
		f := Field{Num: num, Type: typ, Raw: b[off : off+n+vlen]}
		val := b[off+n : off+n+vlen]
		switch typ {
		case protowire.BytesType:
			f.Payload, _ = protowire.ConsumeBytes(val)
		case protowire.VarintType:
			f.Varint, _ = protowire.ConsumeVarint(val)
			f.Payload = val
		default:
			f.Payload = val
		}
		if err := fn(f); err != nil {
			return err
		}
		off += n + vlen
	}
	return nil
}

// VarintOf is f's value as Message.Varint reads it: 0 unless f is a varint.
func VarintOf(f Field) uint64 {
	if f.Type != protowire.VarintType {
		return 0
	}
	return f.Varint
}

// BytesOf is f's payload as Message.BytesOf reads it: nil unless f is
// length-delimited.
func BytesOf(f Field) []byte {
	if f.Type != protowire.BytesType {
		return nil
	}
	return f.Payload
}

// countFields counts the well-formed fields at the start of b: Parse sizes
// its slice once rather than growing it field by field (a collection info
// is parsed for every key of a scan).
func countFields(b []byte) int {
	count := 0
	for off := 0; off < len(b); count++ {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 || num < 1 {
			break
		}
		vlen := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if vlen < 0 {
			break
		}
		off += n + vlen
	}
	return count
}

// Bytes re-encodes the message: the concatenation of its fields' bytes.
func (m *Message) Bytes() []byte {
	size := 0
	for _, f := range m.Fields {
		size += len(f.Raw)
	}
	out := make([]byte, 0, size)
	for _, f := range m.Fields {
		out = append(out, f.Raw...)
	}
	return out
}

// Get returns the last occurrence of field num, as proto does for singular fields.
func (m *Message) Get(num protowire.Number) (Field, bool) {
	for i := len(m.Fields) - 1; i >= 0; i-- {
		if m.Fields[i].Num == num {
			return m.Fields[i], true
		}
	}
	return Field{}, false
}

// All returns every occurrence of field num, in order (repeated fields).
func (m *Message) All(num protowire.Number) []Field {
	var out []Field
	for _, f := range m.Fields {
		if f.Num == num {
			out = append(out, f)
		}
	}
	return out
}

// Has reports whether field num is present.
func (m *Message) Has(num protowire.Number) bool {
	_, ok := m.Get(num)
	return ok
}

// Varint returns the value of a varint field, or 0 when absent.
func (m *Message) Varint(num protowire.Number) uint64 {
	f, ok := m.Get(num)
	if !ok || f.Type != protowire.VarintType {
		return 0
	}
	return f.Varint
}

// BytesOf returns the payload of a length-delimited field, or nil when absent.
func (m *Message) BytesOf(num protowire.Number) []byte {
	f, ok := m.Get(num)
	if !ok || f.Type != protowire.BytesType {
		return nil
	}
	return f.Payload
}

// String returns a length-delimited field as a string.
func (m *Message) String(num protowire.Number) string {
	return string(m.BytesOf(num))
}

// set replaces every occurrence of num with nf (placed where the first
// occurrence was), appends it when absent, or removes the field when nf is nil.
func (m *Message) set(num protowire.Number, nf *Field) {
	out := make([]Field, 0, len(m.Fields)+1)
	placed := false
	for _, f := range m.Fields {
		if f.Num != num {
			out = append(out, f)
			continue
		}
		if !placed && nf != nil {
			out = append(out, *nf)
		}
		placed = true
	}
	if !placed && nf != nil {
		out = append(out, *nf)
	}
	m.Fields = out
}

func bytesField(num protowire.Number, v []byte) Field {
	raw := protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
	return Field{Num: num, Type: protowire.BytesType, Raw: raw, Payload: raw[len(raw)-len(v):]}
}

// SetBytes sets a length-delimited field. As proto3 does, an empty value removes it.
func (m *Message) SetBytes(num protowire.Number, v []byte) {
	if len(v) == 0 {
		m.set(num, nil)
		return
	}
	f := bytesField(num, v)
	m.set(num, &f)
}

// SetAll sets a repeated length-delimited field to vs, in order, where its
// first occurrence was (appended when absent); an empty element is kept, as
// a repeated message keeps an empty entry.
func (m *Message) SetAll(num protowire.Number, vs [][]byte) {
	fields := make([]Field, len(vs))
	for i, v := range vs {
		fields[i] = bytesField(num, v)
	}
	out := make([]Field, 0, len(m.Fields)+len(vs))
	placed := false
	for _, f := range m.Fields {
		if f.Num != num {
			out = append(out, f)
			continue
		}
		if !placed {
			out = append(out, fields...)
		}
		placed = true
	}
	if !placed {
		out = append(out, fields...)
	}
	m.Fields = out
}

// SetVarint sets a varint field. As proto3 does, zero removes it.
func (m *Message) SetVarint(num protowire.Number, v uint64) {
	if v == 0 {
		m.set(num, nil)
		return
	}
	tag := protowire.AppendTag(nil, num, protowire.VarintType)
	raw := protowire.AppendVarint(tag, v)
	m.set(num, &Field{Num: num, Type: protowire.VarintType, Raw: raw, Payload: raw[len(tag):], Varint: v})
}

// EditMessages rewrites every occurrence of the message field num in place with
// fn; fields fn leaves unchanged keep their bytes.
func (m *Message) EditMessages(num protowire.Number, fn func(sub *Message) error) error {
	for i, f := range m.Fields {
		if f.Num != num {
			continue
		}
		if f.Type != protowire.BytesType {
			return fmt.Errorf("field %d is not a message (wire type %d)", num, f.Type)
		}
		sub, err := Parse(f.Payload)
		if err != nil {
			return fmt.Errorf("field %d: %w", num, err)
		}
		if err := fn(sub); err != nil {
			return err
		}
		m.Fields[i] = bytesField(num, sub.Bytes())
	}
	return nil
}

// Sub parses the message field num (its last occurrence); nil when absent.
func (m *Message) Sub(num protowire.Number) (*Message, error) {
	f, ok := m.Get(num)
	if !ok {
		return nil, nil
	}
	if f.Type != protowire.BytesType {
		return nil, fmt.Errorf("field %d is not a message (wire type %d)", num, f.Type)
	}
	sub, err := Parse(f.Payload)
	if err != nil {
		return nil, fmt.Errorf("field %d: %w", num, err)
	}
	return sub, nil
}

// Builder appends fields to build a message from scratch (seeding and tests).
type Builder struct{ b []byte }

// Varint appends a varint field; zero values are skipped as proto3 does.
func (w *Builder) Varint(num protowire.Number, v uint64) *Builder {
	if v != 0 {
		w.b = protowire.AppendVarint(protowire.AppendTag(w.b, num, protowire.VarintType), v)
	}
	return w
}

// Bytes appends a length-delimited field; empty values are skipped.
func (w *Builder) Bytes(num protowire.Number, v []byte) *Builder {
	if len(v) != 0 {
		w.b = protowire.AppendBytes(protowire.AppendTag(w.b, num, protowire.BytesType), v)
	}
	return w
}

// String appends a string field; empty strings are skipped.
func (w *Builder) String(num protowire.Number, v string) *Builder {
	return w.Bytes(num, []byte(v))
}

// Message appends an embedded message, even when it is empty.
func (w *Builder) Message(num protowire.Number, v []byte) *Builder {
	w.b = protowire.AppendBytes(protowire.AppendTag(w.b, num, protowire.BytesType), v)
	return w
}

// Raw appends already encoded fields.
func (w *Builder) Raw(raw []byte) *Builder {
	w.b = append(w.b, raw...)
	return w
}

// Build returns the encoded message.
func (w *Builder) Build() []byte { return w.b }
