package resetwal

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/applyplan"
	"github.com/heron-shell/heron/states/instance"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/s3test"
	"github.com/heron-shell/heron/tests/shelltest"
)

const bucket = "a-bucket"

// fixture is a dump written by the real woodpecker client (tests/wpfixtures).
type fixture struct {
	Etcd []struct {
		Key   string `json:"key"`
		Value string `json:"value_base64"`
	} `json:"etcd"`
	Objects []struct {
		Key  string `json:"key"`
		Data string `json:"data_base64"`
	} `json:"objects"`
}

type env struct {
	t    *testing.T
	cli  *clientv3.Client
	inst *instance.Instance
	s3   *s3test.Server
	dir  string
	tune func(*apply.Options)
}

// newEnv seeds the sample Milvus instance by-dev (pchannels dml_0..dml_2,
// plus dml_3 and dml_10 so that every fixture log is the instance's) and
// the woodpecker metadata and objects of the fixture scenario.
func newEnv(t *testing.T, scenario string) *env {
	t.Helper()
	cli, ep := etcdtest.Start(t)
	s := shelltest.Seed(t, cli, ep, "by-dev", commonpb.WALName_Kafka)
	e := &env{t: t, cli: cli, inst: s.Inst, s3: s3test.Start(t, bucket), dir: t.TempDir()}
	pcKey := e.inst.Layout.Meta(models.PChannelPrefix)
	v := e.dump()[pcKey+"by-dev-rootcoord-dml_0"]
	for _, pc := range []string{"by-dev-rootcoord-dml_3", "by-dev-rootcoord-dml_10"} {
		e.put(pcKey+pc, v)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "wp_"+scenario+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, kv := range f.Etcd {
		val, err := base64.StdEncoding.DecodeString(kv.Value)
		if err != nil {
			t.Fatal(err)
		}
		e.put(kv.Key, string(val))
	}
	for _, o := range f.Objects {
		data, err := base64.StdEncoding.DecodeString(o.Data)
		if err != nil {
			t.Fatal(err)
		}
		e.s3.Put(bucket, o.Key, data)
	}
	return e
}

func (e *env) put(key, value string) {
	e.t.Helper()
	if _, err := e.cli.Put(context.Background(), key, value); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) dump() map[string]string { return shelltest.Dump(e.t, e.cli) }

func (e *env) run(line string) (string, string, int) {
	e.t.Helper()
	cmds := append([]*framework.Command{apply.Tuned(e.inst, Build, e.tune)}, restore.Commands(e.inst)...)
	out, errs, code, _ := shelltest.Run(e.t, cmds, line)
	return out, errs, code
}

func (e *env) resetWAL(args string) (string, string, int) {
	return e.run("reset wal --target woodpecker --backup-dir " + e.dir + " " + args)
}

func (e *env) minio() string {
	return "--minio-address " + e.s3.Address + " --minio-bucket " + bucket + " --minio-root-path files"
}

// under lists the keys of a dump under prefix.
func under(d map[string]string, prefix string) []string {
	var out []string
	for k := range d {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func backups(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "heron-backup-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		// A phrase of a gate's detail may wrap (piped, at PipeWidth).
		if !strings.Contains(s, sub) && !strings.Contains(shelltest.Words(s), shelltest.Words(sub)) {
			t.Fatalf("output lacks %q:\n%s", sub, s)
		}
	}
}

func objectsUnder(s *s3test.Server, prefix string) []string {
	var out []string
	for _, k := range s.Keys(bucket) {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// Milvus 3.0's prefix {root}/woodpecker/: the plan lists every log with its
// id, segments, truncation and objects; --run deletes objects of the layout
// and the per-log keys, keeps logidgen and the other global keys and any
// object outside the layout; restore puts the etcd keys back byte for byte.
func TestMilvus30PrefixRunAndRestore(t *testing.T) {
	e := newEnv(t, "milvus30")
	e.s3.Put(bucket, "files/wp/1/notes.txt", []byte("operator's"))
	before := e.dump()

	out, errs, code := e.resetWAL(e.minio())
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "by-dev/woodpecker/", "by-dev-rootcoord-dml_2", "0:1", "by-dev-rootcoord-dml_10",
		"objects not of woodpecker's layout", "files/wp/1/notes.txt", "an etcd backup cannot bring them back")
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("dry run wrote %v", d)
	}
	if n := len(objectsUnder(e.s3, "files/wp/")); n != 18 {
		t.Fatalf("dry run deleted objects: %d left", n)
	}

	out, errs, code = e.resetWAL(e.minio() + " --run")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	after := e.dump()
	if left := under(after, "by-dev/woodpecker/logs"); len(left) > 0 {
		t.Fatalf("logs left: %v", left)
	}
	if left := under(after, "by-dev/woodpecker/readers/"); len(left) > 0 {
		t.Fatalf("readers left: %v", left)
	}
	for _, k := range []string{"logidgen", "instance", "version", "quorumidgen"} {
		key := "by-dev/woodpecker/" + k
		if after[key] != before[key] || after[key] == "" {
			t.Fatalf("%s changed: %q -> %q", key, before[key], after[key])
		}
	}
	if got := strings.Join(objectsUnder(e.s3, "files/wp/"), " "); got != "files/wp/1/notes.txt" {
		t.Fatalf("objects after the run: %s", got)
	}
	changed := shelltest.DiffKeys(before, after)
	for _, k := range changed {
		if !strings.HasPrefix(k, "by-dev/woodpecker/logs") && !strings.HasPrefix(k, "by-dev/woodpecker/readers/") {
			t.Fatalf("the run changed %s", k)
		}
	}

	bs := backups(t, e.dir)
	if len(bs) != 1 {
		t.Fatalf("backups: %v", bs)
	}
	out, errs, code = e.run("restore --file " + bs[0] + " --backup-dir " + e.dir + " --run")
	if code != 0 {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "warning: the run that made this backup also went to delete 17 objects (1454 bytes) in bucket a-bucket", "restore puts back the etcd keys only")
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("restore left differences: %v", d)
	}
}

// The legacy woodpecker/ prefix shared by two instances: only by-dev's logs
// go; the other instance's keys and objects survive byte for byte.
func TestLegacySharedPrefix(t *testing.T) {
	e := newEnv(t, "legacy")
	before := e.dump()
	objs := e.s3.Objects(bucket)
	out, errs, code := e.resetWAL(e.minio() + " --run")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	after := e.dump()
	mustContain(t, out+errs, "woodpecker/ (legacy")
	for _, k := range under(before, "woodpecker/") {
		other := strings.Contains(k, "other-rootcoord-dml_")
		global := !strings.HasPrefix(k, "woodpecker/logs") && !strings.HasPrefix(k, "woodpecker/readers/")
		if (other || global) && after[k] != before[k] {
			t.Fatalf("%s changed or went", k)
		}
		if strings.Contains(k, "by-dev-rootcoord-dml_") {
			if _, ok := after[k]; ok {
				t.Fatalf("%s left", k)
			}
		}
	}
	// the other instance's objects: its log ids (6 and 7, from the shared logidgen).
	otherIDs := map[string]bool{}
	for _, k := range under(before, "woodpecker/logs/other-rootcoord-dml_") {
		if !strings.Contains(strings.TrimPrefix(k, "woodpecker/logs/"), "/") {
			lm, err := models.DecodeWPLogMeta([]byte(before[k]))
			if err != nil {
				t.Fatal(err)
			}
			otherIDs[models.WoodpeckerLogObjectPrefix("files", lm.LogID)] = true
		}
	}
	if len(otherIDs) != 2 {
		t.Fatalf("other instance's logs: %v", otherIDs)
	}
	left := e.s3.Objects(bucket)
	for k, v := range objs {
		keep := false
		for p := range otherIDs {
			keep = keep || strings.HasPrefix(k, p)
		}
		if keep && left[k] == nil {
			t.Fatalf("other instance's object %s deleted", k)
		}
		if keep && string(left[k]) != string(v) {
			t.Fatalf("other instance's object %s changed", k)
		}
		if !keep && left[k] != nil {
			t.Fatalf("object %s left", k)
		}
	}
	// The backup holds keys outside the root path; restore puts them back.
	bs := backups(t, e.dir)
	if len(bs) != 1 {
		t.Fatalf("backups: %v", bs)
	}
	b, err := os.ReadFile(bs[0])
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, strings.SplitN(string(b), "\n", 2)[0], `"prefixes":["woodpecker/"]`)
	out, errs, code = e.run("restore --file " + bs[0] + " --backup-dir " + e.dir + " --run")
	if code != 0 {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errs)
	}
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("restore left differences: %v", d)
	}
}

// --pchannel scopes the run to that pchannel's log (dml_1, not dml_10).
func TestPChannelScope(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	out, errs, code := e.resetWAL(e.minio() + " --pchannel by-dev-rootcoord-dml_1 --run")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	for _, k := range shelltest.DiffKeys(before, e.dump()) {
		if !strings.HasPrefix(k, "by-dev/woodpecker/logs/by-dev-rootcoord-dml_1/") && k != "by-dev/woodpecker/logs/by-dev-rootcoord-dml_1" {
			t.Fatalf("a scoped run changed %s", k)
		}
	}
	if _, ok := e.dump()["by-dev/woodpecker/logs/by-dev-rootcoord-dml_10"]; !ok {
		t.Fatal("dml_10 went with dml_1")
	}
	// dml_1 is log id 2 in the fixture.
	if n := len(objectsUnder(e.s3, "files/wp/2/")); n != 0 {
		t.Fatalf("%d objects of dml_1 left", n)
	}
	if n := len(objectsUnder(e.s3, "files/wp/4/")); n == 0 {
		t.Fatal("dml_10's objects went")
	}
	if _, _, code := e.resetWAL("--pchannel by-dev-rootcoord-dml_9"); code != framework.ExitUsage {
		t.Fatalf("unknown pchannel: exit %d", code)
	}
}

// A bucket that does not exist fails with nothing written; a wrong root path
// finds no object and warns.
func TestWrongBucketAndRootPath(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	out, errs, code := e.resetWAL("--minio-address " + e.s3.Address + " --minio-bucket nope --run")
	if code == 0 || !strings.Contains(errs, "bucket nope does not exist") {
		t.Fatalf("wrong bucket: exit %d\n%s%s", code, out, errs)
	}
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("wrong bucket wrote %v", d)
	}
	out, errs, code = e.resetWAL("--minio-address " + e.s3.Address + " --minio-bucket " + bucket + " --minio-root-path elsewhere")
	if code != 0 {
		t.Fatalf("wrong root: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "has 1 segments in etcd but no object matched under elsewhere/wp/1/")
}

// Without the minio flags the plan says the objects stay and why; local and
// service storage refuse without --allow-data-left.
func TestStorageWithoutObjects(t *testing.T) {
	e := newEnv(t, "milvus30")
	out, errs, code := e.resetWAL("")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "logs' objects stay behind", "log ids are never reused")
	before := e.dump()
	out, errs, code = e.resetWAL("--storage-type local --run")
	if code != framework.ExitRefused {
		t.Fatalf("local without --allow-data-left: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out+errs, "--allow-data-left", "streamingnode's disk")
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("refused run wrote %v", d)
	}
	e.put("by-dev/config/woodpecker/storage/type", "local")
	out, errs, code = e.resetWAL("--run")
	if code != framework.ExitRefused {
		t.Fatalf("local from the etcd config override: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "local (by-dev/config/woodpecker/storage/type)")
	if _, errs, code := e.resetWAL(e.minio()); code != framework.ExitUsage || !strings.Contains(errs, "--storage-type minio") {
		t.Fatalf("--minio-address with local storage in etcd: exit %d\n%s", code, errs)
	}
	if d := shelltest.DiffKeys(before, e.dump()); len(d) != 1 {
		t.Fatalf("refused runs wrote %v", d)
	}
	out, errs, code = e.resetWAL("--storage-type service --allow-data-left --run")
	if code != 0 {
		t.Fatalf("service with --allow-data-left: exit %d\n%s%s", code, out, errs)
	}
	if left := under(e.dump(), "by-dev/woodpecker/logs"); len(left) > 0 {
		t.Fatalf("logs left: %v", left)
	}
	if n := len(objectsUnder(e.s3, "files/wp/")); n != 17 {
		t.Fatalf("objects touched without --minio-address: %d", n)
	}
}

// An interrupted run (stopped after its first transaction) leaves the logs
// listed; restore of its backup puts every etcd key back byte for byte; a
// re-run completes.
func TestInterruptedRun(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	e.tune = func(o *apply.Options) {
		o.AfterTxn = func(n int) error { return context.Canceled }
	}
	out, errs, code := e.resetWAL(e.minio() + " --max-txn-ops 3 --run")
	if code == 0 {
		t.Fatalf("interrupted run: exit 0\n%s%s", out, errs)
	}
	mid := e.dump()
	if len(shelltest.DiffKeys(before, mid)) == 0 {
		t.Fatal("the interrupted run wrote nothing")
	}
	if len(under(mid, "by-dev/woodpecker/logs/")) == 0 {
		t.Fatal("no log left listed after the interruption")
	}
	e.tune = nil
	bs := backups(t, e.dir)
	if len(bs) != 1 {
		t.Fatalf("backups: %v", bs)
	}
	out, errs, code = e.run("restore --file " + bs[0] + " --backup-dir " + e.dir + " --run")
	if code != 0 {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errs)
	}
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("restore left differences: %v", d)
	}
	e.tune = func(o *apply.Options) {
		o.AfterTxn = func(n int) error { return context.Canceled }
	}
	if _, _, code := e.resetWAL(e.minio() + " --max-txn-ops 3 --run"); code == 0 {
		t.Fatal("second interrupted run: exit 0")
	}
	e.tune = nil
	out, errs, code = e.resetWAL(e.minio() + " --run")
	if code != 0 {
		t.Fatalf("re-run: exit %d\n%s%s", code, out, errs)
	}
	if left := under(e.dump(), "by-dev/woodpecker/logs"); len(left) > 0 {
		t.Fatalf("logs left after the re-run: %v", left)
	}
	mustContain(t, out, "verify: ok; ", "objects (", "none left")
}

// Credentials reach neither the output nor the backup (its header's command
// line names the flags heron needs again, not the keys).
func TestCredentialsNeverWritten(t *testing.T) {
	e := newEnv(t, "milvus30")
	t.Setenv("MINIO_SECRET_ACCESS_KEY", "S3cr3tFromEnv")
	out, errs, code := e.resetWAL(e.minio() + " --minio-access-key-id AKIDsecretid --run")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	bs := backups(t, e.dir)
	if len(bs) != 1 {
		t.Fatalf("backups: %v", bs)
	}
	b, err := os.ReadFile(bs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"AKIDsecretid", "S3cr3tFromEnv"} {
		if strings.Contains(out+errs+string(b), secret) {
			t.Fatalf("%s written", secret)
		}
	}
}

// Every prefix a release (or an old heron) may use: the fixture's keys moved
// under {root}/{--wp-meta-prefix} and under {root}/wp are emptied the same
// way, and the global keys there are kept.
func TestOtherPrefixes(t *testing.T) {
	for _, tc := range []struct{ prefix, flag string }{
		{"by-dev/custom-wp", "--wp-meta-prefix custom-wp"},
		{"by-dev/wp", ""},
		// woodpecker.meta.prefix set only in milvus.yaml: found by its LogMeta (issue 28 §3).
		{"by-dev/yaml-only", ""},
	} {
		t.Run(tc.prefix, func(t *testing.T) {
			e := newEnv(t, "milvus30")
			for k, v := range e.dump() {
				if rest, ok := strings.CutPrefix(k, "by-dev/woodpecker/"); ok {
					if _, err := e.cli.Delete(context.Background(), k); err != nil {
						t.Fatal(err)
					}
					e.put(tc.prefix+"/"+rest, v)
				}
			}
			before := e.dump()
			out, errs, code := e.resetWAL(tc.flag + " --run")
			if code != 0 {
				t.Fatalf("run: exit %d\n%s%s", code, out, errs)
			}
			mustContain(t, out, tc.prefix+"/")
			after := e.dump()
			for _, k := range under(before, tc.prefix+"/") {
				_, left := after[k]
				perLog := strings.Contains(k, "by-dev-rootcoord-dml_") || strings.HasPrefix(k, tc.prefix+"/readers/")
				if perLog && left {
					t.Fatalf("%s left", k)
				}
				if !perLog && !left {
					t.Fatalf("%s deleted", k)
				}
			}
		})
	}
}

// The kit deletes the objects (the plan's effect outside etcd) once the
// backup is published and before the first etcd write: at the backup every
// object is there and etcd untouched; after the first transaction no
// object of the layout is left. The question names both; the result says
// what was deleted outside etcd.
func TestObjectsFirstEtcdSecond(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	var atBackup, atFirstTxn int
	var etcdAtBackup []string
	e.tune = func(o *apply.Options) {
		o.AfterBackup = func(string) error {
			atBackup = len(objectsUnder(e.s3, "files/wp/"))
			etcdAtBackup = shelltest.DiffKeys(before, e.dump())
			return nil
		}
		o.AfterTxn = func(n int) error {
			if n == 1 {
				atFirstTxn = len(objectsUnder(e.s3, "files/wp/"))
			}
			return nil
		}
	}
	out, errs, code := e.resetWAL(e.minio() + " --max-txn-ops 4 --run")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	if atBackup != 17 || len(etcdAtBackup) > 0 || atFirstTxn != 0 {
		t.Fatalf("objects at the backup %d (etcd changed: %v), at the first transaction %d", atBackup, etcdAtBackup, atFirstTxn)
	}
	mustContain(t, errs, "reset wal: delete: 17/17 objects (100.0%)")
	mustContain(t, out, "reset wal (woodpecker): outside etcd, deleted 17 of the 17 objects (1454 bytes) in bucket a-bucket, files/wp/ on "+e.s3.Address,
		"wrote 15 of 15 keys", "verify: ok; 17 objects (1454 bytes) of the logs deleted")
	lines, _, code := e.resetWAL(e.minio() + " --run --format line")
	if code != 0 || !strings.Contains(lines, `run="reset wal" keys=0`) || strings.Contains(lines, "external") {
		t.Fatalf("re-run: exit %d\n%s", code, lines)
	}
}

func TestQuestionCountsTheObjects(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	var asked string
	var out, stderr strings.Builder
	sh := framework.NewShell(shelltest.State{Cmds: Commands(e.inst)}, &out, &stderr)
	sh.SetConfirm(func(_ context.Context, q string) (bool, error) { asked = q; return false, nil })
	if err := sh.Run(context.Background(), "reset wal --target woodpecker --backup-dir "+e.dir+" "+e.minio()+" --run"); err != nil {
		t.Fatal(err)
	}
	want := "first delete 17 objects (1454 bytes) in bucket a-bucket, files/wp/ on " + e.s3.Address +
		" (outside etcd: the backup cannot bring them back), then apply these 15 key changes to by-dev? [y/N] "
	if !strings.HasSuffix(asked, "\n"+want) || !strings.Contains(asked, "after the backup into "+e.dir+"\n") {
		t.Fatalf("asked %q\nwant  %q", asked, want)
	}
	if n := len(objectsUnder(e.s3, "files/wp/")); n != 17 || len(shelltest.DiffKeys(before, e.dump())) > 0 {
		t.Fatalf("a run not confirmed deleted objects (%d left) or wrote", n)
	}
	// Without --minio-address nothing is deleted outside etcd: the
	// question is every write command's.
	if err := sh.Run(context.Background(), "reset wal --target woodpecker --backup-dir "+e.dir+" --run"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(asked, "\napply these 15 key changes to by-dev? [y/N] ") {
		t.Fatalf("asked %q", asked)
	}
}

// A delete that fails stops the run before any etcd write: the error says
// nothing was written to etcd and what was deleted outside it; a re-run
// completes. A bucket removed between the plan and the run deletes nothing.
func TestFailedObjectDeleteWritesNothingToEtcd(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	// dml_1 is log id 2 in the fixture: 5 objects.
	e.tune = func(o *apply.Options) {
		o.AfterBackup = func(string) error { e.s3.FailDeletes("files/wp/2/"); return nil }
	}
	out, errs, code := e.resetWAL(e.minio() + " --run")
	if code != framework.ExitFailed {
		t.Fatalf("failing delete: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, errs, "reset wal: delete objects failed", "the test fails deletes under files/wp/2/",
		"nothing was written to etcd", "outside etcd it deleted 12 of the 17 objects (1454 bytes) in bucket a-bucket", "run the command again")
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("a failed object delete wrote %v", d)
	}
	if got := objectsUnder(e.s3, "files/wp/"); len(got) != 5 || len(objectsUnder(e.s3, "files/wp/2/")) != 5 {
		t.Fatalf("objects left: %v", got)
	}
	if strings.Contains(out, "STOPPED") || strings.Contains(out, "verify") {
		t.Fatalf("a run stopped before etcd reports a split:\n%s", out)
	}
	e.s3.FailDeletes("")
	e.tune = nil
	out, errs, code = e.resetWAL(e.minio() + " --run")
	if code != 0 {
		t.Fatalf("re-run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "deleted 5 of the 5 objects", "verify: ok; ")
	if left := under(e.dump(), "by-dev/woodpecker/logs"); len(left) > 0 || len(objectsUnder(e.s3, "files/wp/")) > 0 {
		t.Fatalf("after the re-run: logs %v, objects %v", left, objectsUnder(e.s3, "files/wp/"))
	}

	e = newEnv(t, "milvus30")
	before = e.dump()
	e.tune = func(o *apply.Options) {
		o.AfterBackup = func(string) error { e.s3.RemoveBucket(bucket); return nil }
	}
	out, errs, code = e.resetWAL(e.minio() + " --run")
	if code != framework.ExitFailed {
		t.Fatalf("bucket gone: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, errs, "nothing was written to etcd", "deleted 0 of the 17 objects", "bucket a-bucket: The specified bucket does not exist")
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("a run whose bucket went wrote %v", d)
	}
}

// A plan that deletes objects cannot be carried by a plan file (no
// credentials): --plan-out says so, and apply --file refuses it, naming the
// objects and the command to run; a plan without --minio-address applies.
func TestApplyFileRefusesAPlanWithObjects(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	plan := filepath.Join(e.dir, "plan.jsonl")
	out, errs, code := e.resetWAL(e.minio() + " --plan-out " + plan)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, errs, "plan saved: "+plan, "also would delete 17 objects (1454 bytes)", "apply --file refuses it")
	cmds := append([]*framework.Command{apply.Tuned(e.inst, Build, nil)}, applyplan.Commands(e.inst)...)
	out, errs, code, _ = shelltest.Run(t, cmds, "apply --file "+plan+" --backup-dir "+e.dir+" --run")
	if code != framework.ExitRefused {
		t.Fatalf("apply --file: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "REFUSED  nothing to do outside etcd", "would also delete 17 objects (1454 bytes) in bucket a-bucket",
		"a plan file holds no credentials", "reset wal --target woodpecker --minio-address "+e.s3.Address)
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 || len(objectsUnder(e.s3, "files/wp/")) != 17 {
		t.Fatalf("a refused apply wrote %v or deleted objects", d)
	}
	plain := filepath.Join(e.dir, "plain.jsonl")
	if _, errs, code := e.resetWAL("--plan-out " + plain); code != 0 || !strings.Contains(errs, "apply --file "+plain+" --expect-digest ") {
		t.Fatalf("dry run without objects: exit %d\n%s", code, errs)
	}
	out, errs, code, _ = shelltest.Run(t, cmds, "apply --file "+plain+" --backup-dir "+e.dir+" --run")
	if code != 0 {
		t.Fatalf("apply --file without objects: exit %d\n%s%s", code, out, errs)
	}
	mustContain(t, out, "ok  nothing to do outside etcd")
	if left := under(e.dump(), "by-dev/woodpecker/logs"); len(left) > 0 || len(objectsUnder(e.s3, "files/wp/")) != 17 {
		t.Fatalf("apply --file: logs left %v", left)
	}
}

// A datacoord session that registers after the question, while the backup
// is published, stops reset wal right before it deletes the logs' objects
// (which no backup brings back): every object and every etcd key stays,
// the refusal (exit 3) names the session.
func TestSessionBeforeTheObjectDeletes(t *testing.T) {
	e := newEnv(t, "milvus30")
	before := e.dump()
	session := e.inst.Layout.Meta("session/datacoord")
	e.tune = func(o *apply.Options) {
		o.AfterBackup = func(string) error {
			lease, err := e.cli.Grant(context.Background(), 60)
			if err != nil {
				return err
			}
			_, err = e.cli.Put(context.Background(), session, `{"ServerName":"datacoord"}`, clientv3.WithLease(lease.ID))
			return err
		}
	}
	out, errs, code := e.resetWAL(e.minio() + " --run --yes")
	if n := len(objectsUnder(e.s3, "files/wp/")); n != 17 {
		t.Fatalf("%d of 17 objects left (exit %d)\n%s%s", n, code, out, errs)
	}
	if code != framework.ExitRefused || !strings.Contains(errs, session) || !strings.Contains(out+errs, "nothing was written") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	after := e.dump()
	delete(after, session)
	if d := shelltest.DiffKeys(before, after); len(d) != 0 {
		t.Fatalf("etcd changed: %v", d)
	}
}
