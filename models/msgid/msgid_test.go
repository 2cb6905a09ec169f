package msgid

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The vectors of milvus-metadata.md section 2, as Milvus's own code encodes them.
func TestDocumentedVectors(t *testing.T) {
	cases := []struct {
		name  string
		id    ID
		hex   string
		text  string
		human string
	}{
		{"kafka earliest", OffsetID{Of: commonpb.WALName_Kafka}, "0000000000000000", "0", "0"},
		{"rocksmq earliest", OffsetID{Of: commonpb.WALName_RocksMQ}, "0000000000000000", "0", "0"},
		{"kafka 1005", OffsetID{Of: commonpb.WALName_Kafka, Offset: 1005}, "ed03000000000000", "rx", "1005"},
		{"pulsar earliest", PulsarEarliest, "08ffffffffffffffffff0110ffffffffffffffffff0118ffffffffffffffffff0120ffffffffffffffffff013000",
			"CP///////////wEQ////////////ARj///////////8BIP///////////wEwAA==", "-1:-1:-1:-1"},
		{"pulsar 100:5:0:-1", PulsarID{Ledger: 100, Entry: 5, Partition: 0, Batch: -1}, "08641005180020ffffffffffffffffff013000",
			"CGQQBRgAIP///////////wEwAA==", "100:5:0:-1"},
		{"woodpecker earliest (explicit zero fields)", WoodpeckerID{}, "08001000", "CAAQAA==", "0:0"},
		{"woodpecker 3:12", WoodpeckerID{Segment: 3, Entry: 12}, "0803100c", "CAMQDA==", "3:12"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.hex, hex.EncodeToString(c.id.Bytes()))
			assert.Equal(t, c.text, c.id.Text())
			assert.Equal(t, c.human, c.id.Human())
			codec, err := For(c.id.WAL())
			require.NoError(t, err)
			raw, _ := hex.DecodeString(c.hex)
			fromBytes, err := codec.DecodeBytes(raw)
			require.NoError(t, err)
			assert.Equal(t, c.human, fromBytes.Human())
			assert.Equal(t, c.hex, hex.EncodeToString(fromBytes.Bytes()), "decode then encode keeps the bytes")
			fromText, err := codec.DecodeText(c.text)
			require.NoError(t, err)
			assert.Equal(t, c.hex, hex.EncodeToString(fromText.Bytes()))
		})
	}
}

func TestEarliest(t *testing.T) {
	for _, wal := range []commonpb.WALName{commonpb.WALName_Pulsar, commonpb.WALName_Kafka, commonpb.WALName_RocksMQ, commonpb.WALName_WoodPecker} {
		c, err := For(wal)
		require.NoError(t, err)
		e := c.Earliest()
		assert.True(t, e.IsEarliest(), Name(wal))
		assert.Equal(t, wal, e.WAL())
		assert.False(t, strings.HasPrefix(e.Text(), "-"), "%s earliest must not be negative", Name(wal))
	}
}

func TestInvalidInput(t *testing.T) {
	kafka, _ := For(commonpb.WALName_Kafka)
	pulsar, _ := For(commonpb.WALName_Pulsar)
	wp, _ := For(commonpb.WALName_WoodPecker)
	bad := []struct {
		name string
		run  func() error
		want string
	}{
		{"kafka short bytes", func() error { _, err := kafka.DecodeBytes([]byte{1, 2, 3}); return err }, "8 bytes"},
		{"kafka long bytes", func() error { _, err := kafka.DecodeBytes(make([]byte, 9)); return err }, "8 bytes"},
		{"kafka text overflows int64", func() error { _, err := kafka.DecodeText("1y2p0ij32e8e8"); return err }, "base-36 int64"},
		{"kafka garbage text", func() error { _, err := kafka.DecodeText("!!"); return err }, "base-36"},
		{"pulsar truncated", func() error { _, err := pulsar.DecodeBytes([]byte{0x08, 0xff}); return err }, "pulsar"},
		{"pulsar missing entry", func() error { _, err := pulsar.DecodeBytes([]byte{0x08, 0x01}); return err }, "required"},
		{"pulsar bad base64", func() error { _, err := pulsar.DecodeText("***"); return err }, "base64"},
		{"woodpecker truncated", func() error { _, err := wp.DecodeBytes([]byte{0x08}); return err }, "woodpecker"},
		{"woodpecker bad base64", func() error { _, err := wp.DecodeText("%%%"); return err }, "base64"},
		{"woodpecker wrong wire type", func() error { _, err := wp.DecodeBytes([]byte{0x0a, 0x00}); return err }, "wire type"},
		{"unknown wal", func() error { _, err := For(commonpb.WALName_Unknown); return err }, "no message-id codec"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// Milvus 2.6.19+ reads negative kafka/rocksmq ids, and its online switch
// writes kafka -2 and rocksmq -1 as earliest (adaptor/message_id.go
// MustGetEarliestMessageIDFromMQType): heron reads them, counts them as
// earliest, and still never builds one to write.
func TestNegativeOffsetIDs(t *testing.T) {
	cases := []struct {
		wal      commonpb.WALName
		hex      string
		text     string
		offset   int64
		earliest bool
	}{
		{commonpb.WALName_Kafka, "feffffffffffffff", "-2", -2, true},
		{commonpb.WALName_Kafka, "ffffffffffffffff", "-1", -1, false},
		{commonpb.WALName_RocksMQ, "ffffffffffffffff", "-1", -1, true},
		{commonpb.WALName_RocksMQ, "feffffffffffffff", "-2", -2, false},
		{commonpb.WALName_Kafka, "0000000000000080", "-1y2p0ij32e8e8", -1 << 63, false},
	}
	for _, c := range cases {
		codec, err := For(c.wal)
		require.NoError(t, err)
		raw, _ := hex.DecodeString(c.hex)
		fromBytes, err := codec.DecodeBytes(raw)
		require.NoError(t, err, "%s %s", Name(c.wal), c.hex)
		fromText, err := codec.DecodeText(c.text)
		require.NoError(t, err, "%s %s", Name(c.wal), c.text)
		for _, id := range []ID{fromBytes, fromText} {
			assert.Equal(t, OffsetID{Of: c.wal, Offset: c.offset}, id)
			assert.Equal(t, c.earliest, id.IsEarliest(), "%s %d earliest", Name(c.wal), c.offset)
			assert.Equal(t, c.hex, hex.EncodeToString(id.Bytes()))
			assert.Equal(t, c.text, id.Text())
		}
		assert.Equal(t, "0", codec.Earliest().Text(), "the earliest heron writes is 0, never a negative id")
	}
}

func TestParse(t *testing.T) {
	w, err := Parse("WoodPecker")
	require.NoError(t, err)
	assert.Equal(t, commonpb.WALName_WoodPecker, w)
	_, err = Parse("natsmq")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kafka, pulsar, rocksmq, woodpecker")
	assert.Equal(t, "pulsar", Name(commonpb.WALName_Pulsar))
	assert.Equal(t, "unknown", Name(commonpb.WALName_Unknown))
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x08, 0x64, 0x10, 0x05})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range codecs {
			if id, err := c.DecodeBytes(b); err == nil {
				_ = id.Human()
				_ = id.Text()
			}
			_, _ = c.DecodeText(string(b))
		}
	})
}
