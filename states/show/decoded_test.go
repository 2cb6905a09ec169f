package show

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"CollectionID": "collection_id", "DMLPosition": "dml_position", "msgID": "msg_id",
		"ID": "id", "channel_name": "channel_name", "HasMessageID": "has_message_id", "WAL": "wal",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// Issue 16 §4: --decode is a document like the others (snake_case, enums
// by name, ids in human form) and the table never cuts a key.
func TestEtcdKVDecodeDocument(t *testing.T) {
	e := seeded(t, commonpb.WALName_Pulsar)
	out, errs, code, _ := e.run("show etcd-kv --prefix meta/datacoord-meta/s/ --decode --format json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Keys []struct {
			Decoded map[string]any `json:"decoded"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Keys) == 0 {
		t.Fatalf("%v\n%s", err, out)
	}
	d := doc.Keys[0].Decoded
	if _, ok := d["collection_id"]; !ok {
		t.Errorf("decoded is not snake_case: %v", d)
	}
	if d["state"] != "Flushed" || d["level"] != "L1" {
		t.Errorf("enums not by name: state %v level %v", d["state"], d["level"])
	}
	pos, _ := d["dml_position"].(map[string]any)
	if pos["msg_id_human"] == nil || pos["wal"] != "pulsar" {
		t.Errorf("position without its human id: %v", pos)
	}
	for _, camel := range []string{`"CollectionID"`, `"msgID"`, `"DMLPosition"`} {
		if strings.Contains(out, camel) {
			t.Errorf("document holds %s", camel)
		}
	}

	table, _, _, _ := e.run("show etcd-kv --prefix meta/ --decode --limit 0")
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "meta/") && strings.Contains(strings.Fields(l)[0], "...") {
			t.Errorf("a key is cut: %s", l)
		}
	}
	if strings.Contains(strings.SplitN(table, "\n", 2)[0], "VALUE") {
		t.Errorf("--decode keeps the raw value column: %s", strings.SplitN(table, "\n", 2)[0])
	}
}
