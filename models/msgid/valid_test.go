package msgid

import (
	"encoding/hex"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allWALs = []commonpb.WALName{commonpb.WALName_Pulsar, commonpb.WALName_Kafka, commonpb.WALName_RocksMQ, commonpb.WALName_WoodPecker}

// decodeCases are ids that decode and bytes that do not, in some WAL.
func decodeCases(t *testing.T) [][]byte {
	cases := [][]byte{nil, {}, {0x08}, {0x08, 0xff}, {0x08, 0x01}, {0x0a, 0x00}, {0x00}, {0x08, 0x01, 0x10, 0x02},
		{0x08, 0x01, 0x12, 0x00}, {0x08, 0x01, 0x10, 0x02, 0x1a, 0x00}, {0x08, 0x01, 0x10, 0x02, 0x3a, 0x01, 0x05},
		{0x08, 0x01, 0x10, 0x02, 0x0b}, make([]byte, 8), make([]byte, 9)}
	for _, v := range loadGolden(t) {
		raw, err := hex.DecodeString(v.BytesHex)
		require.NoError(t, err)
		cases = append(cases, raw)
	}
	return cases
}

// Decodes answers as DecodeBytes does, for every WAL, on valid and broken ids.
func TestDecodesAgreesWithDecodeBytes(t *testing.T) {
	for _, b := range decodeCases(t) {
		for _, wal := range allWALs {
			codec, err := For(wal)
			require.NoError(t, err)
			_, err = codec.DecodeBytes(b)
			assert.Equal(t, err == nil, Decodes(wal, b), "%s %x", Name(wal), b)
		}
	}
	assert.False(t, Decodes(commonpb.WALName_Unknown, nil))
	assert.False(t, Supported(commonpb.WALName_Unknown))
}

// The census asks Decodes of every untagged position: it must not allocate.
func TestDecodesAllocatesNothing(t *testing.T) {
	pulsar := PulsarID{Ledger: 451234, Entry: 77, Partition: 0, Batch: -1}.Bytes()
	wp := WoodpeckerID{Segment: 3, Entry: 12}.Bytes()
	kafka := OffsetID{Of: commonpb.WALName_Kafka, Offset: 1005}.Bytes()
	allocs := testing.AllocsPerRun(1000, func() {
		if !Decodes(commonpb.WALName_Pulsar, pulsar) || !Decodes(commonpb.WALName_WoodPecker, wp) ||
			!Decodes(commonpb.WALName_Kafka, kafka) || Decodes(commonpb.WALName_Pulsar, wp[:1]) {
			t.Fatal("wrong answer")
		}
		_ = Name(commonpb.WALName_Pulsar)
	})
	assert.Zero(t, allocs)
}

func TestNameRoundTrips(t *testing.T) {
	for _, n := range Names() {
		w, err := Parse(n)
		require.NoError(t, err)
		assert.Equal(t, n, Name(w))
		assert.True(t, Supported(w), n)
	}
}

func FuzzDecodes(f *testing.F) {
	f.Add([]byte{0x08, 0x64, 0x10, 0x05})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, wal := range allWALs {
			codec, _ := For(wal)
			_, err := codec.DecodeBytes(b)
			if (err == nil) != Decodes(wal, b) {
				t.Fatalf("%s %x: DecodeBytes error %v, Decodes %v", Name(wal), b, err, Decodes(wal, b))
			}
		}
	})
}

func BenchmarkDecodes(b *testing.B) {
	id := PulsarID{Ledger: 451234, Entry: 77, Partition: 0, Batch: -1}.Bytes()
	codec, _ := For(commonpb.WALName_Pulsar)
	b.Run("Decodes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Decodes(commonpb.WALName_Pulsar, id)
		}
	})
	b.Run("DecodeBytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = codec.DecodeBytes(id)
		}
	})
}
