package msgid

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenVector is one id as Milvus's own libraries encode it; tests/golden
// generates them (see its README).
type goldenVector struct {
	WAL      string `json:"wal"`
	Name     string `json:"name"`
	Earliest bool   `json:"earliest"`
	// MilvusEarliest marks the ids MustGetEarliestMessageIDFromMQType returns
	// (Milvus's online switch): heron reads them as earliest.
	MilvusEarliest bool             `json:"milvus_earliest"`
	Fields         map[string]int64 `json:"fields"`
	BytesHex       string           `json:"bytes_hex"`
	String         string           `json:"string"`
}

const goldenFile = "../../tests/golden/testdata/msgid.json"

func loadGolden(t *testing.T) []goldenVector {
	t.Helper()
	raw, err := os.ReadFile(goldenFile)
	require.NoError(t, err, "golden vectors are committed under tests/golden")
	var vs []goldenVector
	require.NoError(t, json.Unmarshal(raw, &vs))
	require.NotEmpty(t, vs)
	return vs
}

// fromFields builds heron's id from a vector's fields.
func fromFields(t *testing.T, v goldenVector) ID {
	wal, err := Parse(v.WAL)
	require.NoError(t, err)
	f := v.Fields
	switch v.WAL {
	case "pulsar":
		return PulsarID{Ledger: f["ledger"], Entry: f["entry"], Partition: int32(f["partition"]), Batch: int32(f["batch"]), BatchSize: int32(f["batch_size"])}
	case "woodpecker":
		return WoodpeckerID{Segment: f["segment"], Entry: f["entry"]}
	default:
		// Negative offsets included: heron reads them (it never writes one).
		return OffsetID{Of: wal, Offset: f["offset"]}
	}
}

func TestGoldenVectors(t *testing.T) {
	seen := map[string]int{}
	milvusEarliest := map[string]int{}
	for _, v := range loadGolden(t) {
		t.Run(v.WAL+"/"+v.Name, func(t *testing.T) {
			wal, err := Parse(v.WAL)
			require.NoError(t, err)
			codec, err := For(wal)
			require.NoError(t, err)
			raw, err := hex.DecodeString(v.BytesHex)
			require.NoError(t, err)
			id := fromFields(t, v)
			seen[v.WAL]++
			if v.MilvusEarliest {
				milvusEarliest[v.WAL]++
			}
			assert.Equal(t, v.BytesHex, hex.EncodeToString(id.Bytes()), "bytes encoding")
			assert.Equal(t, v.String, id.Text(), "string encoding")
			fromBytes, err := codec.DecodeBytes(raw)
			require.NoError(t, err)
			assert.Equal(t, id.Human(), fromBytes.Human())
			fromText, err := codec.DecodeText(v.String)
			require.NoError(t, err)
			assert.Equal(t, id.Human(), fromText.Human())
			if v.Earliest || v.MilvusEarliest {
				assert.True(t, fromBytes.IsEarliest(), "decoded from bytes, %s is the WAL's earliest", v.Name)
				assert.True(t, fromText.IsEarliest(), "decoded from text, %s is the WAL's earliest", v.Name)
			}
			if v.Earliest {
				assert.Equal(t, v.BytesHex, hex.EncodeToString(codec.Earliest().Bytes()), "earliest bytes")
				assert.Equal(t, v.String, codec.Earliest().Text(), "earliest string")
			}
		})
	}
	for _, wal := range Names() {
		assert.NotZero(t, seen[wal], "no golden vector for %s", wal)
	}
	for _, wal := range []string{"kafka", "rocksmq", "pulsar", "woodpecker"} {
		assert.Equal(t, 1, milvusEarliest[wal], "one MustGetEarliestMessageIDFromMQType vector for %s", wal)
	}
}
