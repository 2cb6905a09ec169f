package apply

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heron-shell/heron/tests/shelltest"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/tests/etcdtest"
)

func seed(t testing.TB, cli *clientv3.Client, kvs map[string]string) map[string]int64 {
	t.Helper()
	revs := map[string]int64{}
	for k, v := range kvs {
		resp, err := cli.Put(context.Background(), k, v)
		if err != nil {
			t.Fatal(err)
		}
		revs[k] = resp.Header.Revision
	}
	return revs
}

var dump = shelltest.Dump

func rev(t testing.TB, cli *clientv3.Client) int64 {
	t.Helper()
	resp, err := cli.Get(context.Background(), "x", clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

func readBackup(t testing.TB, path string) (Header, []Entry) {
	t.Helper()
	br, err := OpenBackup(path)
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	var out []Entry
	for {
		e, ok, err := br.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return br.Header, out
		}
		out = append(out, e)
	}
}

func TestApplyPutsDeletesCreatesAndBacksUp(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	revs := seed(t, cli, map[string]string{"a": "1", "b": "2", "c": "3", "keep": "k"})
	ops := []Op{
		{Key: "a", ModRevision: revs["a"], Value: []byte("one"), Original: []byte("1")},
		{Key: "b", ModRevision: revs["b"], Delete: true, Original: []byte("2"), Phase: 1},
		{Key: "new", ModRevision: 0, Value: []byte("n"), Phase: 2},
		{Key: "c", ModRevision: revs["c"], Value: []byte("three"), Original: []byte("3"), Phase: 2},
	}
	path := filepath.Join(t.TempDir(), "b.jsonl")
	var progress bytes.Buffer
	res, err := Apply(context.Background(), cli, Slice(ops), Options{
		BackupPath: path, Header: Header{Command: "test", RootPath: "r", Revision: 7},
		Progress: &progress, Label: "test", MaxTxnOps: 2,
		AfterBackup: func(p string) error {
			// The backup is complete and named before the first write.
			if _, entries := readBackup(t, p); len(entries) != 4 {
				t.Errorf("backup has %d entries", len(entries))
			}
			if dump(t, cli)["a"] != "1" {
				t.Error("written before the backup")
			}
			return nil
		},
	}, twoPass{Total: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Keys != 4 || res.Puts != 3 || res.Deletes != 1 || res.Written != 4 || res.Backup != path {
		t.Fatalf("result %+v", res)
	}
	// Phases split the transactions: {a} {b} {new c}.
	if res.Txns != 3 {
		t.Fatalf("txns %d, want 3", res.Txns)
	}
	got := dump(t, cli)
	want := map[string]string{"a": "one", "c": "three", "new": "n", "keep": "k"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("etcd %v, want %v", got, want)
	}
	h, entries := readBackup(t, path)
	if h.Command != "test" || h.Revision != 7 || h.RootPath != "r" || h.Format != BackupFormat || h.Created.IsZero() {
		t.Fatalf("header %+v", h)
	}
	if len(entries) != 4 || entries[0].Key != "a" || string(entries[0].Value) != "1" || entries[0].ModRevision != revs["a"] ||
		!entries[1].Delete || !entries[2].Absent || entries[2].ModRevision != 0 {
		t.Fatalf("entries %+v", entries)
	}
	if !strings.Contains(progress.String(), "test: write: 4/4 keys") {
		t.Fatalf("progress %q", progress.String())
	}
	// No temporary file is left beside the backup.
	files, _ := os.ReadDir(filepath.Dir(path))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
}

func TestBackupRefusesExistingFileAndUnwritableDir(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	revs := seed(t, cli, map[string]string{"a": "1"})
	ops := []Op{{Key: "a", ModRevision: revs["a"], Value: []byte("x"), Original: []byte("1")}}
	dir := t.TempDir()
	path := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r0 := rev(t, cli)
	if _, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: path}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err %v", err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		// root writes anywhere: use a path whose folder does not exist.
		ro = filepath.Join(dir, "missing", "deeper")
	}
	_, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: filepath.Join(ro, "b.jsonl")})
	if err == nil || !strings.Contains(err.Error(), "backup") {
		t.Fatalf("err %v", err)
	}
	if rev(t, cli) != r0 {
		t.Fatal("etcd was written")
	}
}

func TestConflictNamesTheKey(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	revs := seed(t, cli, map[string]string{"a": "1", "b": "2", "c": "3"})
	ops := []Op{
		{Key: "a", ModRevision: revs["a"], Value: []byte("x"), Original: []byte("1")},
		{Key: "b", ModRevision: revs["b"], Value: []byte("x"), Original: []byte("2")},
		{Key: "c", ModRevision: revs["c"], Value: []byte("x"), Original: []byte("3"), Phase: 1},
	}
	changed, _ := cli.Put(context.Background(), "b", "changed")
	_, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: filepath.Join(t.TempDir(), "b"), Header: Header{Revision: 5}, MaxTxnOps: 1, Concurrency: 1})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Key != "b" || ce.Read != revs["b"] || ce.Now != changed.Header.Revision || ce.Written != 1 {
		t.Fatalf("err %v", err)
	}
	for _, s := range []string{"key b changed since the plan was read at revision 5", "another writer (another heron run, or Milvus) moved the instance on", "nothing after it was written", "before completing or rolling back"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("%q lacks %q", err, s)
		}
	}
	if got := dump(t, cli); got["c"] != "3" || got["a"] != "x" {
		t.Fatalf("etcd %v", got)
	}
}

func TestTransactionLimits(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	var ops []Op
	for i := 0; i < 10; i++ {
		ops = append(ops, Op{Key: fmt.Sprintf("k%02d", i), Value: bytes.Repeat([]byte{'v'}, 100)})
	}
	// A value larger than the byte limit goes alone.
	ops = append(ops, Op{Key: "big", Value: bytes.Repeat([]byte{'b'}, 5000)})
	ops = append(ops, Op{Key: "z", Value: []byte("z")})
	var sizes []int
	b := newBatcher(Options{MaxTxnOps: 4, MaxTxnBytes: 1000}.withDefaults(), seedOf(), func(bt *batch) error {
		sizes = append(sizes, len(bt.ops))
		return nil
	})
	for _, op := range ops {
		if err := b.add(op); err != nil {
			t.Fatal(err)
		}
	}
	_ = b.flush()
	if fmt.Sprint(sizes) != "[4 4 2 1 1]" {
		t.Fatalf("batches %v", sizes)
	}
	res, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: filepath.Join(t.TempDir(), "b"), MaxTxnOps: 4, MaxTxnBytes: 1000})
	if err != nil || res.Txns != 5 {
		t.Fatalf("%+v %v", res, err)
	}
	if err := b.add(Op{Key: "z"}); err == nil {
		// a new batch started after flush: same key in another txn is allowed
	} else {
		t.Fatal(err)
	}
	if err := b.add(Op{Key: "z"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("dup err %v", err)
	}
	if err := b.add(Op{Key: "y", Phase: -1}); err == nil || !strings.Contains(err.Error(), "phase order") {
		t.Fatalf("phase err %v", err)
	}
}

func TestInterruptAfterTxnAndResume(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	kvs := map[string]string{}
	for i := 0; i < 20; i++ {
		kvs[fmt.Sprintf("k%02d", i)] = "old"
	}
	seed(t, cli, kvs)
	// A source that re-reads etcd and plans "old -> new" like a real plan.
	src := func(ctx context.Context, yield func(Op) error) error {
		resp, err := cli.Get(ctx, "k", clientv3.WithPrefix())
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			if string(kv.Value) == "new" {
				continue
			}
			if err := yield(Op{Key: string(kv.Key), ModRevision: kv.ModRevision, Value: []byte("new"), Original: kv.Value}); err != nil {
				return err
			}
		}
		return nil
	}
	dir := t.TempDir()
	stop := errors.New("simulated crash")
	res, err := Apply(context.Background(), cli, src, Options{BackupPath: filepath.Join(dir, "1"), MaxTxnOps: 3, Concurrency: 1,
		AfterTxn: func(n int) error {
			if n == 2 {
				return stop
			}
			return nil
		}})
	var ie *InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, stop) || res.Written != 6 || res.Txns != 2 {
		t.Fatalf("res %+v err %v", res, err)
	}
	n := 0
	for _, v := range dump(t, cli) {
		if v == "new" {
			n++
		}
	}
	if n != 6 {
		t.Fatalf("%d keys written, want 6", n)
	}
	res, err = Apply(context.Background(), cli, src, Options{BackupPath: filepath.Join(dir, "2"), MaxTxnOps: 3})
	if err != nil || res.Written != 14 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func TestSecondPassMustMatchBackup(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	calls := 0
	src := func(ctx context.Context, yield func(Op) error) error {
		calls++
		return yield(Op{Key: "k", Value: []byte(fmt.Sprint(calls))})
	}
	r0 := rev(t, cli)
	_, err := Apply(context.Background(), cli, src, Options{BackupPath: filepath.Join(t.TempDir(), "b")})
	if err == nil || !strings.Contains(err.Error(), "differs from what the backup holds") {
		t.Fatalf("err %v", err)
	}
	if rev(t, cli) != r0 {
		t.Fatal("written")
	}
	// A source that yields another count than the plan said writes nothing.
	_, err = Apply(context.Background(), cli, Slice([]Op{{Key: "k"}}), Options{BackupPath: filepath.Join(t.TempDir(), "b")}, twoPass{Total: 2})
	if err == nil || !strings.Contains(err.Error(), "counted 2 keys") {
		t.Fatalf("err %v", err)
	}
}

func TestStallTimeout(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	src := func(ctx context.Context, yield func(Op) error) error {
		select {
		case <-time.After(5 * time.Second):
			return errors.New("not cancelled")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	start := time.Now()
	_, err := Apply(context.Background(), cli, src, Options{BackupPath: filepath.Join(t.TempDir(), "b"), StallTimeout: 200 * time.Millisecond})
	var se *StallError
	if !errors.As(err, &se) || time.Since(start) > 3*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}

func TestBackupReaderRejectsTruncated(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	path := filepath.Join(t.TempDir(), "b")
	if _, err := Apply(context.Background(), cli, Slice([]Op{{Key: "k", Value: []byte("v")}, {Key: "k2", Value: []byte("v")}}), Options{BackupPath: path}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	for cut := 1; cut < len(lines)-1; cut++ {
		p := path + fmt.Sprint(cut)
		_ = os.WriteFile(p, []byte(strings.Join(lines[:cut], "")), 0o600)
		br, err := OpenBackup(p)
		if err != nil {
			t.Fatal(err)
		}
		for {
			_, ok, err := br.Next()
			if err != nil {
				break
			}
			if !ok {
				t.Fatalf("truncated at %d lines accepted", cut)
			}
		}
		br.Close()
	}
}

func seedOf() maphash.Seed { return maphash.MakeSeed() }

func TestReplayFromBackup(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	revs := seed(t, cli, map[string]string{"a": "1", "b": "2"})
	ops := []Op{
		{Key: "a", ModRevision: revs["a"], Value: []byte("1+"), Original: []byte("1")},
		{Key: "b", ModRevision: revs["b"], Value: []byte("2+"), Original: []byte("2"), Phase: 1},
	}
	calls := 0
	src := func(ctx context.Context, yield func(Op) error) error {
		calls++
		return Slice(ops)(ctx, yield)
	}
	rebuild := func(e Entry) (Op, error) {
		phase := 0
		if e.Key == "b" {
			phase = 1
		}
		return Op{Key: e.Key, ModRevision: e.ModRevision, Value: append(append([]byte{}, e.Value...), '+'), Original: e.Value, Phase: phase}, nil
	}
	res, err := Apply(context.Background(), cli, src, Options{BackupPath: filepath.Join(t.TempDir(), "b")}, twoPass{Replay: rebuild})
	if err != nil || res.Written != 2 || calls != 1 {
		t.Fatalf("%+v %v calls=%d", res, err, calls)
	}
	if got := dump(t, cli); got["a"] != "1+" || got["b"] != "2+" {
		t.Fatalf("%v", got)
	}
	// A replay that rebuilds other ops than pass 1 wrote nothing.
	revs = seed(t, cli, map[string]string{"a": "1", "b": "2"})
	ops[0].ModRevision, ops[1].ModRevision = revs["a"], revs["b"]
	r0 := rev(t, cli)
	_, err = Apply(context.Background(), cli, src, Options{BackupPath: filepath.Join(t.TempDir(), "b")},
		twoPass{Replay: func(e Entry) (Op, error) { op, _ := rebuild(e); op.Value = []byte("other"); return op, nil }})
	if err == nil || !strings.Contains(err.Error(), "differs from what the backup holds") || rev(t, cli) != r0 {
		t.Fatalf("err %v", err)
	}
}

// Pass 2 reads the backup without hashing it again: a byte of it changed
// after it was published (an old value, a mod revision) is still refused,
// by the transaction's check against pass 1's hash, before anything is
// written.
func TestReplayRefusesABackupChangedAfterPublishing(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	rebuild := func(e Entry) (Op, error) {
		return Op{Key: e.Key, ModRevision: e.ModRevision, Value: append(append([]byte{}, e.Value...), '+'), Original: e.Value}, nil
	}
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, change := range []string{"value", "mod_revision"} {
		t.Run(change, func(t *testing.T) {
			revs := seed(t, cli, map[string]string{"a": "1", "b": "2"})
			ops := []Op{
				{Key: "a", ModRevision: revs["a"], Value: []byte("1+"), Original: []byte("1")},
				{Key: "b", ModRevision: revs["b"], Value: []byte("2+"), Original: []byte("2")},
			}
			from, to := `"value":"`+enc("1")+`"`, `"value":"`+enc("9")+`"`
			if change == "mod_revision" {
				from, to = fmt.Sprintf(`"mod_revision":%d,`, revs["b"]), fmt.Sprintf(`"mod_revision":%d,`, revs["b"]-1)
			}
			r0 := rev(t, cli)
			_, err := Apply(context.Background(), cli, Slice(ops), Options{BackupPath: filepath.Join(t.TempDir(), "b"),
				AfterBackup: func(p string) error {
					b, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					if !bytes.Contains(b, []byte(from)) {
						t.Fatalf("no %s in the backup", from)
					}
					return os.WriteFile(p, bytes.Replace(b, []byte(from), []byte(to), 1), 0o600)
				}}, twoPass{Replay: rebuild})
			if err == nil || !strings.Contains(err.Error(), "differs from what the backup holds") || rev(t, cli) != r0 {
				t.Fatalf("a backup changed between the passes: want the transaction refused, nothing written; got %v", err)
			}
		})
	}
}
