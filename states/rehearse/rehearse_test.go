package rehearse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/backup"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

func under(dump map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range dump {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// backupOf seeds the sample (plus keys that must survive byte for byte) and
// backs it up; it returns the original etcd's keys under by-dev/ and the file.
func backupOf(t *testing.T) (map[string]string, string) {
	t.Helper()
	s := shelltest.Start(t, commonpb.WALName_Kafka)
	ctx := context.Background()
	for k, v := range map[string]string{"by-dev/meta/x/\xff": "\x00\xffbin", "by-dev/config/empty": "", "by-dev-other/k": "v"} {
		_, err := s.Cli.Put(ctx, k, v)
		require.NoError(t, err)
	}
	file := filepath.Join(t.TempDir(), "b.jsonl")
	_, err := backup.Write(ctx, s.Inst.WithPageSize(7), backup.Options{File: file})
	require.NoError(t, err)
	return under(shelltest.Dump(t, s.Cli), "by-dev/"), file
}

func freshInstance(t *testing.T, root string) (*instance.Instance, func() map[string]string) {
	t.Helper()
	cli, ep := etcdtest.Start(t)
	inst := instance.New(cli, models.NewLayout(root, configs.DefaultMetaPath), []string{ep})
	return inst, func() map[string]string { return shelltest.Dump(t, cli) }
}

// Issue 10 §6: a backup/load-backup round trip whose dump is byte-identical.
func TestRoundTripIsByteIdentical(t *testing.T) {
	want, file := backupOf(t)
	inst, dump := freshInstance(t, "by-dev")
	n, err := Load(context.Background(), inst.WithPageSize(3), file, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(len(want)), n)
	assert.Equal(t, want, dump(), "the copy holds exactly the keys and values under the root path")
}

func TestLoadUnderAnotherRootPath(t *testing.T) {
	want, file := backupOf(t)
	inst, dump := freshInstance(t, "rehearsal")
	_, err := Load(context.Background(), inst, file, nil)
	require.NoError(t, err)
	moved := map[string]string{}
	for k, v := range want {
		moved["rehearsal/"+strings.TrimPrefix(k, "by-dev/")] = v
	}
	assert.Equal(t, moved, dump())
}

// rewrite writes a copy of file with edit applied to its lines.
func rewrite(t *testing.T, file string, edit func(lines []string) []string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	out := filepath.Join(t.TempDir(), "edited.jsonl")
	require.NoError(t, os.WriteFile(out, []byte(strings.Join(edit(lines), "")), 0o600))
	return out
}

// A file that stops early, or whose entries do not add up, is refused.
func TestLoadRefusesTruncatedOrTamperedFiles(t *testing.T) {
	_, file := backupOf(t)
	for _, tt := range []struct {
		name, want string
		edit       func([]string) []string
	}{
		{"no end line", "truncated", func(l []string) []string { return l[:len(l)-1] }},
		{"cut inside a line", "truncated", func(l []string) []string {
			return append(l[:len(l)-2:len(l)-2], l[len(l)-2][:10])
		}},
		{"an entry removed", "end line says", func(l []string) []string { return append(l[:2:2], l[3:]...) }},
		{"an entry added", "end line says", func(l []string) []string {
			return append(append(l[:2:2], `{"key":"by-dev/meta/extra","value":"eA==","mod_revision":5,"op":"put"}`+"\n"), l[2:]...)
		}},
		{"a value not base64", "value", func(l []string) []string {
			l[2] = regexp.MustCompile(`"value":"[^"]*"`).ReplaceAllString(l[2], `"value":"!!"`)
			return l
		}},
		{"a key outside the prefix", "outside the backup's prefix", func(l []string) []string {
			l[2] = regexp.MustCompile(`"key":"by-dev/`).ReplaceAllString(l[2], `"key":"elsewhere/`)
			return l
		}},
		{"an absent entry", "not a full backup", func(l []string) []string {
			l[2] = regexp.MustCompile(`"mod_revision":\d+`).ReplaceAllString(l[2], `"mod_revision":0,"absent":true`)
			return l
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := rewrite(t, file, tt.edit)
			inst, _ := freshInstance(t, "by-dev")
			_, err := Load(context.Background(), inst, bad, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// A write command's backup holds only the keys it changed: no copy.
func TestCheckRefusesAWriteCommandsBackup(t *testing.T) {
	file := filepath.Join(t.TempDir(), "reset.jsonl")
	bw, err := apply.CreateBackup(file, apply.Header{Command: "reset checkpoint --target-wal kafka", RootPath: "by-dev", Revision: 9})
	require.NoError(t, err)
	require.NoError(t, bw.Add(apply.Entry{Key: "by-dev/meta/a", Value: []byte("v"), ModRevision: 3}))
	require.NoError(t, bw.Commit())
	_, err = Check(file)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the backup of "reset checkpoint --target-wal kafka"`)
	assert.Contains(t, err.Error(), "take one with the backup command")
}

var folderRE = regexp.MustCompile(`folder (\S+), removed on exit`)

// load-backup runs the script on the copy and removes its folder at the end;
// a refused file starts nothing and leaves nothing.
func TestMainRunsTheShellOnTheCopy(t *testing.T) {
	want, file := backupOf(t)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{file}, false, strings.NewReader("show etcd-kv --prefix / --format line\nreset checkpoint --target-wal woodpecker --format json\n"), &out, &errOut)
	require.Equal(t, framework.ExitOK, code, errOut.String())
	assert.Contains(t, errOut.String(), fmt.Sprintf("loaded %d keys of %s", len(want), file))
	assert.Contains(t, errOut.String(), fmt.Sprintf("load-backup: %d keys, ", len(want)), "progress on stderr")
	listing, plan, ok := strings.Cut(out.String(), "{")
	require.True(t, ok, out.String())
	assert.Contains(t, plan, `"target_wal": "woodpecker"`)
	assert.Equal(t, len(want), strings.Count(listing, "mod_revision="), "show etcd-kv lists every key of the backup: %s", listing)
	m := folderRE.FindStringSubmatch(errOut.String())
	require.NotNil(t, m, errOut.String())
	_, err := os.Stat(m[1])
	assert.True(t, os.IsNotExist(err), "the folder %s is removed", m[1])

	truncated := rewrite(t, file, func(l []string) []string { return l[:len(l)-1] })
	out.Reset()
	errOut.Reset()
	code = Main(context.Background(), []string{truncated}, false, strings.NewReader("show checkpoint\n"), &out, &errOut)
	assert.Equal(t, framework.ExitFailed, code)
	assert.Contains(t, errOut.String(), "truncated")
	assert.Contains(t, errOut.String(), "nothing was loaded", "refused before the load: its end line is read first")
	assert.Empty(t, out.String(), "no shell ran")
}

func TestMainUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"--help"}, false, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, framework.ExitOK, code)
	assert.Contains(t, out.String(), "heron load-backup FILE [--rootPath STRING]")
	assert.Contains(t, out.String(), "--rootPath STRING")
	assert.Empty(t, errOut.String())

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{nil, framework.ExitUsage, "give the backup FILE"},
		{[]string{"a", "b"}, framework.ExitUsage, "takes one FILE"},
		{[]string{"-rootPath", "x", "f"}, framework.ExitUsage, "error: load-backup:"},
		{[]string{"--rootPath", "/", "f"}, framework.ExitUsage, "--rootPath \"/\" is empty"},
		{[]string{filepath.Join(t.TempDir(), "missing.jsonl")}, framework.ExitFailed, "no such file"},
	} {
		out.Reset()
		errOut.Reset()
		code := Main(context.Background(), tt.args, false, strings.NewReader(""), &out, &errOut)
		assert.Equal(t, tt.code, code, "%q: %s", tt.args, errOut.String())
		assert.Contains(t, errOut.String(), tt.want, "%q", tt.args)
	}
}

// Issue 10 §6: a reset rehearsed on the copy plans exactly what the same
// command plans on the original (but for the revision, the etcd's own).
func TestTheCopyPlansWhatTheOriginalPlans(t *testing.T) {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	file := filepath.Join(t.TempDir(), "b.jsonl")
	_, err := backup.Write(context.Background(), s.Inst, backup.Options{File: file})
	require.NoError(t, err)
	copyInst, _ := freshInstance(t, "by-dev")
	_, err = Load(context.Background(), copyInst, file, nil)
	require.NoError(t, err)
	plan := func(inst *instance.Instance) map[string]any {
		out, errOut, _, err := shelltest.Run(t, reset.Commands(inst), "reset checkpoint --target-wal kafka --format json")
		require.NoError(t, err, errOut)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		require.Contains(t, m, "revision")
		delete(m, "revision")
		delete(m, "etcd_space") // the size of the etcd, not of the metadata
		return m
	}
	orig := plan(s.Inst)
	assert.NotZero(t, orig["total_keys"])
	assert.Equal(t, orig, plan(copyInst))
}
