package apply

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heron-shell/heron/tests/etcdtest"
)

// The backup is written on a goroutine of its own while the scan stages
// more ops: a run's backup still holds every op, checksummed and synced,
// before its first write.
func TestStagedBackupCompleteBeforeTheFirstWrite(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	const n = 3000
	var ops []Op
	for i := range n {
		ops = append(ops, Op{Key: fmt.Sprintf("p/%05d", i), Value: []byte("new")})
	}
	path := filepath.Join(t.TempDir(), "b.jsonl")
	r0 := rev(t, cli)
	checked := false
	_, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: path, Header: Header{Prefixes: []string{"p/"}},
		AfterBackup: func(p string) error {
			if rev(t, cli) != r0 {
				t.Error("etcd was written before the backup was published")
			}
			_, entries := readBackup(t, p) // checks the end line's count and checksum
			if len(entries) != n || entries[n-1].Key != ops[n-1].Key {
				t.Errorf("the published backup holds %d entries, want %d", len(entries), n)
			}
			checked = true
			return nil
		}})
	if err != nil || !checked {
		t.Fatalf("%v (backup checked: %v)", err, checked)
	}
}

// A backup write that fails stops the scan within a few batches, as an
// error (the staged ops never reach etcd, the temporary file goes).
func TestStagedBackupErrorStopsTheScan(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	dir := t.TempDir()
	r0 := rev(t, cli)
	yielded := 0
	src := func(ctx context.Context, yield func(Op) error) error {
		for i := range 100000 {
			key := fmt.Sprintf("p/%06d", i)
			if i == 300 {
				key = "elsewhere/x"
			}
			yielded++
			if err := yield(Op{Key: key, Value: []byte("new")}); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := Apply(context.Background(), cli, src, Options{BackupPath: filepath.Join(dir, "b.jsonl"), Header: Header{Prefixes: []string{"p/"}}})
	if err == nil || !strings.Contains(err.Error(), "outside the prefixes") {
		t.Fatalf("err %v", err)
	}
	if yielded > 300+(stagedBatches+2)*128 {
		t.Errorf("the scan went on for %d ops after the failed write", yielded-300)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left %d files: %v", len(left), left)
	}
	if rev(t, cli) != r0 {
		t.Fatal("etcd was written")
	}
}
