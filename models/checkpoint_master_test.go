package models_test

import (
	"encoding/hex"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
)

// Golden vectors of Milvus master's WALCheckpoint, encoded by hand from the
// message master documents (design doc "Checkpoint And Snapshot
// Persistence" §7: message_id 1, time_tick 2, recovery_magic 3,
// replicate_config 4, replicate_checkpoint 5, alter_wal_state 6, int64
// term 7, uint64 control_checkpoint_time_tick 8) and commonpb.MessageID
// (id 1, WAL_name 2). No served Milvus module has master's streamingpb, so
// they are not marshalled by its generated code.
const (
	// message_id {id "rx" (kafka offset 1005), WAL_name Kafka}, time_tick
	// 449, recovery_magic 2 (RecoveryMagicRecoveryStorageV2), term 5,
	// control_checkpoint_time_tick 460.
	masterCheckpointHex = "0a060a0272781003" + "10c103" + "1802" + "3805" + "40cc03"
	// A WALConsumeCheckpoint {message_id {"rx", Kafka}, time_tick 449}: a
	// master snapshot's data_checkpoint (utility.WALConsumeCheckpoint), whose
	// field number in WALCheckpoint heron could not find; as field 9 and as
	// field 7 (in that snapshot there was no term yet).
	dataCheckpointField9Hex = "4a0b" + "0a060a027278100310c103"
	dataCheckpointField7Hex = "3a0b" + "0a060a027278100310c103"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// Issue 28 §4: master's term and control_checkpoint_time_tick are decoded
// and kept byte for byte by the id rewrite; they hold no message id.
func TestMasterCheckpointFields(t *testing.T) {
	b := unhex(t, masterCheckpointHex)
	cp, err := models.DecodeWALCheckpoint(b)
	require.NoError(t, err)
	assert.Equal(t, "rx", cp.MessageID)
	assert.Equal(t, commonpb.WALName_Kafka, cp.WAL)
	assert.Equal(t, uint64(449), cp.TimeTick)
	assert.Equal(t, int64(2), cp.RecoveryMagic)
	assert.True(t, cp.HasTerm)
	assert.Equal(t, int64(5), cp.Term)
	assert.Equal(t, uint64(460), cp.ControlCheckpointTimeTick)
	assert.Zero(t, cp.UnknownFields)
	assert.Empty(t, cp.IDFields)

	moved, err := models.RewriteWALCheckpoint(b, msgid.WoodpeckerID{})
	require.NoError(t, err)
	// message_id {id "CAAQAA==", WAL_name WoodPecker}, then fields 2-8 as they were.
	assert.Equal(t, "0a0c0a084341415141413d3d1004"+"10c103"+"1802"+"3805"+"40cc03", hex.EncodeToString(moved))
	after, err := models.DecodeWALCheckpoint(moved)
	require.NoError(t, err)
	assert.Equal(t, []any{int64(5), uint64(460), commonpb.WALName_WoodPecker}, []any{after.Term, after.ControlCheckpointTimeTick, after.WAL})
}

// Issue 28 §4: an unknown field that holds a message id (master's
// data_checkpoint at whatever number) is reported, so that a reset refuses
// rather than keep an old-WAL id byte for byte; unknown fields that hold
// none are only counted.
func TestCheckpointFieldHoldingMessageID(t *testing.T) {
	base := "0a060a0272781003" + "10c103" + "1802"
	for name, extra := range map[string]string{"field 9": dataCheckpointField9Hex, "field 7 as bytes": dataCheckpointField7Hex} {
		cp, err := models.DecodeWALCheckpoint(unhex(t, base+extra))
		require.NoError(t, err, name)
		require.Len(t, cp.IDFields, 1, name)
		assert.Equal(t, commonpb.WALName_Kafka, cp.IDFields[0].WAL, name)
		assert.Equal(t, "rx", cp.IDFields[0].Text, name)
		assert.False(t, cp.HasTerm, name)
	}
	cp, err := models.DecodeWALCheckpoint(unhex(t, base+dataCheckpointField9Hex))
	require.NoError(t, err)
	assert.Equal(t, `field 9 (a kafka id "rx")`, cp.IDFields[0].Describe())

	// A bare MessageID of woodpecker's empty earliest (WAL_name only).
	cp, err = models.DecodeWALCheckpoint(unhex(t, base+"4a021004"))
	require.NoError(t, err)
	require.Len(t, cp.IDFields, 1)
	assert.Equal(t, commonpb.WALName_WoodPecker, cp.IDFields[0].WAL)

	// Not ids: a string, a varint, a message without a MessageID's shape.
	for _, extra := range []string{"5205" + hex.EncodeToString([]byte("hello")), "5007", "5a040801" + "1003", "4a02" + "1063"} {
		cp, err := models.DecodeWALCheckpoint(unhex(t, base+extra))
		require.NoError(t, err, extra)
		assert.Empty(t, cp.IDFields, extra)
		assert.Equal(t, 1, cp.UnknownFields, extra)
	}
}
