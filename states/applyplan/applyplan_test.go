package applyplan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/reset"
	"github.com/heron-shell/heron/states/restore"
	"github.com/heron-shell/heron/tests/shelltest"
)

type env struct {
	t    *testing.T
	s    *shelltest.Seeded
	dir  string
	cmds []*framework.Command
}

func newEnv(t *testing.T) *env {
	s := shelltest.Start(t, commonpb.WALName_Pulsar)
	var cmds []*framework.Command
	for _, ns := range []func() []*framework.Command{
		func() []*framework.Command { return reset.Commands(s.Inst) },
		func() []*framework.Command { return restore.Commands(s.Inst) },
		func() []*framework.Command { return Commands(s.Inst) },
	} {
		cmds = append(cmds, ns()...)
	}
	return &env{t: t, s: s, dir: t.TempDir(), cmds: cmds}
}

func (e *env) run(line string) (string, string, int) {
	e.t.Helper()
	out, errs, code, _ := shelltest.Run(e.t, e.cmds, line)
	return out, errs, code
}

func (e *env) dump() map[string]string { return shelltest.Dump(e.t, e.s.Cli) }

func (e *env) rev() int64 { return shelltest.Revision(e.t, e.s.Inst) }

type runDoc struct {
	Applied *apply.Result `json:"applied"`
	Verify  *apply.Verify `json:"verify"`
}

// A plan saved with --plan-out, applied with apply --file --run, writes
// exactly what the command's own --run writes; its backup restores.
func TestPlanOutThenApplyWritesThePlannedBytes(t *testing.T) {
	e := newEnv(t)
	original := e.dump()
	plan := filepath.Join(e.dir, "plan.jsonl")
	r0 := e.rev()
	if out, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 || e.rev() != r0 ||
		!strings.Contains(errs, "plan saved: "+plan) || !strings.Contains(out, "keys to write or delete: 18") {
		t.Fatalf("plan-out: exit %d\n%s\n%s", code, out, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-*")); len(m) != 0 {
		t.Fatalf("a dry run left %v", m)
	}
	// The saved plan holds no credential and its header names the rule.
	h, err := apply.ReadBackupHeader(plan)
	if err != nil || h.Rule != "reset-checkpoint" || h.RootPath != "by-dev" {
		t.Fatalf("header %+v %v", h, err)
	}
	out, errs, code := e.run("apply --file " + plan)
	if code != 0 || e.rev() != r0 || !strings.Contains(out, "keys to write or delete: 18") ||
		!strings.Contains(out, "ok  the plan is what heron plans now") {
		t.Fatalf("apply dry run: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = e.run("apply --file " + plan + " --run --format json --backup-dir " + e.dir)
	var doc runDoc
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !doc.Verify.OK || doc.Applied.Written != 18 {
		t.Fatalf("apply --run: exit %d\n%s\n%s", code, out, errs)
	}
	applied := e.dump()
	// Roll back with the apply's backup, then the command's own run writes
	// the same bytes.
	if _, errs, code := e.run("restore --backup-dir " + e.dir + " --file " + doc.Applied.Backup + " --run"); code != 0 {
		t.Fatalf("restore of apply's backup: exit %d\n%s", code, errs)
	}
	if d := shelltest.DiffKeys(original, e.dump()); len(d) != 0 {
		t.Fatalf("restore of apply's backup left %v", d)
	}
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --run --backup-dir " + e.dir); code != 0 {
		t.Fatalf("reset --run: exit %d\n%s", code, errs)
	}
	if d := shelltest.DiffKeys(applied, e.dump()); len(d) != 0 {
		t.Fatalf("apply --file wrote other bytes than reset --run: %v", d)
	}
}

// A key whose value changed since the plan was read refuses the saved plan
// before anything is written, naming the key.
func TestApplyRefusesAChangedKey(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	key := e.s.Inst.Layout.Meta(models.SegmentKey(100, 101, 1001))
	value := e.dump()[e.s.Inst.Layout.Meta(models.SegmentKey(100, 101, 1002))]
	if _, err := e.s.Cli.Put(context.Background(), key, value); err != nil {
		t.Fatal(err)
	}
	r0 := e.rev()
	for _, line := range []string{"apply --file " + plan, "apply --file " + plan + " --run --backup-dir " + e.dir} {
		out, errs, code := e.run(line)
		words := shelltest.Words(out) // the gate's detail and the recipe wrap (piped, at PipeWidth)
		if code != framework.ExitRefused || e.rev() != r0 || !strings.Contains(out, "REFUSED  the plan is what heron plans now") ||
			!strings.Contains(words, key+": "+apply.DiffOldValue) || !strings.Contains(errs, "1 difference between the file and what reset checkpoint plans now") ||
			!strings.Contains(out, "what to do, in order:\n  1. do not re-run this plan: plan again\n") ||
			!strings.Contains(words, "what to do, in order: 1. do not re-run this plan: plan again (") || !strings.Contains(errs, "what to do, in order: 1. do not re-run this plan") {
			t.Fatalf("%s: exit %d\n%s\n%s", line, code, out, errs)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-*")); len(m) != 0 {
		t.Fatalf("a refused apply left %v", m)
	}
	// A changed plan file is refused by its checksum.
	b, _ := os.ReadFile(plan)
	bad := filepath.Join(e.dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), "datacoord", "datacoorx", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.run("apply --file " + bad); code == 0 || !strings.Contains(errs, "checksum mismatch") {
		t.Fatalf("changed plan: exit %d\n%s", code, errs)
	}
}

// --run --format line works for every write command, and a restore plan
// saved with --plan-out applies too.
func TestRunFormatLineForEveryWriteCommand(t *testing.T) {
	e := newEnv(t)
	out, errs, code := e.run("reset checkpoint --target-wal kafka --run --format line --backup-dir " + e.dir)
	if code != 0 || !strings.Contains(out, "run=\"reset checkpoint\"") || !strings.Contains(out, "verify=true") {
		t.Fatalf("reset: exit %d\n%s\n%s", code, out, errs)
	}
	m, _ := filepath.Glob(filepath.Join(e.dir, "heron-backup-*reset*.jsonl"))
	if len(m) != 1 {
		t.Fatalf("backups %v", m)
	}
	plan := filepath.Join(e.dir, "restore-plan.jsonl")
	if _, errs, code := e.run("restore --file " + m[0] + " --plan-out " + plan); code != 0 {
		t.Fatalf("restore --plan-out: exit %d\n%s", code, errs)
	}
	out, errs, code = e.run("apply --file " + plan + " --run --format line --backup-dir " + e.dir)
	if code != 0 || !strings.Contains(out, "run=apply") || !strings.Contains(out, "verify=true") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code = e.run("restore --file " + m[0] + " --run --format line --backup-dir " + e.dir)
	if code != 0 || !strings.Contains(out, "run=restore") || !strings.Contains(out, "keys=0") || !strings.Contains(out, "verify=true") {
		t.Fatalf("restore: exit %d\n%s\n%s", code, out, errs)
	}
}

// The plan document of an untouched plan: every op compared, no
// difference (an empty list, not null), the re-plan's own document under
// "replan", and the header naming what planned.
func TestApplyPlanDocument(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	out, errs, code := e.run("apply --file " + plan + " --format json")
	var doc struct {
		Plan        apply.Header      `json:"plan"`
		Compared    int64             `json:"compared"`
		Differences []json.RawMessage `json:"differences"`
		Replan      struct {
			TotalKeys int64 `json:"total_keys"`
		} `json:"replan"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Compared != 18 || doc.Differences == nil || len(doc.Differences) != 0 ||
		doc.Replan.TotalKeys != 18 || doc.Plan.Planner != "reset checkpoint" || strings.Join(doc.Plan.Params, " ") != "--target-wal=kafka" || doc.Plan.Heron != apply.HeronBuild() {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// A header naming apply itself as its planner, with --file naming the plan
// (checksum recomputed, as anyone can), is refused at once: planning it
// again would open the plan again, for ever. An apply --file --plan-out
// records the command it planned again, which applies.
func TestApplyRefusesAPlanOfApply(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	again := filepath.Join(e.dir, "again.jsonl")
	if _, errs, code := e.run("apply --file " + plan + " --plan-out " + again); code != 0 {
		t.Fatalf("apply --plan-out: exit %d\n%s", code, errs)
	}
	if h, err := apply.ReadBackupHeader(again); err != nil || h.Planner != "reset checkpoint" {
		t.Fatalf("apply --plan-out records %+v %v", h, err)
	}
	loop := filepath.Join(e.dir, "loop.jsonl")
	rewritePlan(t, plan, loop, func(h *apply.Header) { h.Planner, h.Params = "apply", []string{"--file=" + loop} })
	r0 := e.rev()
	done := make(chan struct{})
	var out, errs string
	var code int
	go func() {
		defer close(done)
		out, errs, code = e.run("apply --file " + loop + " --run --backup-dir " + e.dir)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("apply of a plan naming apply itself did not end")
	}
	if code != framework.ExitRefused || e.rev() != r0 || !strings.Contains(out, `REFUSED  a command heron plans again`) || !strings.Contains(out, `names planner "apply"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// rewritePlan copies the plan src to dst with its header changed by edit
// and its end line (count and SHA-256) computed again, as anyone can.
func rewritePlan(t *testing.T, src, dst string, edit func(*apply.Header)) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var h apply.Header
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	edit(&h)
	hb, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	body := lines[1 : len(lines)-1]
	data := string(hb) + "\n" + strings.Join(body, "\n") + "\n"
	sum := sha256.Sum256([]byte(data))
	end := fmt.Sprintf(`{"end":true,"ops":%d,"sha256":"%s"}`, len(body), hex.EncodeToString(sum[:]))
	if err := os.WriteFile(dst, []byte(data+end+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The file's command line is a claim too: one edited to say
// --allow-growing (checksum recomputed) differs from the command line
// heron records for the flags it plans again, and refuses; the next step
// names heron's command line, never the file's.
func TestApplyRefusesAnEditedCommandLine(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	edited := filepath.Join(e.dir, "edited.jsonl")
	rewritePlan(t, plan, edited, func(h *apply.Header) { h.Command = "reset checkpoint --target-wal kafka --allow-growing --run" })
	r0 := e.rev()
	out, errs, code := e.run("apply --file " + edited + " --run --backup-dir " + e.dir)
	if code != framework.ExitRefused || e.rev() != r0 || !strings.Contains(out, "(header) command") ||
		!strings.Contains(shelltest.Words(out), "plan again (reset checkpoint --target-wal kafka --plan-out FILE)") || strings.Contains(errs, "plan again (reset checkpoint --target-wal kafka --allow-growing") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// A plan file does not choose where a credential goes: recorded flags that
// make the target check log in (a token file's content, sent as a bearer
// token, at the --pulsar-admin the file names) refuse the plan before it
// is planned again, dry run too: the address is never contacted.
func TestApplyRefusesToSendACredentialWhereTheFileSays(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	token := filepath.Join(e.dir, "token")
	if err := os.WriteFile(token, []byte("the operator's token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(e.dir, "edited.jsonl")
	rewritePlan(t, plan, edited, func(h *apply.Header) {
		h.Params = []string{"--target-wal=pulsar", "--pulsar-admin=" + srv.URL, "--pulsar-token-file=" + token}
	})
	for _, line := range []string{"apply --file " + edited, "apply --file " + edited + " --run --backup-dir " + e.dir} {
		out, errs, code := e.run(line)
		if code != framework.ExitRefused || hits.Load() != 0 || !strings.Contains(out, "REFUSED  no credential sent where the file says") {
			t.Fatalf("%s: exit %d, %d requests\n%s\n%s", line, code, hits.Load(), out, errs)
		}
	}
}

// A plan refused over an instance an interrupted run left split says so:
// "nothing was written" by the apply must not read as "the instance is
// fine".
func TestApplyRefusedOverASplitStateSaysSo(t *testing.T) {
	e := newEnv(t)
	original := e.dump()
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --run --backup-dir " + e.dir); code != 0 {
		t.Fatalf("reset --run: exit %d\n%s", code, errs)
	}
	// One segment back on its pulsar position: the instance is split.
	key := e.s.Inst.Layout.Meta(models.SegmentKey(100, 101, 1001))
	if _, err := e.s.Cli.Put(context.Background(), key, original[key]); err != nil {
		t.Fatal(err)
	}
	out, errs, code := e.run("apply --file " + plan + " --run --backup-dir " + e.dir)
	if code != framework.ExitRefused || !strings.Contains(out, "SPLIT STATE: reset checkpoint plans again over an instance whose positions name more than one WAL") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	out, _, _ = e.run("apply --file " + plan + " --format json")
	var doc struct {
		SplitState bool `json:"split_state"`
	}
	if json.Unmarshal([]byte(out), &doc) != nil || !doc.SplitState {
		t.Fatalf("json: %s", out)
	}
}

// --plan-out into a folder that does not exist fails, nothing written,
// with a step that works: the plan is staged in its own folder, so
// --backup-dir alone would not help.
func TestPlanOutIntoAMissingFolderNamesIt(t *testing.T) {
	e := newEnv(t)
	r0 := e.rev()
	_, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + filepath.Join(e.dir, "missing", "plan.jsonl"))
	if code != framework.ExitFailed || e.rev() != r0 || !strings.Contains(errs, "--plan-out FILE: FILE's folder") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
}

// Recorded flags are a claim of the file too: flags that do not parse as
// the planner's, or parse but do not fit it (a WAL it does not know, an
// unknown pchannel, a prefix it refuses), refuse the plan (exit 3, nothing
// written), naming the flag: never a usage error of apply's own flags, a
// plain error or a panic.
func TestApplyRefusesRecordedFlagsThatDoNotFit(t *testing.T) {
	e := newEnv(t)
	plan := filepath.Join(e.dir, "plan.jsonl")
	if _, errs, code := e.run("reset checkpoint --target-wal kafka --plan-out " + plan); code != 0 {
		t.Fatalf("plan-out: exit %d\n%s", code, errs)
	}
	for i, c := range []struct {
		params []string
		named  bool // the refusal names the last flag
	}{
		{[]string{"--target-wal=nonsense"}, true},
		{[]string{"--target-wal=kafka", "--target-wal=pulsar"}, true},
		{[]string{"--target-wal"}, true},
		{[]string{"--target-wal=kafka", "--pchannel=by-dev-nowhere"}, true},
		{[]string{"--target-wal=kafka", "--pchannel="}, true},
		{[]string{"--target-wal=kafka", "--allow-growing=maybe"}, true},
		{[]string{}, true},
		{[]string{"--target-wal=woodpecker", "--wp-meta-prefix=/"}, false},
		{[]string{"--target-wal=woodpecker", "--wp-meta-prefix="}, false},
	} {
		edited := filepath.Join(e.dir, fmt.Sprintf("edited%d.jsonl", i))
		rewritePlan(t, plan, edited, func(h *apply.Header) { h.Params = c.params })
		r0 := e.rev()
		out, errs, code := e.run("apply --file " + edited + " --run --yes --backup-dir " + e.dir)
		name := "--target-wal"
		if len(c.params) > 1 {
			name, _, _ = strings.Cut(c.params[len(c.params)-1], "=")
		}
		if code != framework.ExitRefused || e.rev() != r0 || (c.named && !strings.Contains(out+errs, name)) || strings.Contains(errs, "panic") {
			t.Errorf("recorded %q: exit %d\n%s\n%s", c.params, code, out, errs)
		}
	}
}

// A restore plan records its --file: edited to name a file that does not
// exist, the plan is refused (exit 3) naming --file, not a plain error.
func TestApplyRefusesARecordedFileThatIsNotThere(t *testing.T) {
	e := newEnv(t)
	out, errs, code := e.run("reset checkpoint --target-wal kafka --run --yes --format json --backup-dir " + e.dir)
	if code != 0 {
		t.Fatalf("reset: exit %d\n%s", code, errs)
	}
	var doc runDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(e.dir, "restore-plan.jsonl")
	if _, errs, code := e.run("restore --file " + doc.Applied.Backup + " --plan-out " + plan); code != 0 {
		t.Fatalf("restore --plan-out: exit %d\n%s", code, errs)
	}
	edited := filepath.Join(e.dir, "edited.jsonl")
	rewritePlan(t, plan, edited, func(h *apply.Header) { h.Params = []string{"--file=" + filepath.Join(e.dir, "missing.jsonl")} })
	r0 := e.rev()
	out, errs, code = e.run("apply --file " + edited + " --run --yes --backup-dir " + e.dir)
	if code != framework.ExitRefused || e.rev() != r0 || !strings.Contains(out+errs, "--file") || !strings.Contains(out+errs, "missing.jsonl") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// Issue 38: `restore --file rel.jsonl --plan-out plan.jsonl` records the
// backup by its absolute path (and so does the restore's own header), so
// `apply --file /elsewhere/plan.jsonl` from another folder restores it. A
// plan that records a relative path (an older heron's, or edited) names no
// folder it was relative to: it is refused (exit 3) with the fix, never
// read against whatever folder apply runs in.
func TestApplyOfARestorePlanFromAnotherFolder(t *testing.T) {
	e := newEnv(t)
	before := e.dump()
	out, errs, code := e.run("reset checkpoint --target-wal kafka --run --yes --format json --backup-dir " + e.dir)
	if code != 0 {
		t.Fatalf("reset: exit %d\n%s", code, errs)
	}
	var doc runDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	t.Chdir(e.dir)
	rel := filepath.Base(doc.Applied.Backup)
	if _, errs, code := e.run("restore --file " + rel + " --plan-out plan.jsonl"); code != 0 {
		t.Fatalf("restore --plan-out: exit %d\n%s", code, errs)
	}
	plan := filepath.Join(e.dir, "plan.jsonl")
	b, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"--file=`+doc.Applied.Backup+`"`) {
		t.Fatalf("the plan records the backup's absolute path:\n%.600s", b)
	}
	edited := filepath.Join(e.dir, "relative.jsonl")
	rewritePlan(t, plan, edited, func(h *apply.Header) {
		h.Params = []string{"--file=" + rel}
		h.Command = "restore --file " + rel + " --run"
	})

	t.Chdir(t.TempDir())
	r0 := e.rev()
	out, errs, code = e.run("apply --file " + edited + " --run --yes --backup-dir " + e.dir)
	words := shelltest.Words(out + errs)
	if code != framework.ExitRefused || e.rev() != r0 || !strings.Contains(words, "--file="+rel+" is a relative path") ||
		!strings.Contains(words, "restore --file /path/to/"+rel+" --plan-out FILE") {
		t.Fatalf("a relative recorded path: exit %d\n%s\n%s", code, out, errs)
	}
	if out, errs, code := e.run("apply --file " + plan + " --run --yes --backup-dir " + e.dir); code != 0 {
		t.Fatalf("apply from another folder: exit %d\n%s\n%s", code, out, errs)
	}
	if d := shelltest.DiffKeys(before, e.dump()); len(d) > 0 {
		t.Fatalf("the restore left %v", d)
	}
}
