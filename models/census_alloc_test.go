package models

import (
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"

	"github.com/heron-shell/heron/models/msgid"
)

// Counting a position allocates nothing once its bucket exists: a reset
// counts every position of every segment (two per segment, a million
// segments at scale), most of them untagged pulsar ids that the census
// decodes to tell a decodable id from an interrupted reset's.
func TestCensusAddAllocatesNothing(t *testing.T) {
	const pc = "by-dev-rootcoord-dml_0"
	c := NewWALCensus(map[string]commonpb.WALName{pc: commonpb.WALName_Pulsar, "none-wal": commonpb.WALName_Unknown})
	pulsar := msgid.PulsarID{Ledger: 451234, Entry: 77, Partition: 0, Batch: -1}.Bytes()
	woodpecker := msgid.WoodpeckerID{Segment: 3, Entry: 12}.Bytes()
	add := func() {
		c.Add(pc, commonpb.WALName_Unknown, pulsar)
		c.Add(pc, commonpb.WALName_Unknown, []byte{0x08})
		c.Add(pc, commonpb.WALName_WoodPecker, woodpecker)
		c.Add("none-wal", commonpb.WALName_Unknown, pulsar)
	}
	add() // AllocsPerRun calls it once more to warm up, then 1000 times
	assert.Zero(t, testing.AllocsPerRun(1000, add))
	got := c.PChannel(pc).Positions
	assert.Equal(t, map[string]int64{"pulsar": 1002, "undecodable as pulsar": 1002, "woodpecker": 1002}, got)
	assert.Equal(t, map[string]int64{"unknown": 1002}, c.PChannel("none-wal").Positions)
}
