package msgid

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
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
			if v.WAL == "woodpecker" && id.IsEarliest() {
				// heron writes {0,0} with explicit zero fields, not Milvus's
				// empty form: TestGoldenWoodpeckerEarliestForms.
				assert.Empty(t, v.BytesHex)
			} else {
				assert.Equal(t, v.BytesHex, hex.EncodeToString(id.Bytes()), "bytes encoding")
				assert.Equal(t, v.String, id.Text(), "string encoding")
			}
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
			if v.Earliest && v.WAL != "woodpecker" {
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

// wpEarliestReading is one entry of tests/golden/testdata/wp_earliest.json:
// what Milvus 2.6's readers (pkg v2.6.23) make of one form of woodpecker's
// earliest id, computed by the golden program with those functions.
type wpEarliestReading struct {
	Form                 string `json:"form"`
	BytesHex             string `json:"bytes_hex"`
	String               string `json:"string"`
	DeserializeBytes     string `json:"deserialize_bytes"`
	AtEarliestPosition   bool   `json:"at_earliest_position"`
	EqualsEarliest       bool   `json:"equals_earliest"`
	MsgStreamSeekRefuses bool   `json:"msgstream_seek_refuses"`
	UnmarshalString      string `json:"unmarshal_string"`
	UnmarshalProto       string `json:"unmarshal_proto"`
	EQEarliest           bool   `json:"eq_earliest"`
	ReadFrom             string `json:"read_from"`
}

// heron writes woodpecker's {0,0} with explicit zero fields. The evidence:
// every reader of a woodpecker position in pkg v2.6.23 reads it exactly as
// Milvus's own empty form, {0,0} at the earliest position
// (mq/msgstream/mqwrapper/wp/wp_id.go DeserializeWoodpeckerMsgID,
// AtEarliestPosition, Equal; streaming/walimpls/impls/wp/message_id.go
// UnmarshalMessageID, EQ; streaming/util/message UnmarshalMessageID;
// impls/wp/wal.go Read's start position), while the empty form is refused
// by MsgStream Seek (mq/msgstream/mq_msgstream.go:967, len(msgID) == 0).
// The adaptor's conversions (streaming/util/message/adaptor/message_id.go:85,115)
// call the same DeserializeWoodpeckerMsgID (they link cgo rocksdb: not called).
func TestGoldenWoodpeckerEarliestForms(t *testing.T) {
	raw, err := os.ReadFile("../../tests/golden/testdata/wp_earliest.json")
	require.NoError(t, err)
	var rs []wpEarliestReading
	require.NoError(t, json.Unmarshal(raw, &rs))
	forms := map[string]wpEarliestReading{}
	for _, r := range rs {
		forms[r.Form] = r
	}
	require.Len(t, forms, 2)
	empty, explicit := forms["empty"], forms["explicit"]
	for _, r := range []wpEarliestReading{empty, explicit} {
		assert.Equal(t, "0/0", r.DeserializeBytes, r.Form)
		assert.True(t, r.AtEarliestPosition, r.Form)
		assert.True(t, r.EqualsEarliest, r.Form)
		assert.Equal(t, "0/0", r.UnmarshalString, r.Form)
		assert.Equal(t, "0/0", r.UnmarshalProto, r.Form)
		assert.True(t, r.EQEarliest, r.Form)
		assert.Equal(t, "0/0", r.ReadFrom, r.Form)
	}
	assert.True(t, empty.MsgStreamSeekRefuses)
	assert.False(t, explicit.MsgStreamSeekRefuses)

	// heron writes the explicit form and reads both as {0,0}.
	codec, err := For(commonpb.WALName_WoodPecker)
	require.NoError(t, err)
	assert.Equal(t, explicit.BytesHex, hex.EncodeToString(codec.Earliest().Bytes()))
	assert.Equal(t, explicit.String, codec.Earliest().Text())
	for _, r := range []wpEarliestReading{empty, explicit} {
		b, err := hex.DecodeString(r.BytesHex)
		require.NoError(t, err)
		fromBytes, err := codec.DecodeBytes(b)
		require.NoError(t, err)
		assert.True(t, fromBytes.IsEarliest(), r.Form)
		fromText, err := codec.DecodeText(r.String)
		require.NoError(t, err)
		assert.True(t, fromText.IsEarliest(), r.Form)
		assert.Equal(t, r.Form == "empty", IsEmptyEarliest(commonpb.WALName_WoodPecker, b), r.Form)
	}
	assert.False(t, IsEmptyEarliest(commonpb.WALName_Kafka, nil), "only woodpecker has an empty form")
}
