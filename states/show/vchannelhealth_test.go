package show

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/models/wire"
	"github.com/heron-shell/heron/states/instance"
)

func channelState(now time.Time) *ChannelState {
	ts := func(ago time.Duration) uint64 { return uint64(now.Add(-ago).UnixMilli()) << 18 }
	return &ChannelState{
		Live:       map[string]int64{"p_1v0": 1, "p_1v1": 1, "p_1v2": 1},
		Registered: map[string]bool{models.VChannelMetaKey("p", "p_1v0"): true, models.VChannelMetaKey("p", "p_1v1"): true},
		Config:     map[string]string{},
		Sessions:   map[int64]instance.KV{},
		ConsumeCPs: map[string]ConsumeCP{"p": {Key: models.ConsumeCheckpointKey("p"), CP: &models.WALCheckpoint{HasMessageID: true, TimeTick: ts(time.Second)}}},
		ChannelCPs: []ChannelCPEntry{
			{Key: models.ChannelCPKey("p_1v0"), VChannel: "p_1v0", Position: &ChannelPosition{Timestamp: ts(time.Minute), WAL: "kafka"}},
			{Key: models.ChannelCPKey("p_1v1"), VChannel: "p_1v1", Position: &ChannelPosition{Timestamp: ts(20 * time.Minute), WAL: "kafka"}},
			{Key: models.ChannelCPKey("p_9v0"), VChannel: "p_9v0", Position: &ChannelPosition{Timestamp: ^uint64(0), Dropped: true}},
			{Key: models.ChannelCPKey("p_8v0"), VChannel: "p_8v0", Position: &ChannelPosition{Timestamp: ts(100 * time.Hour)}},
		},
	}
}

// Lag is against wall clock under datacoord's 900 s default: the dropped
// marker (timestamp MaxUint64) is flagged DROPPED and changes no other
// row's lag (birdwatcher #527 took it as the newest checkpoint); a
// checkpoint without a live collection is not judged, as datacoord skips it.
func TestVChannelHealthAgainstWallClock(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	r := VChannelHealth(channelState(now), now, 0, io.Discard)
	assert.Equal(t, 900.0, r.MaxLagSeconds)
	assert.Equal(t, "default", r.MaxLagFrom)
	byName := map[string]VChannelHealthRow{}
	for _, v := range r.VChannels {
		byName[v.VChannel] = v
	}
	assert.Equal(t, int64(60), byName["p_1v0"].LagSeconds)
	assert.Empty(t, byName["p_1v0"].Flags)
	assert.Equal(t, []string{FlagOverMaxLag}, byName["p_1v1"].Flags)
	assert.Equal(t, []string{FlagDropped}, byName["p_9v0"].Flags)
	assert.Equal(t, []string{FlagNoCollection}, byName["p_8v0"].Flags)
	assert.Equal(t, []string{FlagNoChannelCP, FlagNotRegistered}, byName["p_1v2"].Flags)
	assert.Equal(t, 1, r.OverMaxLag)
	assert.Equal(t, 1, r.Dropped)

	// The instance's own rule, from its etcd config source.
	st := channelState(now)
	st.Config["config/dataCoord.compaction.channelMaxCPLag"] = "3600"
	r = VChannelHealth(st, now, 0, io.Discard)
	assert.Equal(t, 0, r.OverMaxLag)
	assert.Equal(t, "config/dataCoord.compaction.channelMaxCPLag", r.MaxLagFrom)
	r = VChannelHealth(st, now, 30*time.Second, io.Discard)
	assert.Equal(t, 2, r.OverMaxLag, "--max-lag wins")
}

// A FAIL row names the repair that fixes it, whole: the frozen checkpoint
// (OVER_MAX_LAG) `repair checkpoint`, the vchannel not registered `repair
// vchannel-registration`; in JSON a field, in the table a line of its own
// after the summary, at the margin when it does not fit 80 columns indented.
func TestVChannelHealthNamesTheRepairs(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	st := channelState(now)
	long := "by-dev-rootcoord-dml_3_437744071571606912v1"
	st.Live[long] = 437744071571606912
	r := VChannelHealth(st, now, 0, io.Discard)
	byName := map[string]VChannelHealthRow{}
	for _, v := range r.VChannels {
		byName[v.VChannel] = v
	}
	assert.Empty(t, byName["p_1v0"].Commands)
	assert.Empty(t, byName["p_8v0"].Commands, "no live collection: not judged")
	assert.Equal(t, []string{"repair checkpoint --vchannel p_1v1 --set-to pchannel-cp"}, byName["p_1v1"].Commands)
	assert.Equal(t, []string{"repair vchannel-registration --vchannel p_1v2"}, byName["p_1v2"].Commands)

	j, err := json.Marshal(r.JSON())
	require.NoError(t, err)
	assert.Contains(t, string(j), `"commands":["repair checkpoint --vchannel p_1v1 --set-to pchannel-cp"]`)
	assert.Equal(t, 3, strings.Count(string(j), `"commands"`), "only the FAIL rows carry commands")

	var b bytes.Buffer
	require.NoError(t, r.Table(&b))
	assert.Contains(t, b.String(), "\ncommands (each a plan unless --run):\n  repair checkpoint --vchannel p_1v1 --set-to pchannel-cp\n"+
		"repair vchannel-registration --vchannel "+long+"\n  repair vchannel-registration --vchannel p_1v2\n")
	b.Reset()
	require.NoError(t, r.Lines(&b))
	assert.Contains(t, b.String(), `kind=command vchannel=p_1v1 command="repair checkpoint --vchannel p_1v1 --set-to pchannel-cp"`)

	// Its pchannel's consume checkpoint as old (Milvus stopped): over the
	// max lag, but not frozen behind its pchannel, and no repair moves it.
	cp := st.ConsumeCPs["p"]
	cp.CP.TimeTick = st.ChannelCPs[1].Position.Timestamp
	r = VChannelHealth(st, now, 0, io.Discard)
	for _, v := range r.VChannels {
		if v.VChannel == "p_1v1" {
			assert.Contains(t, v.Flags, FlagOverMaxLag)
			assert.Empty(t, v.Commands, "a checkpoint as old as its pchannel's names no repair")
		}
	}
}

// ReadChannelState keeps the NORMAL vchannel metas that hold no schema,
// neither in their collection_info nor under their schema/ (read a few
// keys a page: a meta and its schema keys may fall on different pages).
func TestChannelStateSchemaless(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	p := e.pch(0)
	meta := func(v string, state uint64, inline bool) []byte {
		ci := (&wire.Builder{}).Varint(1, 500)
		if inline {
			ci.Message(3, sample.Schema("books"))
		}
		return (&wire.Builder{}).String(1, v).Varint(2, state).Message(3, ci.Build()).Build()
	}
	e.put(models.VChannelMetaKey(p, p+"_500v0"), meta(p+"_500v0", 1, false)) // lost its schemas
	e.put(models.VChannelMetaKey(p, p+"_500v1"), meta(p+"_500v1", 1, true))  // schema inline (2.6.0)
	e.put(models.VChannelMetaKey(p, p+"_500v2"), meta(p+"_500v2", 2, false)) // DROPPED
	e.put(models.VChannelMetaKey(p, p+"_500v3"), meta(p+"_500v3", 1, false))
	e.put(models.VChannelSchemaPrefix(p, p+"_500v3")+"1", sample.Schema("books")) // schema timeline
	e.put(models.VChannelMetaKey(p, p+"_500v4"), []byte{0xff})
	st, err := ReadChannelState(ctxT(t), e.inst, 0)
	require.NoError(t, err)
	assert.Equal(t, map[string]VChannelRef{models.VChannelMetaKey(p, p+"_500v0"): {VChannel: p + "_500v0", Collection: 500}}, st.Schemaless,
		"the sample's vchannels have schema keys")
	assert.Contains(t, strings.Join(st.Errors, "\n"), models.VChannelMetaKey(p, p+"_500v4"))
	assert.True(t, st.Registered[models.VChannelMetaKey(p, p+"_500v4")], "a meta that does not decode is still a registration")
}

// ReadVChannelState is ReadChannelState as far as one vchannel goes, and
// holds no other vchannel's or pchannel's keys: a repair of one vchannel
// reads its own keys and the collections, not every registration and
// checkpoint of the instance.
func TestVChannelStateIsTheChannelStateOfOneVChannel(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	// a registration that does not decode is still one, and named
	v := e.sample.VChannels[0]
	p := models.PChannelOf(v)
	e.put(models.VChannelMetaKey(p, v), []byte{0xff})
	all, err := ReadChannelState(ctxT(t), e.inst, 0)
	require.NoError(t, err)
	var collections []string
	_, err = e.inst.Walk(ctxT(t), all.Revision, []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}, func(e instance.Entry) error {
		collections = append(collections, e.KV.Key)
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, collections)
	for _, v := range e.sample.VChannels {
		p := models.PChannelOf(v)
		var given []string
		vs, err := ReadVChannelState(ctxT(t), e.inst, all.Revision, v, func(e instance.Entry, top *models.CollectionChannels) {
			given = append(given, e.KV.Key)
			if want, err := models.DecodeCollectionChannels(e.Value); err == nil && !models.IsTombstone(e.Value) {
				assert.Equal(t, &want, top, e.KV.Key)
			} else {
				assert.Nil(t, top, e.KV.Key)
			}
		})
		require.NoError(t, err, v)
		assert.Equal(t, all.Live, vs.Live, v)
		assert.Equal(t, all.Collections, vs.Collections, v)
		assert.Equal(t, all.Config, vs.Config, v)
		metaKey := models.VChannelMetaKey(p, v)
		assert.Equal(t, map[string]bool{metaKey: true}, vs.Registered, v)
		assert.Equal(t, map[string]ConsumeCP{p: all.ConsumeCPs[p]}, vs.ConsumeCPs, v)
		var cps []ChannelCPEntry
		for _, cc := range all.ChannelCPs {
			if cc.VChannel == v {
				cps = append(cps, cc)
			}
		}
		assert.Equal(t, cps, vs.ChannelCPs, v)
		assert.Empty(t, vs.PChannels, v)
		assert.Empty(t, vs.Sessions, v)
		for k, kv := range vs.Keys {
			assert.Equal(t, e.sample.Layout.Meta(k), kv.Key)
			assert.Contains(t, []string{metaKey, models.ConsumeCheckpointKey(p), models.ChannelCPKey(v)}, k)
		}
		assert.Equal(t, collections, given, "every collection-info, in key order, is given to the caller")
	}
	vs, err := ReadVChannelState(ctxT(t), e.inst, all.Revision, v, func(instance.Entry, *models.CollectionChannels) {})
	require.NoError(t, err)
	assert.Equal(t, []byte{0xff}, vs.Keys[models.VChannelMetaKey(p, v)].Value)
	require.Len(t, all.Errors, 1)
	assert.Contains(t, all.Errors[0], models.VChannelMetaKey(p, v))
	assert.Equal(t, all.Errors, vs.Errors)
}

// A database-scoped collection-info hides a legacy one of its id, as
// Milvus's loadCollectionFromDefaultDb reads it and the repairs do: the
// legacy record's vchannels are not live, the collection counted once;
// without the scoped one they are.
func TestChannelStateScopedCollectionHidesLegacy(t *testing.T) {
	e := seeded(t, commonpb.WALName_Kafka)
	movies := e.sample.VChannels[2] // collection 200, legacy layout
	before, err := ReadChannelState(ctxT(t), e.inst, 0)
	require.NoError(t, err)
	require.Equal(t, int64(200), before.Live[movies])
	p := e.sample.PChannels[2]
	other := p + "_200v0"
	e.put(models.CollectionInfoKey(0, 200), sample.Collection{ID: 200, Name: "movies", VChannels: []string{other}, PChannels: []string{p},
		Starts: [][]byte{sample.ID(commonpb.WALName_Kafka, 200).Bytes()}}.Encode())
	st, err := ReadChannelState(ctxT(t), e.inst, 0)
	require.NoError(t, err)
	assert.NotContains(t, st.Live, movies)
	assert.Equal(t, int64(200), st.Live[other])
	assert.Equal(t, before.Collections, st.Collections)
	vs, err := ReadVChannelState(ctxT(t), e.inst, st.Revision, movies, func(instance.Entry, *models.CollectionChannels) {})
	require.NoError(t, err)
	assert.Equal(t, st.Live, vs.Live)
}
