package apply

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// writeBackup writes a small backup with the exported writer.
func writeBackup(t *testing.T, path string, h Header, entries ...Entry) {
	t.Helper()
	bw, err := CreateBackup(path, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := bw.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestBackupChecksum(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.jsonl")
	h := Header{Command: "t", RootPath: "r", Prefixes: []string{"r/meta/"}}
	writeBackup(t, path, h,
		Entry{Key: "r/meta/a", Value: []byte("hello world"), ModRevision: 3},
		Entry{Key: "r/meta/b", ModRevision: 0, Absent: true, Delete: false})
	info, err := VerifyBackup(path, false, nil)
	if err != nil || !info.Checksummed || info.Entries != 2 || info.Header.Prefixes[0] != "r/meta/" {
		t.Fatalf("%+v %v", info, err)
	}
	data, _ := os.ReadFile(path)

	// A flipped bit inside a base64 value that stays valid base64.
	i := bytes.Index(data, []byte("aGVsbG8gd29ybGQ="))
	flipped := append([]byte{}, data...)
	flipped[i+2] ^= 0x01 // 'V' -> 'W'
	bad := filepath.Join(dir, "flipped.jsonl")
	_ = os.WriteFile(bad, flipped, 0o600)
	if _, err := VerifyBackup(bad, false, nil); err == nil || !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), bad) {
		t.Fatalf("flipped bit: %v", err)
	}
	if _, err := VerifyBackup(bad, true, nil); err == nil {
		t.Fatal("--no-checksum must not accept a wrong checksum")
	}

	// An end line without checksum: a backup of an older heron.
	old := bytes.Replace(data, data[bytes.LastIndex(data[:len(data)-1], []byte("\n"))+1:], []byte(`{"end":true,"ops":2}`+"\n"), 1)
	oldPath := filepath.Join(dir, "old.jsonl")
	_ = os.WriteFile(oldPath, old, 0o600)
	if _, err := VerifyBackup(oldPath, false, nil); err == nil || !strings.Contains(err.Error(), "no checksum") || !strings.Contains(err.Error(), "--no-checksum") {
		t.Fatalf("no checksum: %v", err)
	}
	if info, err := VerifyBackup(oldPath, true, nil); err != nil || info.Checksummed {
		t.Fatalf("no checksum, allowed: %+v %v", info, err)
	}

	// The writer refuses a key outside the header's prefixes.
	bw, err := CreateBackup(filepath.Join(dir, "p.jsonl"), h)
	if err != nil {
		t.Fatal(err)
	}
	if err := bw.Add(Entry{Key: "r/kv/gid/idTimestamp", ModRevision: 1}); err == nil || !strings.Contains(err.Error(), "outside the prefixes") {
		t.Fatalf("outside: %v", err)
	}
	bw.Abort()
	if m, _ := filepath.Glob(filepath.Join(dir, ".p.jsonl*")); len(m) != 0 {
		t.Fatalf("Abort left %v", m)
	}
}

func TestTooManyOpsFailsBeforeTheFirstWrite(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	var ops []Op
	for i := 0; i < 300; i++ {
		ops = append(ops, Op{Key: fmt.Sprintf("k%03d", i), Value: []byte("v")})
	}
	dir := t.TempDir()
	r0 := rev(t, cli)
	approved := false
	res, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: filepath.Join(dir, "b"), MaxTxnOps: 200},
		twoPass{Approve: func(int64) error { approved = true; return nil }})
	// The embedded etcd has etcd's default --max-txn-ops, 128.
	want := "etcd allows at most 128 operations per transaction (its --max-txn-ops): use --max-txn-ops <= 128"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "may or may not") {
		t.Fatalf("%v", err)
	}
	if rev(t, cli) != r0 || res.Written != 0 || approved {
		t.Fatalf("written %d, approved %v, revision %d -> %d", res.Written, approved, r0, rev(t, cli))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Fatalf("files left: %v", m)
	}
	m, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(m) != 0 {
		t.Fatalf("files left: %v", m)
	}
}

// TestTooLargeStopsBeforeLaterPhases: a value over etcd's request limit
// (1.5 MiB by default, the embedded etcd's) fails its transaction, alone;
// the run stops before the next phase, naming the key and the limit, and
// counts what it wrote.
func TestTooLargeStopsBeforeLaterPhases(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	kvs := map[string]string{"seg/1": "a", "seg/2": "b", "seg/3": "c", "cp/1": "x", "cp/2": "y"}
	revs := seed(t, cli, kvs)
	del := seed(t, cli, map[string]string{"seg/0": "gone"})
	big := bytes.Repeat([]byte{'v'}, 1700*1024)
	ops := []Op{
		{Key: "seg/0", ModRevision: del["seg/0"], Delete: true, Original: []byte("gone")},
		{Key: "seg/1", ModRevision: revs["seg/1"], Value: []byte("A"), Original: []byte("a")},
		{Key: "seg/2", ModRevision: revs["seg/2"], Value: big, Original: []byte("b")},
		{Key: "seg/3", ModRevision: revs["seg/3"], Value: []byte("C"), Original: []byte("c")},
		{Key: "cp/1", ModRevision: revs["cp/1"], Value: []byte("X"), Original: []byte("x"), Phase: 1},
		{Key: "cp/2", ModRevision: revs["cp/2"], Value: []byte("Y"), Original: []byte("y"), Phase: 1},
	}
	res, err := Apply(ctx, cli, Slice(ops), Options{BackupPath: filepath.Join(t.TempDir(), "b"), Concurrency: 1})
	var le *LimitError
	if err == nil || !errors.As(err, &le) {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{"seg/2", "--max-request-bytes", "too large", "nothing of that transaction was written"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "may or may not") {
		t.Fatalf("%v", err)
	}
	d := dump(t, cli)
	if d["cp/1"] != "x" || d["cp/2"] != "y" {
		t.Fatalf("the later phase was written: %v", d)
	}
	// seg/0 and seg/1 went in the first transaction, seg/2 alone, seg/3
	// (after it, in the same phase) may or may not have gone.
	if d["seg/1"] != "A" || res.Deletes != 1 || res.Puts < 1 || res.Written != res.Puts+res.Deletes || res.Written > 3 {
		t.Fatalf("%+v %v", res, d)
	}
	if res.Keys != 6 || res.PlannedPuts != 5 || res.PlannedDeletes != 1 {
		t.Fatalf("planned %+v", res)
	}
}

// TestWrittenCountsWhatWasCommitted: a stopped run's puts and deletes are
// those committed, not those planned.
func TestWrittenCountsWhatWasCommitted(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	kvs := map[string]string{}
	for i := 0; i < 10; i++ {
		kvs[fmt.Sprintf("k%02d", i)] = "v"
	}
	revs := seed(t, cli, kvs)
	var ops []Op
	for i := 0; i < 10; i++ {
		k := fmt.Sprintf("k%02d", i)
		ops = append(ops, Op{Key: k, ModRevision: revs[k], Value: []byte("w"), Original: []byte("v"), Delete: i%2 == 1})
	}
	res, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: filepath.Join(t.TempDir(), "b"), MaxTxnOps: 3, Concurrency: 1,
		AfterTxn: func(n int) error {
			if n == 1 {
				return errors.New("stop")
			}
			return nil
		}})
	if err == nil {
		t.Fatal("not stopped")
	}
	if res.Written != 3 || res.Puts != 2 || res.Deletes != 1 || res.Keys != 10 || res.PlannedPuts != 5 || res.PlannedDeletes != 5 {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(err.Error(), "3 of 10 keys written") {
		t.Fatalf("%v", err)
	}
}
