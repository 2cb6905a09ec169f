package msgid

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
)

// Reading is one way a message id copied from a log line or a listing
// decodes: in which WAL, from which of its forms.
type Reading struct {
	WAL commonpb.WALName
	// Form is what the input was read as: "text" (commonpb.MessageID.id),
	// "bytes as hex", "bytes as base64" (MsgPosition.msgID) or "human"
	// (ledger:entry:partition:batch, segment:entry, an offset).
	Form string
	ID   ID
}

// ParseAny reads s in every form of every WAL (only: one WAL; Unknown for
// all) and returns each reading that decodes, in a fixed order (WAL, then
// form). An id from a log does not say its WAL or its encoding; the
// readings that decode are the candidates.
func ParseAny(s string, only commonpb.WALName) []Reading {
	s = strings.TrimSpace(s)
	var out []Reading
	// add keeps one reading an id: the text of a pulsar or woodpecker id is
	// the base64 of its bytes, so both forms read the same id.
	add := func(r Reading) {
		for i := range out {
			if out[i].WAL == r.WAL && string(out[i].ID.Bytes()) == string(r.ID.Bytes()) {
				out[i].Form += " or " + r.Form
				return
			}
		}
		out = append(out, r)
	}
	for _, name := range Names() {
		wal, _ := Parse(name)
		if only != commonpb.WALName_Unknown && wal != only {
			continue
		}
		c := codecs[wal]
		if id, err := c.DecodeText(s); err == nil {
			add(Reading{WAL: wal, Form: "text", ID: id})
		}
		if b, err := hex.DecodeString(s); err == nil && len(b) > 0 {
			if id, err := c.DecodeBytes(b); err == nil {
				add(Reading{WAL: wal, Form: "bytes as hex", ID: id})
			}
		}
		if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) > 0 {
			if id, err := c.DecodeBytes(b); err == nil {
				add(Reading{WAL: wal, Form: "bytes as base64", ID: id})
			}
		}
		if id, ok := parseHuman(wal, s); ok {
			add(Reading{WAL: wal, Form: "human", ID: id})
		}
	}
	return out
}

// parseHuman reads the Human form of wal's ids.
func parseHuman(wal commonpb.WALName, s string) (ID, bool) {
	parts := strings.Split(s, ":")
	ints := make([]int64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, false
		}
		ints[i] = n
	}
	switch {
	case wal == commonpb.WALName_Pulsar && len(ints) == 4:
		return PulsarID{Ledger: ints[0], Entry: ints[1], Partition: int32(ints[2]), Batch: int32(ints[3])}, true
	case wal == commonpb.WALName_WoodPecker && len(ints) == 2:
		return WoodpeckerID{Segment: ints[0], Entry: ints[1]}, true
	case (wal == commonpb.WALName_Kafka || wal == commonpb.WALName_RocksMQ) && len(ints) == 1 && ints[0] >= 0:
		return OffsetID{Of: wal, Offset: ints[0]}, true
	}
	return nil, false
}
