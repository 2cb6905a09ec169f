// Command golden writes golden vectors for heron's tests, produced by Milvus's,
// pulsar-client-go's and woodpecker's own code (never computed by hand).
//
//	cd tests/golden && go run .
//
// It writes testdata/msgid.json (message-id encodings per WAL) and
// testdata/protos.json (protobuf values marshaled with Milvus's generated
// types). The output is deterministic: run it twice and diff.
// See README.md for the module versions and which function produced what.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func main() {
	out := "testdata"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fatal(err)
	}

	docClaims()
	ids := msgIDVectors()
	sort.SliceStable(ids, func(i, j int) bool {
		if ids[i].WAL != ids[j].WAL {
			return ids[i].WAL < ids[j].WAL
		}
		return ids[i].Name < ids[j].Name
	})
	writeJSON(filepath.Join(out, "msgid.json"), ids)

	protos := protoVectors()
	sort.SliceStable(protos, func(i, j int) bool {
		if protos[i].Type != protos[j].Type {
			return protos[i].Type < protos[j].Type
		}
		return protos[i].Name < protos[j].Name
	})
	seen := map[string]bool{}
	for _, p := range protos {
		k := p.Type + "/" + p.Name
		if seen[k] {
			fatal(fmt.Errorf("duplicate proto vector %s", k))
		}
		seen[k] = true
	}
	writeJSON(filepath.Join(out, "protos.json"), protos)
	writeShowProtos(out)
	writeJSON(filepath.Join(out, "wp_earliest.json"), wpEarliestReadings())
	fmt.Printf("wrote %d message-id vectors and %d proto vectors to %s\n", len(ids), len(protos), out)
}

func writeJSON(path string, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		fatal(err)
	}
}

// marshal is proto.Marshal with deterministic map ordering. Milvus itself calls
// plain proto.Marshal; the bytes are identical except for the order of map
// entries, which proto.Marshal leaves unspecified.
func marshal(m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		fatal(err)
	}
	return b
}

// fieldsJSON renders m with protojson (proto field names, zero values omitted)
// and re-encodes it with encoding/json so that the output is stable: protojson
// deliberately varies its whitespace between builds.
func fieldsJSON(m proto.Message) json.RawMessage {
	raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		fatal(err)
	}
	return normJSON(raw)
}

func normJSON(raw []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fatal(err)
	}
	return json.RawMessage(bytes.TrimSpace(buf.Bytes()))
}

func must(err error) {
	if err != nil {
		fatal(err)
	}
}

func check(ok bool, format string, args ...any) {
	if !ok {
		fatal(fmt.Errorf("self-check failed: "+format, args...))
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "golden:", err)
	os.Exit(1)
}
