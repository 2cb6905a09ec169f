package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/apache/pulsar-client-go/pulsar"
	rawkafka "github.com/confluentinc/confluent-kafka-go/kafka"
	wplog "github.com/zilliztech/woodpecker/woodpecker/log"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	mqkafka "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/kafka"
	mqpulsar "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/pulsar"
	mqwp "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/wp"
	"github.com/milvus-io/milvus/pkg/v2/streaming/util/message"
	walkafka "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/kafka"
	walpulsar "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/pulsar"
	walwp "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/wp"
)

type msgIDVector struct {
	WAL      string `json:"wal"`
	Name     string `json:"name"`
	Earliest bool   `json:"earliest"`
	// MilvusEarliest marks the id adaptor.MustGetEarliestMessageIDFromMQType
	// returns for the WAL: what Milvus's online switch writes as earliest.
	MilvusEarliest bool             `json:"milvus_earliest,omitempty"`
	Fields         map[string]int64 `json:"fields"`
	BytesHex       string           `json:"bytes_hex"`
	String         string           `json:"string"`
	ProducedBy     string           `json:"produced_by"`
	Note           string           `json:"note,omitempty"`
}

const (
	pkgMQ  = "github.com/milvus-io/milvus/pkg/v2/mq/msgstream/mqwrapper/"
	pkgWAL = "github.com/milvus-io/milvus/pkg/v2/streaming/walimpls/impls/"
)

func msgIDVectors() []msgIDVector {
	var v []msgIDVector
	v = append(v, pulsarVectors()...)
	v = append(v, kafkaVectors()...)
	v = append(v, rocksmqVectors()...)
	v = append(v, woodpeckerVectors()...)
	for i := range v {
		v[i].MilvusEarliest = milvusEarliest[v[i].WAL] == v[i].Name
	}
	return v
}

// milvusEarliest names, per WAL, the vector holding what
// adaptor.MustGetEarliestMessageIDFromMQType (pkg/v2@v2.6.23
// streaming/util/message/adaptor/message_id.go) returns: pulsar
// EarliestMessageID(), rocksmq client.EarliestMessageID() = -1, kafka
// OffsetBeginning = -2, woodpecker EarliestLogMessageID(). The adaptor package
// imports the rocksmq server (cgo librocksdb) and does not build here, so
// the vectors come from the same expressions its branches evaluate.
var milvusEarliest = map[string]string{
	"pulsar":     "earliest",
	"rocksmq":    "earliest_message_id_negative",
	"kafka":      "offset_beginning_negative",
	"woodpecker": "earliest",
}

// ---- pulsar ----

// pulsarIDWithBatchSize returns a pulsar-client-go MessageID whose batchSize is
// set. No public pulsar constructor takes a batch size (NewMessageID passes 0),
// so the id is decoded by pulsar.DeserializeMessageID from bytes marshaled with
// pulsar's own generated MessageIdData type, looked up in the protobuf registry
// (the type lives in pulsar's internal package and cannot be imported).
func pulsarIDWithBatchSize(ledger, entry int64, partition, batch, batchSize int32) pulsar.MessageID {
	mt, err := protoregistry.GlobalTypes.FindMessageByName("pulsar.proto.MessageIdData")
	must(err)
	m := mt.New()
	fd := m.Descriptor().Fields()
	m.Set(fd.ByName("ledgerId"), protoreflect.ValueOfUint64(uint64(ledger)))
	m.Set(fd.ByName("entryId"), protoreflect.ValueOfUint64(uint64(entry)))
	m.Set(fd.ByName("partition"), protoreflect.ValueOfInt32(partition))
	m.Set(fd.ByName("batch_index"), protoreflect.ValueOfInt32(batch))
	m.Set(fd.ByName("batch_size"), protoreflect.ValueOfInt32(batchSize))
	b, err := proto.Marshal(m.Interface())
	must(err)
	id, err := pulsar.DeserializeMessageID(b)
	must(err)
	check(id.BatchSize() == batchSize, "pulsar batch size %d", id.BatchSize())
	return id
}

func pulsarVector(name string, earliest bool, id pulsar.MessageID, how, note string) msgIDVector {
	// (i) bytes: what datacoord/rootcoord/querycoord put in MsgPosition.msgID.
	b := mqpulsar.NewPulsarID(id).Serialize()
	// (ii) string: what the streaming code puts in commonpb.MessageID.id.
	sid := walpulsar.NewPulsarID(id)
	s := sid.Marshal()
	pb := sid.IntoProto()
	check(pb.GetId() == s && pb.GetWALName() == commonpb.WALName_Pulsar, "pulsar IntoProto")

	// Read both encodings back with Milvus's decoders.
	back, err := walpulsar.UnmarshalMessageID(s)
	must(err)
	pid := back.(interface{ PulsarID() pulsar.MessageID }).PulsarID()
	check(bytes.Equal(pid.Serialize(), b), "pulsar string/bytes disagree for %s", name)
	fromBytes, err := mqpulsar.DeserializePulsarMsgID(b)
	must(err)
	check(fromBytes.LedgerID() == id.LedgerID() && fromBytes.EntryID() == id.EntryID() &&
		fromBytes.PartitionIdx() == id.PartitionIdx() && fromBytes.BatchIdx() == id.BatchIdx() &&
		fromBytes.BatchSize() == id.BatchSize(), "pulsar round trip %s", name)

	return msgIDVector{
		WAL: "pulsar", Name: name, Earliest: earliest,
		Fields: map[string]int64{
			"ledger":     fromBytes.LedgerID(),
			"entry":      fromBytes.EntryID(),
			"partition":  int64(fromBytes.PartitionIdx()),
			"batch":      int64(fromBytes.BatchIdx()),
			"batch_size": int64(fromBytes.BatchSize()),
		},
		BytesHex: hex.EncodeToString(b),
		String:   s,
		ProducedBy: "id: " + how +
			"; bytes: " + pkgMQ + "pulsar.NewPulsarID(id).Serialize" +
			"; string: " + pkgWAL + "pulsar.NewPulsarID(id).Marshal",
		Note: note,
	}
}

func pulsarVectors() []msgIDVector {
	n := "github.com/apache/pulsar-client-go/pulsar.NewMessageID(ledger, entry, batch, partition)"
	bs := "pulsar.DeserializeMessageID(pulsar's MessageIdData with batch_size set)"
	return []msgIDVector{
		pulsarVector("earliest", true, pulsar.EarliestMessageID(),
			"github.com/apache/pulsar-client-go/pulsar.EarliestMessageID()",
			"what Milvus's pulsar walimpl reads from for DeliverPolicyAll and what MustGetEarliestMessageIDFromMQType returns"),
		pulsarVector("latest", false, pulsar.LatestMessageID(),
			"github.com/apache/pulsar-client-go/pulsar.LatestMessageID()",
			"a position that does not exist: never write it"),
		pulsarVector("l100_e5_p0_bm1", false, pulsar.NewMessageID(100, 5, -1, 0), n, ""),
		pulsarVector("l123456789_e42_p3_b7_bs10", false, pulsarIDWithBatchSize(123456789, 42, 3, 7, 10), bs, ""),
		pulsarVector("l123456789_e42_p3_b7", false, pulsar.NewMessageID(123456789, 42, 7, 3), n, ""),
		pulsarVector("l0_e0_p0_b0", false, pulsar.NewMessageID(0, 0, 0, 0), n, ""),
		pulsarVector("l7_e3_pm1_bm1", false, pulsar.NewMessageID(7, 3, -1, -1), n, "partition -1: a non-partitioned topic"),
		pulsarVector("l4294967296_e0_p0_bm1", false, pulsar.NewMessageID(1<<32, 0, -1, 0), n, "ledger 2^32"),
		pulsarVector("l1099511627783_e65536_p15_b0", false, pulsar.NewMessageID(1<<40+7, 1<<16, 0, 15), n, "ledger 2^40+7"),
		pulsarVector("l9007199254740993_e2147483648_p1_b2147483647", false,
			pulsar.NewMessageID(1<<53+1, 1<<31, math.MaxInt32, 1), n, "ledger 2^53+1: not exact as a float64"),
		pulsarVector("lmaxint64_emaxint64_p0_b0", false, pulsar.NewMessageID(math.MaxInt64, math.MaxInt64, 0, 0), n, ""),
	}
}

// ---- kafka ----

func kafkaVector(name string, earliest bool, offset int64, how, note string) msgIDVector {
	b := mqkafka.NewKafkaID(offset).Serialize()
	sid := walkafka.NewKafkaID(rawkafka.Offset(offset))
	s := sid.Marshal()
	pb := sid.IntoProto()
	check(pb.GetId() == s && pb.GetWALName() == commonpb.WALName_Kafka, "kafka IntoProto")

	back, err := walkafka.UnmarshalMessageID(s)
	must(err)
	check(int64(back.(interface{ KafkaID() rawkafka.Offset }).KafkaID()) == offset, "kafka string round trip %s", name)
	check(mqkafka.DeserializeKafkaID(b) == offset, "kafka bytes round trip %s", name)
	return msgIDVector{
		WAL: "kafka", Name: name, Earliest: earliest,
		Fields:   map[string]int64{"offset": offset},
		BytesHex: hex.EncodeToString(b),
		String:   s,
		ProducedBy: "id: " + how +
			"; bytes: " + pkgMQ + "kafka.NewKafkaID(offset).Serialize" +
			"; string: " + pkgWAL + "kafka.NewKafkaID(kafka.Offset(offset)).Marshal",
		Note: note,
	}
}

func kafkaVectors() []msgIDVector {
	lit := "int64 literal"
	return []msgIDVector{
		kafkaVector("offset_0", true, 0, lit,
			"earliest offset of a fresh topic; what heron writes"),
		kafkaVector("offset_beginning_negative", false, int64(rawkafka.OffsetBeginning),
			"github.com/confluentinc/confluent-kafka-go/kafka.OffsetBeginning",
			"-2: Milvus's own earliest (kafka walimpl DeliverPolicyAll seek, adaptor.MustGetEarliestMessageIDFromMQType used by the online WAL switch). "+
				"pkg v2.6.0..v2.6.16 decode the string with ParseUint and fail on it; v2.6.19+ use ParseInt"),
		kafkaVector("offset_end_negative", false, int64(rawkafka.OffsetEnd),
			"github.com/confluentinc/confluent-kafka-go/kafka.OffsetEnd", "-1: a sentinel, never write it"),
		kafkaVector("offset_1", false, 1, lit, ""),
		kafkaVector("offset_35", false, 35, lit, "last one-digit base-36 value"),
		kafkaVector("offset_36", false, 36, lit, ""),
		kafkaVector("offset_1005", false, 1005, lit, ""),
		kafkaVector("offset_2147483648", false, 1<<31, lit, ""),
		kafkaVector("offset_1099511627783", false, 1<<40+7, lit, "2^40+7"),
		kafkaVector("offset_maxint64", false, math.MaxInt64, lit, ""),
	}
}

// ---- rocksmq ----

// Milvus's rocksmq packages (mq/mqimpl/rocksmq/server, streaming/walimpls/impls/rmq)
// need librocksdb via cgo and do not build here. Their encoders have the same
// bodies as kafka's: server.SerializeRmqID is kafka.SerializeKafkaID
// (8 bytes, common.Endian = little endian), and rmqID.Marshal/IntoProto call
// message.EncodeInt64 exactly like kafkaID.Marshal. So the bytes come from
// mqwrapper/kafka.SerializeKafkaID and the string from message.EncodeInt64.
func rocksmqVector(name string, earliest bool, id int64, how, note string) msgIDVector {
	b := mqkafka.SerializeKafkaID(id)
	s := message.EncodeInt64(id)
	back, err := message.DecodeInt64(s)
	must(err)
	check(back == id, "rmq string round trip %s", name)
	check(mqkafka.DeserializeKafkaID(b) == id, "rmq bytes round trip %s", name)
	return msgIDVector{
		WAL: "rocksmq", Name: name, Earliest: earliest,
		Fields:   map[string]int64{"offset": id},
		BytesHex: hex.EncodeToString(b),
		String:   s,
		ProducedBy: "id: " + how +
			"; bytes: " + pkgMQ + "kafka.SerializeKafkaID (same body as mq/mqimpl/rocksmq/server.SerializeRmqID)" +
			"; string: github.com/milvus-io/milvus/pkg/v2/streaming/util/message.EncodeInt64 (what impls/rmq rmqID.Marshal calls)",
		Note: note,
	}
}

func rocksmqVectors() []msgIDVector {
	lit := "int64 literal"
	return []msgIDVector{
		rocksmqVector("id_0", true, 0, lit, "earliest id of a fresh topic; what heron writes"),
		rocksmqVector("earliest_message_id_negative", false, -1,
			"-1, the value returned by mq/mqimpl/rocksmq/client.EarliestMessageID() (read from source, package needs cgo rocksdb)",
			"Milvus's own rocksmq earliest (adaptor.MustGetEarliestMessageIDFromMQType). "+
				"pkg v2.6.0..v2.6.16 decode the string with ParseUint and fail on it; v2.6.19+ use ParseInt"),
		rocksmqVector("id_1", false, 1, lit, ""),
		rocksmqVector("id_1005", false, 1005, lit, ""),
		rocksmqVector("id_1099511627783", false, 1<<40+7, lit, "2^40+7"),
		rocksmqVector("id_449012345678901234", false, 449012345678901234, lit, "a TSO-sized id"),
		rocksmqVector("id_maxint64", false, math.MaxInt64, lit, ""),
	}
}

// ---- woodpecker ----

func woodpeckerVector(name string, earliest bool, id wplog.LogMessageId, how, note string) msgIDVector {
	b := mqwp.NewWoodpeckerID(&id).Serialize()
	sid := walwp.NewWpID(&id)
	s := sid.Marshal()
	pb := sid.IntoProto()
	check(pb.GetId() == s && pb.GetWALName() == commonpb.WALName_WoodPecker, "wp IntoProto")
	check(base64.StdEncoding.EncodeToString(b) == s, "wp string is not base64 of bytes for %s", name)

	back, err := walwp.UnmarshalMessageID(s)
	must(err)
	w := back.(interface{ WoodpeckerID() *wplog.LogMessageId }).WoodpeckerID()
	check(w.SegmentId == id.SegmentId && w.EntryId == id.EntryId, "wp string round trip %s", name)
	fb, err := mqwp.DeserializeWoodpeckerMsgID(b)
	must(err)
	check(fb.SegmentId == id.SegmentId && fb.EntryId == id.EntryId, "wp bytes round trip %s", name)
	return msgIDVector{
		WAL: "woodpecker", Name: name, Earliest: earliest,
		Fields:   map[string]int64{"segment": id.SegmentId, "entry": id.EntryId},
		BytesHex: hex.EncodeToString(b),
		String:   s,
		ProducedBy: "id: " + how +
			"; bytes: " + pkgMQ + "wp.NewWoodpeckerID(&id).Serialize (woodpecker log.LogMessageId.Serialize)" +
			"; string: " + pkgWAL + "wp.NewWpID(&id).Marshal",
		Note: note,
	}
}

func woodpeckerVectors() []msgIDVector {
	lit := "github.com/zilliztech/woodpecker/woodpecker/log.LogMessageId{SegmentId, EntryId}"
	wp := func(seg, entry int64) wplog.LogMessageId { return wplog.LogMessageId{SegmentId: seg, EntryId: entry} }
	return []msgIDVector{
		woodpeckerVector("earliest", true, wplog.EarliestLogMessageID(),
			"github.com/zilliztech/woodpecker/woodpecker/log.EarliestLogMessageID()",
			"{0,0}: zero bytes and the empty string; only WAL_name tells it from an unset id"),
		woodpeckerVector("latest", false, wplog.LatestLogMessageID(),
			"github.com/zilliztech/woodpecker/woodpecker/log.LatestLogMessageID()", "a sentinel, never write it"),
		woodpeckerVector("s3_e12", false, wp(3, 12), lit, ""),
		woodpeckerVector("s0_e1", false, wp(0, 1), lit, ""),
		woodpeckerVector("s1_e0", false, wp(1, 0), lit, ""),
		woodpeckerVector("s3_e7", false, wp(3, 7), lit, "also decodes as a valid pulsar MessageIdData"),
		woodpeckerVector("s123456_e789", false, wp(123456, 789), lit, ""),
		woodpeckerVector("s1099511627783_e2147483648", false, wp(1<<40+7, 1<<31), lit, ""),
		woodpeckerVector("sm1_em1", false, wp(-1, -1), lit, "what the pulsar earliest bytes decode to as woodpecker"),
	}
}

// docClaims checks, with the same Milvus/pulsar/woodpecker decoders, the claims
// of shared/milvus-metadata.md section 2 "The bytes do not tell the WAL". It
// prints one line per claim and never changes the output files.
func docClaims() {
	report := func(claim string, ok bool) {
		state := "ok"
		if !ok {
			state = "DOES NOT HOLD"
		}
		fmt.Printf("claim %-62s %s\n", claim+":", state)
	}
	wp37 := mqwp.NewWoodpeckerID(&wplog.LogMessageId{SegmentId: 3, EntryId: 7}).Serialize()
	p, err := mqpulsar.DeserializePulsarMsgID(wp37)
	report("woodpecker {3,7} decodes as a valid pulsar id", err == nil && p.LedgerID() == 3 && p.EntryID() == 7)

	pe := mqpulsar.NewPulsarID(pulsar.EarliestMessageID()).Serialize()
	w, err := mqwp.DeserializeWoodpeckerMsgID(pe)
	report("pulsar earliest decodes as woodpecker {-1,-1}", err == nil && w.SegmentId == -1 && w.EntryId == -1)

	report("kafka decoder reads the first 8 bytes of a longer input",
		mqkafka.DeserializeKafkaID(pe) == int64(binary.LittleEndian.Uint64(pe[:8])))
	panics := func(b []byte) (p bool) {
		defer func() { p = recover() != nil }()
		mqkafka.DeserializeKafkaID(b)
		return false
	}
	report("kafka decoder panics on input shorter than 8 bytes", panics(wp37) && panics(nil))

	_, err = walkafka.UnmarshalMessageID(message.EncodeInt64(-2))
	report("v2.6.23 kafka walimpl decodes the string of offset -2", err == nil)
}
