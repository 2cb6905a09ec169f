package restore

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// birdwatcherBackup writes a file the way birdwatcher's backup does: gzip,
// an 8-byte little-endian length, a BackupHeader{version: 2}, then parts.
func birdwatcherBackup(t *testing.T, path string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	header := []byte{0x08, 0x02}
	var lb [8]byte
	binary.LittleEndian.PutUint64(lb[:], uint64(len(header)))
	for _, b := range [][]byte{lb[:], header, []byte("\x00\x01\x02 parts follow\n")} {
		if _, err := zw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 16 §6, §7, §12: restore's messages name the command, a birdwatcher
// backup as such, and the WAL the instance used before.
func TestRestoreMessages(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")

	_, errs, code := e.run("restore --file /missing/heron-backup.jsonl")
	if code == 0 || !strings.Contains(errs, "error: restore: no file /missing/heron-backup.jsonl") || strings.Contains(errs, "backup:") {
		t.Errorf("missing file: exit %d: %s", code, errs)
	}

	bw := filepath.Join(e.dir, "bw_etcd_ALL.251203-101500.bak.gz")
	birdwatcherBackup(t, bw)
	_, errs, code = e.run("restore --file " + bw)
	if code == 0 || !strings.Contains(errs, "is a birdwatcher backup (format version 2)") || strings.Contains(errs, "truncated") {
		t.Errorf("birdwatcher backup: exit %d: %s", code, errs)
	}
	gz := filepath.Join(e.dir, "other.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte("hello")); err != nil || zw.Close() != nil {
		t.Fatal("gzip")
	}
	if err := os.WriteFile(gz, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, _ = e.run("restore --file " + gz); !strings.Contains(errs, "is a gzip file, not a heron backup") {
		t.Errorf("gzip file: %s", errs)
	}

	backup := e.resetRun()
	out, errs, code := e.run("restore --format json --file " + backup)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var s Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(s.Warnings, "\n"); !strings.Contains(w, "set mq.type in milvus.yaml back to pulsar, the WAL the instance used before") {
		t.Errorf("warnings do not name the WAL used before:\n%s", w)
	}
}

// A backup file's keys are etcd's keys, control bytes included: the plan
// shows them escaped, as every table does, never as terminal commands.
func TestRestoreTableEscapesKeys(t *testing.T) {
	s := &Summary{
		File:      "/backups/b\x1b]0;title\x07.jsonl",
		Prefixes:  []string{"by-dev/meta/\x1b[31m"},
		Examples:  []Example{{Key: "by-dev/meta/evil\x1b[2J", Action: "put back"}},
		TotalKeys: 1,
	}
	var b strings.Builder
	if err := s.Table(&b); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Fatalf("control bytes reach the terminal:\n%q", b.String())
	}
	if !strings.Contains(b.String(), "by-dev/meta/evil") {
		t.Fatalf("the key is not shown:\n%s", b.String())
	}
}
