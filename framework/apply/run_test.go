package apply

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// Run owns the backup's name, the approval before the first write, the
// wrapping of errors with the backup to roll back from, and the verify.
func TestRunJob(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	ctx := context.Background()
	dir := t.TempDir()
	revs := seed(t, cli, map[string]string{"r/a": "1", "r/b": "2"})
	ops := func() []Op {
		return []Op{
			{Key: "r/a", ModRevision: revs["r/a"], Value: []byte("one"), Original: []byte("1")},
			{Key: "r/b", ModRevision: revs["r/b"], Delete: true, Original: []byte("2")},
		}
	}
	job := func(verify func(context.Context) error) Job {
		return Job{Command: "test cmd", Name: "test-x", Header: Header{RootPath: "r/x", Revision: 42},
			Flags: framework.WriteFlags{MaxTxnOps: 1, BackupDir: dir}, Ops: Slice(ops()), Plan: framework.Message("the plan"), Verify: verify}
	}
	var stderr strings.Builder
	no := framework.WriteIO{Stdout: io.Discard, Stderr: &stderr, Format: framework.FormatTable,
		Confirm: func(context.Context, string) (bool, error) { return false, nil }}
	r0 := rev(t, cli)
	if res, err := Run(ctx, cli, job(nil), no); !errors.Is(err, framework.ErrNotConfirmed) || res.Backup != "" {
		t.Fatalf("declined: %+v %v", res, err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 || rev(t, cli) != r0 {
		t.Fatalf("declined run left %v or wrote", files)
	}
	// Refused by its check: nothing written, no backup.
	j := job(nil)
	j.Check = func() error { return framework.Refusedf("no") }
	if _, err := Run(ctx, cli, j, framework.WriteIO{Stderr: io.Discard}); framework.ExitCode(err) != framework.ExitRefused {
		t.Fatalf("refused: %v", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 || rev(t, cli) != r0 {
		t.Fatalf("refused run left %v or wrote", files)
	}
	// A run whose verify fails: the error says so, the backup is named.
	verified := 0
	res, err := Run(ctx, cli, job(func(context.Context) error { verified++; return errors.New("2 keys differ") }), framework.WriteIO{Stderr: &stderr})
	if err == nil || !strings.HasPrefix(err.Error(), "verify: 2 keys differ") || verified != 1 || res.Written != 2 || res.Txns != 2 {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if want := filepath.Join(dir, "heron-backup-r_x-test-x-rev42-"); !strings.HasPrefix(res.Backup, want) || !strings.HasSuffix(res.Backup, ".jsonl") {
		t.Fatalf("backup %s, want %s...", res.Backup, want)
	}
	if !strings.Contains(stderr.String(), "backup: "+res.Backup+" (2 keys, synced)") {
		t.Fatalf("stderr %q", stderr.String())
	}
	// A conflict after the backup: the error names it and how to roll back.
	res2, err := Run(ctx, cli, job(nil), framework.WriteIO{Stderr: io.Discard})
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "restore --file "+res2.Backup+" --run rolls back") || res2.Backup == res.Backup {
		t.Fatalf("conflict: %+v %v", res2, err)
	}
	// Names never collide.
	now := time.Now()
	a := BackupPath(dir, "r", "n", 1, now)
	if err := os.WriteFile(a, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if b := BackupPath(dir, "r", "n", 1, now); b == a || !strings.HasSuffix(b, "-2.jsonl") {
		t.Fatalf("%s then %s", a, b)
	}
}
