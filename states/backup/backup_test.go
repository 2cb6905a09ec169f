package backup

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/shelltest"
)

// readBackup reads every entry of a backup file: key to value, checking that
// each entry is a key as read (present, a put).
func readBackup(t *testing.T, path string) (apply.Header, map[string]string, []string) {
	t.Helper()
	br, err := apply.OpenBackup(path)
	require.NoError(t, err)
	defer br.Close()
	got := map[string]string{}
	var order []string
	for {
		e, ok, err := br.Next()
		require.NoError(t, err)
		if !ok {
			break
		}
		require.False(t, e.Absent || e.Delete, "entry %s", e.Key)
		require.NotZero(t, e.ModRevision, "entry %s", e.Key)
		got[e.Key] = string(e.Value)
		order = append(order, e.Key)
	}
	return br.Header, got, order
}

func under(dump map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range dump {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

func TestBackupHoldsEveryKeyUnderTheRootPathOnly(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	ctx := context.Background()
	// Keys a dump must carry byte for byte (binary, empty, not UTF-8), and
	// keys outside the root path it must leave out.
	for k, v := range map[string]string{
		"by-dev/meta/x/\xff\xfe": "\x00\x01binary\xff",
		"by-dev/config/empty":    "",
		"by-dev-other/meta/x":    "other root",
		"by-devx":                "not under by-dev/",
	} {
		_, err := s.Cli.Put(ctx, k, v)
		require.NoError(t, err)
	}
	file := filepath.Join(t.TempDir(), "b.jsonl")
	out, errOut, code, err := shelltest.Run(t, Commands(s.Inst), "backup --file "+file+" --format json")
	require.NoError(t, err, errOut)
	assert.Equal(t, 0, code)
	var res Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))

	want := under(shelltest.Dump(t, s.Cli), "by-dev/")
	h, got, order := readBackup(t, file)
	assert.Equal(t, want, got)
	assert.True(t, sort.StringsAreSorted(order), "entries in key order")
	assert.Equal(t, int64(len(want)), res.Keys)
	assert.Equal(t, file, res.File)
	assert.Equal(t, "by-dev/", res.Prefix)
	st, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, st.Size(), res.Bytes)
	assert.Equal(t, shelltest.Revision(t, s.Inst), res.Revision)
	assert.Equal(t, "backup", h.Command)
	assert.Equal(t, "by-dev", h.RootPath)
	assert.Equal(t, "by-dev/", h.Prefix)
	assert.Equal(t, res.Revision, h.Revision)
	assert.Contains(t, errOut, "backup: ", "progress on stderr")
}

// The scan is pinned to the revision read first: puts, overwrites and
// deletes while the backup runs do not reach the file.
func TestBackupPinsOneRevision(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	ctx := context.Background()
	before := under(shelltest.Dump(t, s.Cli), "by-dev/")
	rev := shelltest.Revision(t, s.Inst)
	keys := make([]string, 0, len(before))
	for k := range before {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	last, second := keys[len(keys)-1], keys[len(keys)-2]
	pages := 0
	write := func() {
		pages++
		if pages != 1 {
			return
		}
		_, err := s.Cli.Put(ctx, last, "changed during the backup")
		require.NoError(t, err)
		_, err = s.Cli.Delete(ctx, second)
		require.NoError(t, err)
		_, err = s.Cli.Put(ctx, "by-dev/zzz/new", "new during the backup")
		require.NoError(t, err)
	}
	file := filepath.Join(t.TempDir(), "b.jsonl")
	out, errOut, _, err := shelltest.Run(t, []*framework.Command{framework.Read(s.Inst.WithPageSize(1), run(Options{afterPage: write}))}, "backup --file "+file+" --format json")
	require.NoError(t, err, errOut)
	require.Greater(t, pages, 1, "the scan read more than one page")
	var res Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, rev, res.Revision)
	h, got, _ := readBackup(t, file)
	assert.Equal(t, rev, h.Revision)
	assert.Equal(t, before, got)
	assert.NotEqual(t, before, under(shelltest.Dump(t, s.Cli), "by-dev/"), "etcd did change during the backup")
}

func TestBackupPrefixAndDefaultName(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Kafka)
	dir := t.TempDir()
	t.Chdir(dir)
	out, errOut, _, err := shelltest.Run(t, Commands(s.Inst), "backup --prefix meta/datacoord-meta/ --format line")
	require.NoError(t, err, errOut)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	require.Len(t, files, 1)
	assert.Regexp(t, regexp.MustCompile(`^heron-backup-by-dev-prefix-meta_datacoord-meta-rev\d+-\d{8}T\d{6}Z\.jsonl$`), filepath.Base(files[0]))
	assert.Contains(t, out, "prefix=by-dev/meta/datacoord-meta/")
	h, got, _ := readBackup(t, files[0])
	assert.Equal(t, under(shelltest.Dump(t, s.Cli), "by-dev/meta/datacoord-meta/"), got)
	assert.NotEmpty(t, got)
	assert.Equal(t, "backup --prefix meta/datacoord-meta/", h.Command)

	_, _, _, err = shelltest.Run(t, Commands(s.Inst), "backup")
	require.NoError(t, err)
	full, _ := filepath.Glob(filepath.Join(dir, "heron-backup-by-dev-full-rev*.jsonl"))
	assert.Len(t, full, 1, "the whole root path: heron-backup-{root}-full-rev{R}-{time}.jsonl")
}

func TestBackupNeverOverwrites(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	file := filepath.Join(t.TempDir(), "taken.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("keep me"), 0o600))
	_, errOut, code, err := shelltest.Run(t, Commands(s.Inst), "backup --file "+file)
	require.Error(t, err)
	assert.Equal(t, framework.ExitFailed, code)
	assert.Contains(t, errOut, file+" already exists")
	b, _ := os.ReadFile(file)
	assert.Equal(t, "keep me", string(b))
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".*"))
	assert.Empty(t, left, "no temporary file left")
}

// An interrupted backup publishes nothing and leaves no temporary file.
func TestBackupInterruptedLeavesNoFile(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Write(ctx, s.Inst.WithPageSize(1), Options{File: filepath.Join(dir, "b.jsonl"), afterPage: cancel})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "interrupted after 1 keys, no file written")
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	hidden, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, append(left, hidden...))
}

// A key held by a lease (a live session) is backed up by value, and the
// operator is told that a copy will not hold the lease.
func TestBackupCountsLeasedKeys(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	ctx := context.Background()
	lease, err := s.Cli.Grant(ctx, 60)
	require.NoError(t, err)
	_, err = s.Cli.Put(ctx, "by-dev/meta/session/querynode-9", `{"ServerID":9}`, clientv3.WithLease(lease.ID))
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "b.jsonl")
	out, errOut, _, err := shelltest.Run(t, Commands(s.Inst), "backup --file "+file)
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "leased:   1 keys")
	assert.Contains(t, errOut, "warning: 1 keys are held by a lease")
	_, got, _ := readBackup(t, file)
	assert.Equal(t, `{"ServerID":9}`, got["by-dev/meta/session/querynode-9"])
}

func TestBackupUsage(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	_, errOut, code, _ := shelltest.Run(t, Commands(s.Inst), "backup --file ' '")
	assert.Equal(t, framework.ExitUsage, code)
	assert.Contains(t, errOut, "--file is blank")
	dir := t.TempDir()
	_, errOut, code, _ = shelltest.Run(t, Commands(s.Inst), "backup --prefix no-such/ --file "+filepath.Join(dir, "b.jsonl"))
	assert.Equal(t, framework.ExitFailed, code)
	assert.Contains(t, errOut, "no key under by-dev/no-such/")
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Empty(t, left)
	_, errOut, code, _ = shelltest.Run(t, Commands(s.Inst), "backup --nope")
	assert.Equal(t, framework.ExitUsage, code, errOut)
}
