package msgid

import (
	"encoding/hex"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
)

// Issue 27 item 6: an id copied from a log line decodes in every WAL and
// form it can be; each reading gives the same id's other forms.
func TestParseAny(t *testing.T) {
	wp := WoodpeckerID{Segment: 1, Entry: 41}
	found := func(rs []Reading, wal commonpb.WALName, form, human string) bool {
		for _, r := range rs {
			if r.WAL == wal && r.Form == form && r.ID.Human() == human {
				return true
			}
		}
		return false
	}
	rs := ParseAny(hex.EncodeToString(wp.Bytes()), commonpb.WALName_Unknown)
	if !found(rs, commonpb.WALName_WoodPecker, "bytes as hex", "1:41") {
		t.Fatalf("hex woodpecker id: %+v", rs)
	}
	rs = ParseAny(wp.Text(), commonpb.WALName_WoodPecker)
	if len(rs) != 1 || !found(rs, commonpb.WALName_WoodPecker, "text or bytes as base64", "1:41") {
		t.Fatalf("text woodpecker id: %+v", rs)
	}
	for _, r := range rs {
		if r.WAL != commonpb.WALName_WoodPecker {
			t.Fatalf("--wal woodpecker read as %v", r.WAL)
		}
	}
	rs = ParseAny("150:55:0:-1", commonpb.WALName_Unknown)
	if !found(rs, commonpb.WALName_Pulsar, "human", "150:55:0:-1") || len(rs) != 1 {
		t.Fatalf("pulsar human id: %+v", rs)
	}
	if rs := ParseAny("18", commonpb.WALName_Kafka); !found(rs, commonpb.WALName_Kafka, "human", "18") {
		t.Fatalf("kafka offset: %+v", rs)
	}
	if rs := ParseAny("not an id!", commonpb.WALName_Unknown); len(rs) != 0 {
		t.Fatalf("garbage decodes: %+v", rs)
	}
}
