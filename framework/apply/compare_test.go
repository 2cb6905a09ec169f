package apply_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
)

// planFile writes a plan file with header h and entries, and opens it.
func planFile(t *testing.T, h apply.Header, entries []apply.Entry) *apply.BackupReader {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.jsonl")
	bw, err := apply.CreateBackup(path, h)
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
	br, err := apply.OpenBackup(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	return br
}

func put(key, old, new string, rev int64) apply.Entry {
	return apply.Entry{Key: key, Value: []byte(old), ModRevision: rev, New: []byte(new), HasNew: true}
}

func op(key, old, new string, rev int64) apply.Op {
	return apply.Op{Key: key, Original: []byte(old), Value: []byte(new), ModRevision: rev}
}

// The comparison finds each way a file differs from the plan made again,
// by key, also when the two orders part (a new key, a key gone), and
// passes a file equal op for op (a mod revision alone is no difference:
// the bytes are what the ops are decided from).
func TestComparisonNamesEachDifference(t *testing.T) {
	h := apply.Header{Command: "flip", RootPath: "r"} // an edited header: no prefixes
	file := []apply.Entry{
		put("r/a", "1", "x", 5),
		put("r/b", "1", "x", 5),
		put("r/c", "1", "x", 5),
		{Key: "r/d", Value: []byte("1"), ModRevision: 5, Delete: true},
		put("r/e", "1", "garbage", 5),
		put("r/g", "1", "x", 5),
		put("other/k", "", "x", 0),
		put("r/h", "1", "x", 5),
	}
	file[6].Absent = true
	again := []apply.Op{
		op("r/a", "1", "x", 9), // equal (another mod revision)
		op("r/b", "2", "x", 9), // old value changed
		op("r/c", "1", "x", 0), // absent now... as the plan claims it existed
		op("r/d", "1", "x", 5), // put, the file deletes
		op("r/e", "1", "x", 5), // new value differs
		op("r/f", "", "x", 0),  // new key
		op("r/h", "1", "x", 5), // equal, out of step (r/g gone before it)
	}
	again[2].Original = nil
	c := apply.NewComparison(planFile(t, h, file), "flip", []string{"r/"})
	for _, o := range again {
		if err := c.Op(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	want := []apply.Difference{
		{Key: "other/k", What: "outside what flip writes (r/)"},
		{Key: "r/b", What: apply.DiffOldValue},
		{Key: "r/c", What: apply.DiffOldAbsent},
		{Key: "r/d", What: apply.DiffOpKind},
		{Key: "r/e", What: apply.DiffNewValue},
		{Key: "r/g", What: apply.DiffKeyGone},
		{Key: "r/f", What: apply.DiffNewKey},
	}
	if !slices.Equal(c.Differences, want) || c.Total != int64(len(want)) || c.Compared != int64(len(again)) {
		t.Fatalf("differences %d of %d compared:\n%v\nwant\n%v", c.Total, c.Compared, c.Differences, want)
	}

	same := apply.NewComparison(planFile(t, h, file[:1]), "flip", []string{"r/"})
	if err := same.Op(again[0]); err != nil || same.Finish() != nil || same.Total != 0 {
		t.Fatalf("an equal file: %v %v", same.Differences, err)
	}
}

// A key the file holds twice while the two sides are out of step (an
// edited line before the true one) is a difference, and the edited line
// is compared: the true one does not hide it.
func TestComparisonNamesAKeyHeldTwice(t *testing.T) {
	h := apply.Header{Command: "flip", RootPath: "r"}
	file := []apply.Entry{put("r/b", "edited", "x", 5), put("r/b", "1", "x", 5), put("r/a", "1", "x", 5)}
	c := apply.NewComparison(planFile(t, h, file), "flip", []string{"r/"})
	for _, o := range []apply.Op{op("r/a", "1", "x", 5), op("r/b", "1", "x", 5)} {
		if err := c.Op(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	if want := []apply.Difference{{Key: "r/b", What: apply.DiffTwice}, {Key: "r/b", What: apply.DiffOldValue}}; !slices.Equal(c.Differences, want) || c.Total != 2 {
		t.Fatalf("differences %v, want %v", c.Differences, want)
	}
}

// A file whose header names a rule carries no new values: its lines are
// compared by key, op and old value, and its header with the plan made
// again (a stripped rule is a difference, not a licence to write "new").
func TestComparisonWithARule(t *testing.T) {
	h := apply.Header{Command: "flip", RootPath: "r", Rule: "flip-rule", RuleParams: []byte(`{"v": 1}`), Prefixes: []string{"r/"}}
	c := apply.NewComparison(planFile(t, h, []apply.Entry{{Key: "r/a", Value: []byte("1"), ModRevision: 5}}), "flip", []string{"r/"})
	if err := c.Op(op("r/a", "1", "anything", 5)); err != nil || c.Finish() != nil || c.Total != 0 {
		t.Fatalf("a rule's file: %v %v", c.Differences, err)
	}
	again := h
	again.RuleParams = []byte(`{"v":1}`)
	if d := apply.HeaderDifferences(h, again); len(d) != 0 {
		t.Fatalf("the same params spaced otherwise differ: %v", d)
	}
	stripped := h
	stripped.Rule, stripped.RuleParams, stripped.Prefixes = "", nil, nil
	d := apply.HeaderDifferences(stripped, h)
	if len(d) != 3 || d[0].Key != "(header) rule" || d[0].What != `the file says "", heron plans "flip-rule"` {
		t.Fatalf("stripped header: %v", d)
	}
}

// A write command registers itself by name on its store; Replay parses the
// recorded flags with the command's parser and runs its build, every op
// through the tap; an unknown command or a flag a plan never records (a
// write flag) is a *RecordedError.
func TestRegistryReplaysTheRecordedCommand(t *testing.T) {
	cli, _ := etcdtest.Start(t)
	seedKeys(t, cli, 3, "old")
	store := flipStore{cli}
	if apply.Registered(store, "flip") {
		t.Fatal("registered before its command was made")
	}
	apply.Command(store, flipBuild)
	if !apply.Registered(store, "flip") || apply.Registered(flipStore{}, "flip") {
		t.Fatal("flip is not registered on its store alone")
	}
	var got []string
	pl, h, err := apply.Replay(context.Background(), store, apply.Header{Planner: "flip", Params: []string{"--value=x"}}, new(apply.Stage),
		func(o apply.Op) error {
			got = append(got, o.Key+"="+string(o.Original)+">"+string(o.Value))
			return nil
		})
	if err != nil || pl.Keys != 3 || h.Planner != "flip" || !slices.Equal(h.Params, []string{"--value=x"}) || h.Heron != apply.HeronBuild() ||
		!slices.Equal(got, []string{"r/meta/k00=old>x", "r/meta/k01=old>x", "r/meta/k02=old>x"}) {
		t.Fatalf("replay: %v %+v %v %v", err, h, got, pl)
	}
	defer func() {
		apply.Forget(store)
		if apply.Registered(store, "flip") {
			t.Error("flip is still registered on a forgotten store")
		}
	}()
	for _, bad := range []apply.Header{{Planner: "flop"}, {Planner: "flip", Params: []string{"--backup-dir=/"}}, {Planner: "flip", Params: []string{"--value"}}} {
		var re *apply.RecordedError
		if _, _, err := apply.Replay(context.Background(), store, bad, new(apply.Stage), nil); !errors.As(err, &re) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}
