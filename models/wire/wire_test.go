package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

func TestParseKeepsBytes(t *testing.T) {
	var b Builder
	raw := b.Varint(1, 7).String(2, "x").Message(3, (&Builder{}).Varint(1, 1).Build()).
		Raw(protowire.AppendFixed32(protowire.AppendTag(nil, 40, protowire.Fixed32Type), 9)).
		Raw(protowire.AppendFixed64(protowire.AppendTag(nil, 41, protowire.Fixed64Type), 9)).Build()
	m, err := Parse(raw)
	require.NoError(t, err)
	assert.Len(t, m.Fields, 5)
	assert.Equal(t, raw, m.Bytes())
	assert.Equal(t, uint64(7), m.Varint(1))
	assert.Equal(t, "x", m.String(2))
}

func TestSetKeepsOtherFieldsInPlace(t *testing.T) {
	var b Builder
	raw := b.String(1, "ch").Bytes(2, []byte{1, 2, 3}).Varint(4, 99).Varint(77, 5).Build()
	m, err := Parse(raw)
	require.NoError(t, err)
	m.SetBytes(2, []byte{9})
	m.SetVarint(5, 4)
	want := (&Builder{}).String(1, "ch").Bytes(2, []byte{9}).Varint(4, 99).Varint(77, 5).Varint(5, 4).Build()
	assert.Equal(t, want, m.Bytes())

	m.SetBytes(2, nil)
	assert.False(t, m.Has(2), "an empty bytes value is absent, as proto3 writes it")
	assert.Equal(t, uint64(5), m.Varint(77), "unknown field survives")
}

func TestSetCollapsesRepeatedOccurrences(t *testing.T) {
	raw := (&Builder{}).Varint(5, 1).Varint(1, 1).Varint(5, 2).Build()
	m, err := Parse(raw)
	require.NoError(t, err)
	m.SetVarint(5, 3)
	assert.Equal(t, (&Builder{}).Varint(5, 3).Varint(1, 1).Build(), m.Bytes())
}

func TestEditMessages(t *testing.T) {
	inner := (&Builder{}).String(1, "k").Bytes(2, []byte("old")).Varint(9, 1).Build()
	raw := (&Builder{}).Varint(1, 5).Message(11, inner).Message(11, inner).Varint(15, 1).Build()
	m, err := Parse(raw)
	require.NoError(t, err)
	n := 0
	require.NoError(t, m.EditMessages(11, func(sub *Message) error {
		n++
		if n == 2 {
			sub.SetBytes(2, []byte("new"))
		}
		return nil
	}))
	newInner := (&Builder{}).String(1, "k").Bytes(2, []byte("new")).Varint(9, 1).Build()
	assert.Equal(t, (&Builder{}).Varint(1, 5).Message(11, inner).Message(11, newInner).Varint(15, 1).Build(), m.Bytes())
}

func TestParseRejectsMalformed(t *testing.T) {
	for name, b := range map[string][]byte{
		"truncated varint": {0x08, 0xff},
		"length overflow":  {0x12, 0x05, 'a'},
		"field zero":       {0x00, 0x01},
		"bad wire type":    {0x0f},
	} {
		_, err := Parse(b)
		assert.Error(t, err, name)
	}
	m, err := Parse((&Builder{}).Varint(3, 1).Build())
	require.NoError(t, err)
	assert.Error(t, m.EditMessages(3, func(*Message) error { return nil }), "a varint is not a message")
}

func FuzzParse(f *testing.F) {
	f.Add([]byte{0x08, 0x01, 0x12, 0x01, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			return
		}
		if string(m.Bytes()) != string(b) {
			t.Fatalf("round trip changed bytes")
		}
	})
}

// Each visits the fields Parse keeps, in order, with their values as the
// Message accessors read them; it fails where Parse does, after the fields
// before the fault, and stops at fn's error.
func TestEachIsParseWithoutTheSlice(t *testing.T) {
	good := (&Builder{}).Varint(1, 7).String(2, "x").Bytes(1, []byte{1}).Message(3, (&Builder{}).Varint(1, 1).Build()).
		Raw(protowire.AppendFixed32(protowire.AppendTag(nil, 40, protowire.Fixed32Type), 9)).Build()
	m, err := Parse(good)
	require.NoError(t, err)
	var seen []Field
	require.NoError(t, Each(good, func(f Field) error {
		seen = append(seen, f)
		return nil
	}))
	assert.Equal(t, m.Fields, seen)
	assert.Equal(t, uint64(0), VarintOf(seen[2]), "field 1 last written as bytes: Varint reads 0")
	assert.Equal(t, m.Varint(1), VarintOf(seen[2]))
	assert.Equal(t, []byte("x"), BytesOf(seen[1]))
	assert.Nil(t, BytesOf(seen[0]))

	bad := append(good[:len(good):len(good)], 0x0a, 5, 1) // field 1, 5 bytes, one there
	_, perr := Parse(bad)
	require.Error(t, perr)
	n := 0
	eerr := Each(bad, func(Field) error { n++; return nil })
	assert.Equal(t, perr.Error(), eerr.Error())
	assert.Equal(t, len(seen), n, "the fields before the fault")

	stop := assert.AnError
	n = 0
	assert.Same(t, stop, Each(good, func(Field) error { n++; return stop }))
	assert.Equal(t, 1, n)
}
