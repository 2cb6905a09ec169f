package apply

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A file read whole once is read again in parts from the same open file:
// the entries of the bytes between two Offsets, with their line numbers; a
// part that reaches the end line is an error, not the end of the file.
func TestBackupPartsReadEntriesAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.jsonl")
	bw, err := CreateBackup(path, Header{Command: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := bw.add(Op{Key: fmt.Sprintf("k%d", i), Original: []byte(strings.Repeat("v", i)), ModRevision: int64(i + 1), Phase: i % 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
	br, err := OpenBackup(path)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	var offsets []int64
	var all []Entry
	for {
		offsets = append(offsets, br.Offset())
		e, ok, err := br.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		all = append(all, e)
	}
	part, err := br.Part(offsets[3], offsets[7], all[3].Line)
	if err != nil {
		t.Fatal(err)
	}
	for i := 3; i < 7; i++ {
		e, ok, err := part.Next()
		if err != nil || !ok || e.Key != all[i].Key || string(e.Value) != string(all[i].Value) || e.Line != all[i].Line || e.Phase != all[i].Phase {
			t.Fatalf("part entry %d: %+v %v %v, want %+v", i, e, ok, err, all[i])
		}
	}
	if _, ok, err := part.Next(); ok || err != nil {
		t.Fatalf("after the part: ok %v, %v", ok, err)
	}
	// The end line is the last offset: a part that reads it is refused.
	end, err := br.Part(offsets[9], offsets[10]+200, all[9].Line)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := end.Next(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := end.Next(); err == nil || !strings.Contains(err.Error(), "end line among the entries") {
		t.Fatalf("a part with the end line: %v", err)
	}
}
