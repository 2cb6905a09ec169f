package apply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// The hand parser of entry lines reads what backupWriter.add writes as
// encoding/json does, and leaves every other form to encoding/json.
func TestParseEntryLineMatchesJSON(t *testing.T) {
	keys := []string{"a", "by-dev/meta/datacoord-meta/s/1/2/3", "k<>&", "q\"uote", "back\\slash", "tab\tkey", "é/ü", "\u2028", "\xff\xfe", "a&b", "del\x7f", "ctl\x01", "~ !#$%'()*+,-./:;=?@[]^_`{|}"}
	values := [][]byte{nil, {}, []byte("v"), {0, 1, 2, 255}, make([]byte, 1000)}
	dir := t.TempDir()
	path := filepath.Join(dir, "b.jsonl")
	bw, err := CreateBackup(path, Header{Command: "t"})
	if err != nil {
		t.Fatal(err)
	}
	var ops []Op
	rev := int64(1)
	for _, k := range keys {
		for i, v := range values {
			op := Op{Key: k + string(rune('a'+i)), Original: v, ModRevision: rev, Delete: i%2 == 1}
			if i == 2 {
				op.ModRevision = 0
			}
			rev = rev*7 + 3
			ops = append(ops, op)
			if err := bw.add(op); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
	// A key is written as encoding/json writes it: a key copied as it
	// stands (plainJSON) is one it would not escape.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(raw, []byte("\n"))
	for i, op := range ops {
		want := []byte(`{"key_base64":`)
		if utf8.ValidString(op.Key) {
			kb, _ := json.Marshal(op.Key)
			want = append([]byte(`{"key":`), kb...)
		}
		if !bytes.HasPrefix(lines[i+1], want) {
			t.Fatalf("key %q written as %.40s, want %s", op.Key, lines[i+1], want)
		}
	}
	br, err := OpenBackup(path)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	fast := 0
	for i := 0; ; i++ {
		e, ok, err := br.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if i != len(ops) {
				t.Fatalf("%d entries, want %d", i, len(ops))
			}
			break
		}
		op := ops[i]
		if e.Key != op.Key || string(e.Value) != string(op.Original) || e.ModRevision != op.ModRevision || e.Absent != (op.ModRevision == 0) || e.Delete != op.Delete || e.Line != int64(i+2) {
			t.Fatalf("entry %d: %+v, want %+v", i, e, op)
		}
	}
	// Lines in other forms go to encoding/json, which agrees or refuses.
	for _, line := range []string{
		`{"key":"a","value":"dg==","mod_revision":5,"op":"put"}`,
		`{"value":"dg==","key":"a","mod_revision":5,"op":"put"}`,
		`{"key":"a", "value":"dg==","mod_revision":5,"op":"put"}`,
		`{"key":"a\u0041","value":"dg==","mod_revision":5,"op":"put"}`,
		`{"key":"a","value":"dg==","mod_revision":05,"op":"put"}`,
		`{"key":"a","value":"dg=","mod_revision":5,"op":"put"}`,
		`{"key":"a","value":"dg==","mod_revision":5,"op":"put"} `,
		`{"key":"a","value":"dg==","mod_revision":12345678901234567890,"op":"put"}`,
		`{"end":true,"ops":0}`,
	} {
		e, ok := parseEntryLine([]byte(line), nil)
		if line == `{"key":"a","value":"dg==","mod_revision":5,"op":"put"}` {
			if !ok || e.Key != "a" || string(e.Value) != "v" || e.ModRevision != 5 {
				t.Fatalf("%s: %+v %v", line, e, ok)
			}
			fast++
			var l backupLine
			if err := json.Unmarshal([]byte(line), &l); err != nil || l.Key != e.Key {
				t.Fatal(err)
			}
			continue
		}
		if ok {
			t.Errorf("%s parsed by hand: %+v", line, e)
		}
	}
	_ = os.Remove(path)
}

// The reader hands out each line from its buffer: entries kept while the
// file is read on (short lines, and lines longer than the reader's 1 MiB
// buffer between them) still hold their own keys and values.
func TestBackupEntriesOutliveTheReadersBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.jsonl")
	bw, err := CreateBackup(path, Header{Command: "t"})
	if err != nil {
		t.Fatal(err)
	}
	bw.withNew = true
	var ops []Op
	for i := range 40 {
		size := 10 + i
		if i%9 == 4 {
			size = 1<<20 + i // a line over the buffer: two reads
		}
		op := Op{Key: fmt.Sprintf("k/%03d", i), ModRevision: int64(i + 1), Original: bytes.Repeat([]byte{byte(i)}, size), Value: bytes.Repeat([]byte{byte(255 - i)}, size/2+1)}
		if err := bw.add(op); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, op)
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	if _, err := VerifyBackup(path, false, func(e Entry) error { entries = append(entries, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(ops) {
		t.Fatalf("%d entries, want %d", len(entries), len(ops))
	}
	for i, e := range entries {
		if e.Key != ops[i].Key || !bytes.Equal(e.Value, ops[i].Original) || !bytes.Equal(e.New, ops[i].Value) || e.ModRevision != ops[i].ModRevision {
			t.Fatalf("entry %d (%s, %d old bytes) read back as %s, %d old bytes", i, ops[i].Key, len(ops[i].Original), e.Key, len(e.Value))
		}
	}
}

// A reader told which values its caller uses (Values) hands out the other
// entries with their keys, revisions and ops but no values, and still checks
// the whole file: a changed value it did not decode fails the checksum.
func TestBackupReaderDecodesOnlyTheValuesNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.jsonl")
	bw, err := CreateBackup(path, Header{Command: "t"})
	if err != nil {
		t.Fatal(err)
	}
	entries := []Entry{
		{Key: "keep/1", Value: []byte("one"), ModRevision: 3, New: []byte("uno"), HasNew: true},
		{Key: "skip/2", Value: []byte("two"), ModRevision: 4, New: []byte("dos"), HasNew: true},
		{Key: "skip/3", Value: []byte("three"), ModRevision: 5, Delete: true},
	}
	for _, e := range entries {
		if err := bw.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
	read := func(path string) ([]Entry, error) {
		br, err := OpenBackup(path)
		if err != nil {
			return nil, err
		}
		defer br.Close()
		br.Values = func(key string) bool { return key == "keep/1" }
		var got []Entry
		for {
			e, ok, err := br.Next()
			if err != nil || !ok {
				return got, err
			}
			got = append(got, e)
		}
	}
	got, err := read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || string(got[0].Value) != "one" || string(got[0].New) != "uno" {
		t.Fatalf("the named entry: %+v", got)
	}
	for i, e := range got[1:] {
		want := entries[i+1]
		if e.Value != nil || e.New != nil || e.Key != want.Key || e.ModRevision != want.ModRevision || e.HasNew != want.HasNew || e.Delete != want.Delete {
			t.Errorf("entry %s: %+v, want its key, revision and op without values", want.Key, e)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "changed.jsonl")
	// "two" is dHdv, "tw0" is dHcw: a value the reader does not decode.
	if err := os.WriteFile(changed, bytes.Replace(b, []byte(`"dHdv"`), []byte(`"dHcw"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := read(changed); err == nil || !bytes.Contains([]byte(err.Error()), []byte("checksum")) {
		t.Fatalf("a changed value that was not decoded: %v, want a checksum error", err)
	}
}
