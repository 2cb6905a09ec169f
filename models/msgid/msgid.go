// Package msgid encodes and decodes the message ids of each WAL Milvus supports,
// in both encodings Milvus persists: the bytes of MsgPosition.msgID and the
// string of commonpb.MessageID.id. The byte layouts match Milvus's own code;
// tests compare them with golden vectors produced by Milvus's libraries.
package msgid

import (
	"fmt"
	"sort"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
)

// ID is a decoded message id of one WAL.
type ID interface {
	// WAL is the WAL the id belongs to.
	WAL() commonpb.WALName
	// Bytes is the encoding stored in MsgPosition.msgID and KeyDataPair.data.
	Bytes() []byte
	// Text is the encoding stored in commonpb.MessageID.id.
	Text() string
	// Human is a readable form: ledger:entry:partition:batch, offset, or segment:entry.
	Human() string
	// IsEarliest reports whether the id is the WAL's earliest id on a fresh topic.
	IsEarliest() bool
}

// Codec knows one WAL's message-id encodings.
type Codec interface {
	WAL() commonpb.WALName
	// Earliest is the id a reset writes: the first message of a fresh topic.
	Earliest() ID
	DecodeBytes(b []byte) (ID, error)
	DecodeText(s string) (ID, error)
}

var codecs = map[commonpb.WALName]Codec{
	commonpb.WALName_Pulsar:     pulsarCodec{},
	commonpb.WALName_Kafka:      offsetCodec{wal: commonpb.WALName_Kafka},
	commonpb.WALName_RocksMQ:    offsetCodec{wal: commonpb.WALName_RocksMQ},
	commonpb.WALName_WoodPecker: woodpeckerCodec{},
}

// names are the WAL names operators type, as in Milvus's mq.type.
var names = map[string]commonpb.WALName{
	"pulsar":     commonpb.WALName_Pulsar,
	"kafka":      commonpb.WALName_Kafka,
	"rocksmq":    commonpb.WALName_RocksMQ,
	"woodpecker": commonpb.WALName_WoodPecker,
}

// For returns the codec of a WAL, or an error for Unknown and unsupported WALs.
func For(wal commonpb.WALName) (Codec, error) {
	c, ok := codecs[wal]
	if !ok {
		return nil, fmt.Errorf("no message-id codec for WAL %s", Name(wal))
	}
	return c, nil
}

// Parse maps an operator's WAL name (pulsar, kafka, rocksmq, woodpecker) to its WALName.
func Parse(name string) (commonpb.WALName, error) {
	w, ok := names[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return commonpb.WALName_Unknown, fmt.Errorf("unknown WAL %q: valid ones are %s", name, strings.Join(Names(), ", "))
	}
	return w, nil
}

// Names lists the WAL names Parse accepts, sorted.
func Names() []string {
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Name is the lower-case operator name of a WAL ("unknown" for Unknown).
// A switch, not a walk over names: the census names a bucket per position.
func Name(wal commonpb.WALName) string {
	switch wal {
	case commonpb.WALName_Pulsar:
		return "pulsar"
	case commonpb.WALName_Kafka:
		return "kafka"
	case commonpb.WALName_RocksMQ:
		return "rocksmq"
	case commonpb.WALName_WoodPecker:
		return "woodpecker"
	case commonpb.WALName_Unknown:
		return "unknown"
	}
	return strings.ToLower(wal.String())
}

// Supported reports whether heron has a codec for wal (For returns one).
func Supported(wal commonpb.WALName) bool {
	_, ok := codecs[wal]
	return ok
}
