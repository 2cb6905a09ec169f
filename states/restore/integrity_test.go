package restore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/tests/etcdtest"
	"github.com/heron-shell/heron/tests/shelltest"
)

// lines splits a backup file into its lines (without newlines).
func lines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// writeLines writes lines as a backup file; with resum, the end line's
// checksum is recomputed (a forger who knows the format).
func writeLines(t *testing.T, path string, ls []string, resum bool) {
	t.Helper()
	if resum {
		var body strings.Builder
		for _, l := range ls[:len(ls)-1] {
			body.WriteString(l + "\n")
		}
		sum := sha256.Sum256([]byte(body.String()))
		ls[len(ls)-1] = fmt.Sprintf(`{"end":true,"ops":%d,"sha256":"%s"}`, len(ls)-2, hex.EncodeToString(sum[:]))
	}
	if err := os.WriteFile(path, []byte(strings.Join(ls, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreRefusesATamperedBackup: a flipped bit inside a base64 value,
// and an injected entry outside the prefixes the reset writes, refuse the
// restore (exit 1) before anything is planned or written.
func TestRestoreRefusesATamperedBackup(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	backup := e.resetRun()
	ls := lines(t, backup)
	var h apply.Header
	if err := json.Unmarshal([]byte(ls[0]), &h); err != nil || fmt.Sprint(h.Prefixes) != "[by-dev/meta/ by-dev/config/]" {
		t.Fatalf("reset's header prefixes: %+v %v", h.Prefixes, err)
	}

	// A flipped bit in the value of line 2 that keeps it valid base64.
	var l map[string]any
	_ = json.Unmarshal([]byte(ls[1]), &l)
	v, _ := base64.StdEncoding.DecodeString(l["value"].(string))
	v[len(v)/2] ^= 0x04
	l["value"] = base64.StdEncoding.EncodeToString(v)
	b, _ := json.Marshal(l)
	flipped := append([]string{}, ls...)
	flipped[1] = string(b)
	bad := filepath.Join(e.dir, "flipped.jsonl")
	writeLines(t, bad, flipped, false)
	r0 := e.rev()
	for _, line := range []string{"restore --file " + bad, "restore --backup-dir " + e.dir + " --file " + bad + " --run"} {
		out, errs, code := e.run(line)
		if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, "checksum mismatch") || !strings.Contains(errs, bad) || out != "" {
			t.Fatalf("%s: exit %d\n%s\n%s", line, code, out, errs)
		}
	}

	// An injected allocator key, with the checksum recomputed: the prefix check refuses it.
	gid := base64.StdEncoding.EncodeToString([]byte("449000000000000000"))
	injected := append([]string{}, ls[:len(ls)-1]...)
	injected = append(injected, `{"key":"by-dev/kv/gid/idTimestamp","value":"`+gid+`","mod_revision":5,"op":"put"}`, "")
	inj := filepath.Join(e.dir, "injected.jsonl")
	writeLines(t, inj, injected, true)
	_, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + inj + " --run")
	if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, "by-dev/kv/gid/idTimestamp") ||
		!strings.Contains(errs, fmt.Sprintf("line %d", len(injected)-1)) || !strings.Contains(errs, "outside the prefixes") {
		t.Fatalf("injected: exit %d\n%s", code, errs)
	}
	// Injected without recomputing the checksum: refused by the checksum.
	writeLines(t, inj, injected[:len(injected)-1], false)
	f, _ := os.OpenFile(inj, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintln(f, ls[len(ls)-1])
	f.Close()
	if _, errs, code := e.run("restore --file " + inj + " --run"); code != framework.ExitFailed || e.rev() != r0 {
		t.Fatalf("injected, old checksum: exit %d\n%s", code, errs)
	}
	// A value that is not base64, with the checksum recomputed: the file's
	// check reads keys only (it decodes no segment value), the scan decodes
	// it and refuses, naming the line, before anything is written.
	l = map[string]any{}
	_ = json.Unmarshal([]byte(ls[1]), &l)
	l["value"] = "not*base64"
	b, _ = json.Marshal(l)
	undecodable := append([]string{}, ls[:len(ls)-1]...)
	undecodable[1] = string(b)
	undecodable = append(undecodable, "")
	und := filepath.Join(e.dir, "undecodable.jsonl")
	writeLines(t, und, undecodable, true)
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + und + " --run"); code != framework.ExitFailed || e.rev() != r0 ||
		!strings.Contains(errs, "line 2: value") || !strings.Contains(errs, "illegal base64") {
		t.Fatalf("a value that is not base64: exit %d\n%s", code, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-by-dev-restore-*")); len(m) != 0 {
		t.Fatalf("a refused restore left a backup: %v", m)
	}
}

// TestRestoreRefusesAnEntryTheRuleDoesNotWrite: a reset checkpoint backup
// holds only keys its rule writes. Entries added under the meta root, with
// the checksum recomputed (a collection key with other bytes, the absence
// of a key the reset never creates), are not keys the reset writes: the
// restore refuses them, naming the line, instead of putting back bytes
// nobody wrote (the moved-on gate cannot derive them and let them pass).
func TestRestoreRefusesAnEntryTheRuleDoesNotWrite(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	before := e.dump()
	backup := e.resetRun()
	ls := lines(t, backup)
	const info = "by-dev/meta/root-coord/database/collection-info/1/400"
	if _, ok := before[info]; !ok {
		t.Fatalf("the seed has no %s", info)
	}
	garbage := base64.StdEncoding.EncodeToString([]byte("garbage"))
	for _, add := range []string{
		`{"key":"` + info + `","value":"` + garbage + `","mod_revision":2,"phase":1,"op":"put"}`,
		`{"key":"` + info + `","value":"","absent":true,"mod_revision":0,"phase":1,"op":"put"}`,
	} {
		injected := append(append([]string{}, ls[:len(ls)-1]...), add, "")
		inj := filepath.Join(e.dir, "injected.jsonl")
		writeLines(t, inj, injected, true)
		r0 := e.rev()
		_, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + inj + " --run")
		if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, fmt.Sprintf("line %d: key %s is not one", len(injected)-1, info)) {
			t.Fatalf("%s: exit %d\n%s", add, code, errs)
		}
	}
	// A backup of another heron, whose rule may have decided that key
	// otherwise: refused the same, and restored with --force-moved-on once
	// the key changed since (unchanged since the plan, nobody wrote it: the
	// entry is not what that plan read, and --force-moved-on refuses it).
	var h map[string]any
	if err := json.Unmarshal([]byte(ls[0]), &h); err != nil {
		t.Fatal(err)
	}
	h["heron"] = "v0.0.1 (vcs 0000000, go1.20)"
	hb, _ := json.Marshal(h)
	other := append(append([]string{string(hb)}, ls[1:len(ls)-1]...), `{"key":"`+info+`","value":"`+garbage+`","mod_revision":2,"phase":1,"op":"put"}`, "")
	inj := filepath.Join(e.dir, "other.jsonl")
	writeLines(t, inj, other, true)
	r0 := e.rev()
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + inj + " --run"); code != framework.ExitFailed || e.rev() != r0 ||
		!strings.Contains(errs, "or the backup of v0.0.1 (vcs 0000000, go1.20) decided that key otherwise: --force-moved-on restores it anyway") {
		t.Fatalf("another heron's backup: exit %d\n%s", code, errs)
	}
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + inj + " --force-moved-on --run"); code != framework.ExitFailed || e.rev() != r0 ||
		!strings.Contains(errs, "that command never wrote it") {
		t.Fatalf("another heron's backup, --force-moved-on, the key unchanged since: exit %d\n%s", code, errs)
	}
	if _, err := e.cli.Put(context.Background(), info, "changed since"); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + inj + " --force-moved-on --run"); code != 0 {
		t.Fatalf("another heron's backup, --force-moved-on: exit %d\n%s", code, errs)
	}
	if got := e.dump()[info]; got != "garbage" {
		t.Fatalf("--force-moved-on put back %q", got)
	}
	if _, err := e.cli.Put(context.Background(), info, before[info]); err != nil {
		t.Fatal(err)
	}
	// The untouched backup restores.
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + backup + " --force-moved-on --run"); code != 0 {
		t.Fatalf("restore: exit %d\n%s", code, errs)
	}
	if d := shelltest.DiffKeys(before, e.dump()); len(d) != 0 {
		t.Fatalf("restore left %v", d)
	}
}

// TestRestoreRefusesAnEndlessRestoreOrder: restore reads the file once per
// group of its header's restore_order, and scans each of its prefixes; a
// header edited to hold many groups, or a prefix many times (checksum
// recomputed), is refused before the file is read again, instead of
// reading it once per group (or scanning once per prefix) for hours.
func TestRestoreRefusesAnEndlessRestoreOrder(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	backup := e.resetRun()
	ls := lines(t, backup)
	var h map[string]any
	if err := json.Unmarshal([]byte(ls[0]), &h); err != nil {
		t.Fatal(err)
	}
	var order [][]int
	const groups = 17 // a write command records at most 16
	for i := 8; i < 8+groups-2; i++ {
		order = append(order, []int{i})
	}
	h["restore_order"] = append(order, []int{7, 6}, []int{1, 2, 3, 4, 5})
	hb, _ := json.Marshal(h)
	ls[0] = string(hb)
	long := filepath.Join(e.dir, "long.jsonl")
	writeLines(t, long, ls, true)
	r0 := e.rev()
	_, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + long + " --run")
	if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, fmt.Sprintf("restore_order has %d groups", groups)) {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	// Its prefixes, each scanned whole, named again and again.
	if err := json.Unmarshal([]byte(lines(t, backup)[0]), &h); err != nil {
		t.Fatal(err)
	}
	h["prefixes"] = []string{"by-dev/meta/", "by-dev/meta/", "by-dev/config/"}
	hb, _ = json.Marshal(h)
	ls[0] = string(hb)
	writeLines(t, long, ls, true)
	_, errs, code = e.run("restore --backup-dir " + e.dir + " --file " + long + " --run")
	if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, "names 3 prefixes, some twice") {
		t.Fatalf("prefixes: exit %d\n%s", code, errs)
	}
}

// TestRestoreWithoutChecksum: a backup of an older heron (no checksum, no
// prefixes) restores only with --no-checksum, which the plan says; an
// injected key in it is still refused (the meta root and {root}/config/).
func TestRestoreWithoutChecksum(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	original := e.dump()
	backup := e.resetRun()
	ls := lines(t, backup)
	var h map[string]any
	_ = json.Unmarshal([]byte(ls[0]), &h)
	delete(h, "prefixes")
	b, _ := json.Marshal(h)
	ls[0] = string(b)
	ls[len(ls)-1] = fmt.Sprintf(`{"end":true,"ops":%d}`, len(ls)-2)
	old := filepath.Join(e.dir, "old.jsonl")
	writeLines(t, old, ls, false)

	r0 := e.rev()
	_, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + old + " --run")
	if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, "no checksum") || !strings.Contains(errs, "--no-checksum") {
		t.Fatalf("without --no-checksum: exit %d\n%s", code, errs)
	}
	out, errs, code := e.run("restore --no-checksum --format json --file " + old)
	var s Summary
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil || s.Checksum != "none" || !strings.Contains(strings.Join(s.Warnings, "\n"), "no checksum") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errs)
	}
	out, _, _ = e.run("restore --no-checksum --file " + old)
	if !strings.Contains(out, "warning: the backup has no checksum") {
		t.Fatalf("table plan: %s", out)
	}

	injected := append(append([]string{}, ls[:len(ls)-1]...), `{"key":"by-dev/kv/gid/idTimestamp","value":"","mod_revision":5,"op":"put"}`)
	injected = append(injected, fmt.Sprintf(`{"end":true,"ops":%d}`, len(injected)-1))
	inj := filepath.Join(e.dir, "old-injected.jsonl")
	writeLines(t, inj, injected, false)
	if _, errs, code := e.run("restore --no-checksum --backup-dir " + e.dir + " --file " + inj + " --run"); code != framework.ExitFailed || e.rev() != r0 ||
		!strings.Contains(errs, "by-dev/kv/gid/idTimestamp") {
		t.Fatalf("old backup with an injected key: exit %d\n%s", code, errs)
	}

	if _, errs, code := e.run("restore --no-checksum --backup-dir " + e.dir + " --file " + old + " --run"); code != 0 {
		t.Fatalf("--no-checksum --run: exit %d\n%s", code, errs)
	}
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ: %v", d)
	}
}

// TestRestoreChainOrderAndSplit: an interrupted restore leaves a split
// state; the reset run that completes it records the chain (it continues
// the first reset's backup, which holds the original values). Restoring the
// newest backup alone says the split state remains and which backup to
// restore next (not "verify: ok"); restoring that one then rolls back byte
// for byte.
func TestRestoreChainOrderAndSplit(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	original := e.dump()
	first := e.resetRun()
	e.tune = stopAfterTxns(3)
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + first + " --run"); code != framework.ExitFailed {
		t.Fatalf("interrupted restore: exit %d\n%s", code, errs)
	}
	e.tune = nil

	out, errs, code := e.run("reset checkpoint --target-wal kafka --max-txn-ops 5 --run --format json --backup-dir " + e.dir)
	if code != 0 {
		t.Fatalf("reset of the split state: exit %d\n%s\n%s", code, out, errs)
	}
	var rr struct {
		Applied apply.Result `json:"applied"`
	}
	if err := json.Unmarshal([]byte(out), &rr); err != nil {
		t.Fatal(err)
	}
	second := rr.Applied.Backup
	absFirst, _ := filepath.Abs(first)
	if rr.Applied.OriginalBackup != absFirst || rr.Applied.Continues != absFirst || !strings.Contains(errs, "the backup of the original values is "+absFirst) {
		t.Fatalf("reset of the split state: %+v\n%s", rr.Applied, errs)
	}

	// The plan of the newest backup names the order.
	out, _, code = e.run("restore --format json --file " + second)
	var s Summary
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("plan: exit %d %s", code, out)
	}
	if fmt.Sprint(s.Chain) != fmt.Sprint([]string{second, absFirst}) || s.OriginalBackup != absFirst ||
		!strings.Contains(strings.Join(s.Warnings, "\n"), "restore --file "+second+" --run, then restore --file "+absFirst+" --run") {
		t.Fatalf("plan: %+v", s)
	}

	out, errs, code = e.run("restore --backup-dir " + e.dir + " --file " + second + " --run")
	if code != 0 || strings.Contains(out, "verify: ok") || !strings.Contains(out, "verify: SPLIT STATE") ||
		!strings.Contains(out, "restore next: restore --file "+absFirst+" --run") {
		t.Fatalf("restore of the newest: exit %d\n%s\n%s", code, out, errs)
	}
	// Without the earlier backup at hand, a restore that leaves a split state fails.
	moved := absFirst + ".moved"
	if err := os.Rename(absFirst, moved); err != nil {
		t.Fatal(err)
	}
	out, errs, code = e.run("restore --backup-dir " + e.dir + " --file " + second + " --run")
	if code != framework.ExitFailed || strings.Contains(out, "verify: ok") || !strings.Contains(errs, "split state on") {
		t.Fatalf("restore of the newest, chain broken: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("chain broken:\n%s%s", out, errs)
	if err := os.Rename(moved, absFirst); err != nil {
		t.Fatal(err)
	}
	out, errs, code = e.run("restore --backup-dir " + e.dir + " --file " + absFirst + " --run")
	if code != 0 || !strings.Contains(out, "verify: ok") {
		t.Fatalf("restore of the first: exit %d\n%s\n%s", code, out, errs)
	}
	if d := diff(original, e.dump()); len(d) != 0 {
		t.Fatalf("keys differ: %v", d)
	}
}

// TestRestoreMaxTxnOpsAboveEtcds: --max-txn-ops above etcd's --max-txn-ops
// (128 by default, the embedded etcd's) plans, then fails before the first
// write with the limit, not "may or may not be written".
func TestRestoreMaxTxnOpsAboveEtcds(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	path := filepath.Join(e.dir, "many.jsonl")
	bw, err := apply.CreateBackup(path, apply.Header{Command: "restore --file test --run", RootPath: "by-dev", Revision: 1, Prefixes: []string{"by-dev/meta/test/"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		if err := bw.Add(apply.Entry{Key: fmt.Sprintf("by-dev/meta/test/k%03d", i), Value: []byte("v"), ModRevision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.run("restore --max-txn-ops 200 --file " + path); code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, errs)
	}
	r0 := e.rev()
	_, errs, code := e.run("restore --max-txn-ops 200 --backup-dir " + e.dir + " --file " + path + " --run")
	if code != framework.ExitFailed || e.rev() != r0 || strings.Contains(errs, "may or may not") ||
		!strings.Contains(errs, "etcd allows at most 128 operations per transaction (its --max-txn-ops): use --max-txn-ops <= 128") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-*")); len(m) != 0 {
		t.Fatalf("a run that wrote nothing left a backup: %v", m)
	}
	out, errs, code := e.run("restore --max-txn-ops 128 --backup-dir " + e.dir + " --file " + path + " --run")
	if code != 0 || !strings.Contains(out, "wrote 300 of 300 keys (300 put back)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestStoppedRunCountsWhatItWrote: the "wrote N of M keys (X put back, Y
// deleted)" line of a stopped run counts what was committed: the first
// phase (3 consume checkpoints and the deletion of the config/mqtype the
// reset created, in 2 transactions) and 2 more keys.
func TestStoppedRunCountsWhatItWrote(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	backup := e.resetRun()
	e.tune = stopAfterTxns(3)
	out, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + backup + " --run")
	if code != framework.ExitFailed || !strings.Contains(out, "wrote 6 of 18 keys (5 put back, 1 deleted) in 3 transactions") ||
		!strings.Contains(errs, "6 of 18 keys written") || !strings.Contains(out, "verify: not run") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// It leads with one STOPPED block: what was written, split, both ways out.
	stop := strings.Index(out, "STOPPED: 6 of 18 keys written: the instance is split, do not start Milvus.\n")
	if stop < 0 || stop > strings.Index(out, "wrote 6 of 18") ||
		!strings.Contains(out, "to complete it:  restore --file "+backup+" --run --backup-dir "+e.dir+"\n") ||
		!strings.Contains(out, "to roll it back: restore --file "+filepath.Join(e.dir, "heron-backup-by-dev-restore-")) ||
		strings.Contains(out, "reminder:") {
		t.Fatalf("stopped block:\n%s", out)
	}
}

// TestRestoreRefusesAnEntryItsCommandNeverWrote: a restore's own backup
// names no rule (its entries carry their new values). An entry added to it,
// checksum recomputed, whose "new" value is what the key holds now passes
// as written by that restore; but the key has not changed since before the
// restore's plan read it, so the restore never wrote it: restoring the
// file refuses it, naming the line and the key (escaped: a newline in a
// key forges no line), instead of writing the forged old value.
func TestRestoreRefusesAnEntryItsCommandNeverWrote(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	ctx := context.Background()
	const forged = "by-dev/meta/root-coord/x\nrestore: ok"
	if _, err := cli.Put(ctx, forged, "current"); err != nil {
		t.Fatal(err)
	}
	backup := e.resetRun()
	out, errs, code := e.run("restore --format json --backup-dir " + e.dir + " --file " + backup + " --run")
	if code != 0 {
		t.Fatalf("restore: exit %d\n%s", code, errs)
	}
	var r RunResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	second := r.Applied.Backup
	ls := lines(t, second)
	var h apply.Header
	if err := json.Unmarshal([]byte(ls[0]), &h); err != nil || h.Rule != "" {
		t.Fatalf("restore's backup names rule %q (%v)", h.Rule, err)
	}
	resp, err := cli.Get(ctx, forged)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatal(err)
	}
	key, _ := json.Marshal(forged)
	add := fmt.Sprintf(`{"key":%s,"value":"%s","mod_revision":%d,"op":"put","new":"%s"}`, key,
		base64.StdEncoding.EncodeToString([]byte("forged")), resp.Kvs[0].ModRevision, base64.StdEncoding.EncodeToString([]byte("current")))
	injected := append(append([]string{}, ls[:len(ls)-1]...), add, "")
	inj := filepath.Join(e.dir, "injected.jsonl")
	writeLines(t, inj, injected, true)
	r0 := e.rev()
	_, errs, code = e.run("restore --backup-dir " + e.dir + " --file " + inj + " --force-moved-on --run")
	if code == 0 || e.rev() != r0 {
		t.Fatalf("an entry the restore never wrote: exit %d, revision %d -> %d\n%s", code, r0, e.rev(), errs)
	}
	if want := fmt.Sprintf("line %d: key %s", len(injected)-1, framework.EscapeText(forged)); !strings.Contains(errs, want) || strings.Contains(errs, "\nrestore: ok") {
		t.Fatalf("the refusal does not name line and key, escaped (%q):\n%s", want, errs)
	}
	if got := e.dump()[forged]; got != "current" {
		t.Fatalf("%q now holds %q", forged, got)
	}
}

// TestRestoreEscapesTheHeadersPrefixes: a header edited to name a prefix
// with a newline (inside what the command writes, so a folder it allows)
// is named escaped when a key of the file lies outside it.
func TestRestoreEscapesTheHeadersPrefixes(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	e := newEnv(t, cli, ep, "by-dev")
	ls := lines(t, e.resetRun())
	var h map[string]any
	if err := json.Unmarshal([]byte(ls[0]), &h); err != nil {
		t.Fatal(err)
	}
	h["prefixes"] = []string{"by-dev/meta/x\nrestore: ok/"}
	hb, _ := json.Marshal(h)
	ls[0] = string(hb)
	edited := filepath.Join(e.dir, "edited.jsonl")
	writeLines(t, edited, ls, true)
	_, errs, code := e.run("restore --file " + edited)
	if code == 0 || !strings.Contains(errs, `by-dev/meta/x\nrestore: ok/`) || strings.Contains(errs, "\nrestore: ok") {
		t.Fatalf("exit %d:\n%s", code, errs)
	}
}
