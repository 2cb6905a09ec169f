package models

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// etcdpb.CollectionInfo field numbers.
const (
	collID             protowire.Number = 1
	collSchema         protowire.Number = 2
	collCreateTime     protowire.Number = 3
	collVChannels      protowire.Number = 7
	collPChannels      protowire.Number = 8
	collShardsNum      protowire.Number = 10
	collStartPositions protowire.Number = 11
	collState          protowire.Number = 13
	collDBID           protowire.Number = 15
	schemaName         protowire.Number = 1
	keyDataKey         protowire.Number = 1
	keyDataData        protowire.Number = 2
)

// CollectionTombstone is the value rootcoord writes in place of a dropped
// collection's info: not protobuf, and never rewritten.
var CollectionTombstone = []byte{0xE2, 0x9B, 0xBC}

// IsTombstone reports whether a collection-info value is a tombstone.
func IsTombstone(v []byte) bool { return bytes.Equal(v, CollectionTombstone) }

// Collection state names (etcdpb.CollectionState).
var collectionStates = map[uint64]string{0: "Created", 1: "Creating", 2: "Dropping", 3: "Dropped"}

// StartPosition is one start_positions pair: key is the pchannel (some writers
// use the vchannel), data is a message id in bytes encoding.
type StartPosition struct {
	Key  string
	Data []byte
}

// CollectionInfo is the decoded view of etcdpb.CollectionInfo.
type CollectionInfo struct {
	ID             int64
	DBID           int64
	Name           string
	CreateTime     uint64
	VChannels      []string
	PChannels      []string
	ShardsNum      int32
	StartPositions []StartPosition
	State          string
}

// Live reports a collection in state Created: datacoord's max-lag rule and
// the streaming node's vchannel registration concern only these.
func (c *CollectionInfo) Live() bool { return c.State == collectionStates[0] }

// CollectionChannels is what an etcdpb.CollectionInfo says of its id and
// vchannels, read from its top level alone: a reader of every collection
// that needs only these (the channel state of repair, check and show; a
// repair picking the few collections it decodes whole) skips the schema
// and the start positions, most of each value.
type CollectionChannels struct {
	ID        int64
	Live      bool // state Created (CollectionInfo.Live)
	VChannels []string
}

// DecodeCollectionChannels decodes a collection-info value's id, state and
// vchannels (not a tombstone).
func DecodeCollectionChannels(b []byte) (CollectionChannels, error) {
	var c CollectionChannels
	var state uint64
	err := wire.Each(b, func(f wire.Field) error {
		switch f.Num {
		case collID:
			c.ID = int64(wire.VarintOf(f))
		case collState:
			state = wire.VarintOf(f)
		case collVChannels:
			c.VChannels = append(c.VChannels, string(f.Payload))
		}
		return nil
	})
	if err != nil {
		return CollectionChannels{}, fmt.Errorf("not a CollectionInfo: %w", err)
	}
	c.Live = stateName(collectionStates, state) == collectionStates[0]
	return c, nil
}

// ScopedCollections are the ids that have a database-scoped collection-info
// (root-coord/database/collection-info/{db}/{id}): of such an id rootcoord's
// catalog reads that record, not the legacy root-coord/collection/{id}
// (loadCollectionFromDefaultDb), so a legacy record whose id is here is not
// the collection Milvus has, whichever of the two a walk meets first.
type ScopedCollections map[int64]bool

// Hides reports whether the legacy collection-info of id is hidden.
func (s ScopedCollections) Hides(id int64) bool { return s[id] }

// DecodeCollectionInfo decodes a collection-info value (not a tombstone).
func DecodeCollectionInfo(b []byte) (*CollectionInfo, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a CollectionInfo: %w", err)
	}
	c := &CollectionInfo{
		ID:         int64(m.Varint(collID)),
		DBID:       int64(m.Varint(collDBID)),
		CreateTime: m.Varint(collCreateTime),
		ShardsNum:  int32(m.Varint(collShardsNum)),
		State:      stateName(collectionStates, m.Varint(collState)),
	}
	schema, err := m.Sub(collSchema)
	if err != nil {
		return nil, fmt.Errorf("CollectionInfo.schema: %w", err)
	}
	if schema != nil {
		c.Name = schema.String(schemaName)
	}
	for _, f := range m.All(collVChannels) {
		c.VChannels = append(c.VChannels, string(f.Payload))
	}
	for _, f := range m.All(collPChannels) {
		c.PChannels = append(c.PChannels, string(f.Payload))
	}
	for _, f := range m.All(collStartPositions) {
		kd, err := wire.Parse(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("CollectionInfo.start_positions: %w", err)
		}
		c.StartPositions = append(c.StartPositions, StartPosition{Key: kd.String(keyDataKey), Data: kd.BytesOf(keyDataData)})
	}
	return c, nil
}

// StartPositionOf returns the start position of a vchannel: the pair keyed by
// its pchannel, else by the vchannel itself.
func (c *CollectionInfo) StartPositionOf(vchannel string) (StartPosition, bool) {
	p := PChannelOf(vchannel)
	for _, sp := range c.StartPositions {
		if sp.Key == p {
			return sp, true
		}
	}
	for _, sp := range c.StartPositions {
		if sp.Key == vchannel {
			return sp, true
		}
	}
	return StartPosition{}, false
}

// EditStartPositions sets the data of every start_positions pair whose key
// is in scope (a pchannel in scope, or a vchannel of one) to id's bytes. It
// returns the new value, how many pairs changed (every other byte stays) and
// every start_positions pair as read (Data aliases b): a reset decides a
// collection by them alone, so one parse of the value's top level and of
// its pairs serves both (DecodeCollectionInfo parses the schema and copies
// the channel names too). With no pair changed, the new value is b.
func EditStartPositions(b []byte, inScope func(pchannel string) bool, id msgid.ID) (nv []byte, changed int, read []StartPosition, err error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("not a CollectionInfo: %w", err)
	}
	err = m.EditMessages(collStartPositions, func(kd *wire.Message) error {
		key := kd.String(keyDataKey)
		data := kd.BytesOf(keyDataData)
		read = append(read, StartPosition{Key: key, Data: data})
		if !inScope(key) && !inScope(PChannelOf(key)) {
			return nil
		}
		if bytes.Equal(data, id.Bytes()) {
			return nil
		}
		kd.SetBytes(keyDataData, id.Bytes())
		changed++
		return nil
	})
	if err != nil {
		return nil, 0, nil, fmt.Errorf("CollectionInfo: %w", err)
	}
	if changed == 0 {
		return b, 0, read, nil
	}
	return m.Bytes(), changed, read, nil
}

func stateName(names map[uint64]string, v uint64) string {
	if n, ok := names[v]; ok {
		return n
	}
	return fmt.Sprintf("State(%d)", v)
}
