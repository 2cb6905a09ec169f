package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadAfterResetWAL writes Milvus 3.0-style logs with the real client, has heron's
// `reset wal --run` (the built bin/heron, as a subprocess) empty those of the instance's
// pchannels (metadata and objects), then opens the emptied WAL with the real client as a
// restarted streaming node does (CreateLog, OpenLogWriter) and reads from the earliest id
// ({0,0}, what Milvus asks for after a reset): the first entry is the new data, in a log with
// a new id. Without the reset the truncated logs would move that reader to their old
// truncation point.
func TestReadAfterResetWAL(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	heron, etcdtool := filepath.Join(repo, "bin", "heron"), filepath.Join(repo, "bin", "etcdtool")
	for _, b := range []string{heron, etcdtool} {
		if _, err := os.Stat(b); err != nil {
			t.Skipf("%s missing: run make build and go build -o bin/etcdtool ./tests/e2e/etcdtool in the repository first", b)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := StartEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg, err := e.Config("by-dev", "files")
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := instanceLogs(ctx, c, "by-dev"); err != nil {
		t.Fatal(err)
	}
	oldIDs := map[int64]bool{}
	logs := []string{"by-dev-rootcoord-dml_0", "by-dev-rootcoord-dml_1", "by-dev-rootcoord-dml_2"}
	for _, name := range logs {
		lm, err := c.GetMetadataProvider().GetLogMeta(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		oldIDs[lm.Metadata.GetLogId()] = true
	}

	// The Milvus side of the instance (its pchannels dml_0..dml_2), then heron.
	if out, err := exec.Command(etcdtool, "seed", "--etcd", e.EtcdEndpoint(), "--wal", "kafka", "--rootPath", "by-dev").CombinedOutput(); err != nil {
		t.Fatalf("etcdtool seed: %v\n%s", err, out)
	}
	cmd := exec.Command(heron)
	cmd.Env = append(os.Environ(), "MINIO_ACCESS_KEY_ID=minioadmin", "MINIO_SECRET_ACCESS_KEY=minioadmin", "HERON_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("connect --etcd " + e.EtcdEndpoint() + " --rootPath by-dev\n" +
		"reset wal --target woodpecker --minio-address " + e.S3Host + ":" + strconv.Itoa(e.S3Port) +
		" --minio-bucket " + Bucket + " --minio-root-path files --backup-dir " + t.TempDir() + " --run\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("heron reset wal: %v\n%s", err, out)
	}
	t.Logf("heron:\n%s", out)

	_, objs, err := e.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		for id := range oldIDs {
			if strings.HasPrefix(o.Key, "files/wp/"+strconv.FormatInt(id, 10)+"/") {
				t.Fatalf("object %s of an emptied log left", o.Key)
			}
		}
	}

	c2, err := e.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range logs {
		if _, err := WriteEntries(ctx, c2, name, 2, "new"); err != nil {
			t.Fatalf("write to emptied %s: %v", name, err)
		}
		lm, err := c2.GetMetadataProvider().GetLogMeta(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if id := lm.Metadata.GetLogId(); oldIDs[id] {
			t.Fatalf("%s reused log id %d", name, id)
		}
		first, err := ReadFirst(ctx, c2, name)
		if err != nil {
			t.Fatalf("read %s from earliest: %v", name, err)
		}
		if want := "new " + name + " #0"; first != want {
			t.Fatalf("%s: first entry from earliest %q, want %q", name, first, want)
		}
	}
}
