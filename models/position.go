package models

import (
	"fmt"
	"math"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/wire"
)

// MsgPosition field numbers (milvus.proto.msg.MsgPosition).
const (
	posChannel   protowire.Number = 1
	posMsgID     protowire.Number = 2
	posTimestamp protowire.Number = 4
	posWALName   protowire.Number = 5
)

// MessageID field numbers (milvus.proto.common.MessageID).
const (
	midID      protowire.Number = 1
	midWALName protowire.Number = 2
)

// DecodePosition decodes a msgpb.MsgPosition.
func DecodePosition(b []byte) (*msgpb.MsgPosition, error) {
	var p msgpb.MsgPosition
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("not a MsgPosition: %w", err)
	}
	if err := positionShape.check(b); err != nil {
		return nil, err
	}
	return &p, nil
}

// IsDroppedChannelCP reports datacoord's marker of a dropped vchannel: a
// position at timestamp MaxUint64, whatever its msgID (pkg/v2@v2.6.23
// util/funcutil/checkpoint.go IsDroppedChannelCheckpoint: no legitimate
// position carries it). Resets leave it alone.
func IsDroppedChannelCP(p *msgpb.MsgPosition) bool {
	return p.GetTimestamp() == DroppedChannelTimestamp
}

// DroppedChannelTimestamp is the timestamp of the dropped-channel marker
// (funcutil.DroppedChannelCheckpointTimestamp): a position written with it
// drops its vchannel for datacoord.
const DroppedChannelTimestamp uint64 = math.MaxUint64

// RewritePosition sets msgID to id's bytes and WAL_name to its WAL in an
// encoded MsgPosition; channel, timestamp and every other field keep their bytes.
func RewritePosition(b []byte, id msgid.ID) ([]byte, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a MsgPosition: %w", err)
	}
	setPosition(m, id)
	return m.Bytes(), nil
}

// MovePosition sets msgID to id's bytes, WAL_name to its WAL and the
// timestamp to ts in an encoded MsgPosition; channel_name and every other
// field keep their bytes. A nil b is a new position of channel.
func MovePosition(b []byte, channel string, id msgid.ID, ts uint64) ([]byte, error) {
	if b == nil {
		return (&wire.Builder{}).String(posChannel, channel).Bytes(posMsgID, id.Bytes()).
			Varint(posTimestamp, ts).Varint(posWALName, uint64(id.WAL())).Build(), nil
	}
	m, err := wire.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a MsgPosition: %w", err)
	}
	setPosition(m, id)
	m.SetVarint(posTimestamp, ts)
	return m.Bytes(), nil
}

func setPosition(m *wire.Message, id msgid.ID) {
	m.SetBytes(posMsgID, id.Bytes())
	m.SetVarint(posWALName, uint64(id.WAL()))
}

// PositionIn reports whether an encoded position already holds exactly id,
// tagged with its WAL: a second reset has nothing to do there.
func PositionIn(p *msgpb.MsgPosition, id msgid.ID) bool {
	return p.GetWALName() == id.WAL() && string(p.GetMsgID()) == string(id.Bytes())
}

// DecodeMessageID decodes a commonpb.MessageID.
func DecodeMessageID(b []byte) (*commonpb.MessageID, error) {
	var id commonpb.MessageID
	if err := proto.Unmarshal(b, &id); err != nil {
		return nil, fmt.Errorf("not a MessageID: %w", err)
	}
	return &id, nil
}

// PositionWAL is the WAL a position says it is encoded for, and whether that
// was a guess: a position with WAL_name Unknown is taken to be in fallback
// (the WAL of its pchannel's consume checkpoint).
func PositionWAL(p *msgpb.MsgPosition, fallback commonpb.WALName) (wal commonpb.WALName, guessed bool) {
	if w := p.GetWALName(); w != commonpb.WALName_Unknown {
		return w, false
	}
	return fallback, true
}

// DescribeBytes decodes id bytes with the codec of wal into its human form.
func DescribeBytes(wal commonpb.WALName, b []byte) (string, error) {
	c, err := msgid.For(wal)
	if err != nil {
		return "", err
	}
	id, err := c.DecodeBytes(b)
	if err != nil {
		return "", err
	}
	return id.Human(), nil
}

// DescribeText decodes an id string with the codec of wal into its human form.
func DescribeText(wal commonpb.WALName, s string) (string, error) {
	c, err := msgid.For(wal)
	if err != nil {
		return "", err
	}
	id, err := c.DecodeText(s)
	if err != nil {
		return "", err
	}
	return id.Human(), nil
}
