package chaos

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/heron-shell/heron/framework/apply"
)

// boundedSeeds is the set `make test` runs: a schedule of every fault kind
// (a seed decides its last step's fault, seed mod len(Faults)), every
// command among them, the first two seeds that expose each deliberate
// breakage (exposing), and the regressions. Any other set runs with
// `make chaos`.
func boundedSeeds() []uint64 {
	var out []uint64
	for s := range uint64(len(Faults)) {
		out = append(out, s)
	}
	for _, b := range breakages {
		out = append(out, exposing(b.name, 2)...)
	}
	return append(out, regressions...)
}

// regressions are seeds of the long runs that found a fault in heron,
// kept once it was fixed (docs/chaos.md, "What it found"; the restore of
// a rollback's backup is no-session-compare's seed 2207).
var regressions = []uint64{78, 519}

// breakages are the deliberately broken builds and what must catch them.
var breakages = []struct {
	name   string
	faults []Fault  // a last step with one of these exposes it
	rules  []string // the violations that report it
}{
	{"no-revision-compare", []Fault{FaultWriter}, []string{RuleLostWrite, RuleExitZero}},
	{"no-session-compare", []Fault{FaultSession}, []string{RuleSession}},
	{"late-backup", []Fault{FaultKill, FaultStop}, []string{RuleNoBackup, RuleBackupChain}},
}

// exposing is the first n seeds from 1000 on whose one step can expose
// breakage: its fault, after a transaction that is the first of many
// (the whole instance reset or a saved plan of it applied, a few keys a
// transaction), on an instance with no broadcast in flight.
func exposing(breakage string, n int) []uint64 {
	var faults []Fault
	for _, b := range breakages {
		if b.name == breakage {
			faults = b.faults
		}
	}
	var out []uint64
	for seed := uint64(1000); len(out) < n; seed++ {
		s := Generate(seed)
		last := s.Steps[len(s.Steps)-1]
		line := last.Line()
		if len(s.Steps) != 1 || !slices.Contains(faults, last.Fault) || last.At != 1 || s.PendingTask || strings.Contains(line, "--pchannel") ||
			!slices.Contains([]Command{CmdReset, CmdApply}, last.Command) || !strings.Contains(line, "--max-txn-ops") {
			continue
		}
		out = append(out, seed)
	}
	return out
}

func TestGenerateIsTheSeedsOwn(t *testing.T) {
	faults, commands := map[Fault]bool{}, map[Command]bool{}
	for _, seed := range boundedSeeds() {
		a, b := Generate(seed), Generate(seed)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d gave two schedules:\n%s\n%s", seed, a, b)
		}
		for _, st := range a.Steps {
			faults[st.Fault], commands[st.Command] = true, true
		}
		if a.Steps[0].Command == CmdRestore {
			t.Errorf("seed %d: a restore with no step before it to back up", seed)
		}
	}
	if len(faults) != len(Faults) || len(commands) != len(Commands) {
		t.Errorf("the bounded set's steps cover %d of %d faults and %d of %d commands", len(faults), len(Faults), len(commands), len(Commands))
	}
	if reflect.DeepEqual(Generate(1), Generate(1+uint64(len(Faults)*len(Commands)))) {
		t.Errorf("seeds 1 and %d gave the same schedule", 1+len(Faults)*len(Commands))
	}
}

// The checker, on states made by hand: each rule reports what breaks it
// and nothing else.
func TestCheckerReportsEachRule(t *testing.T) {
	const seg = rootPath + "/meta/datacoord-meta/s/1/2/3"
	const cp = rootPath + "/meta/streamingnode-meta/wal/p/consume-checkpoint"
	before := state{seg: []byte("old-seg"), cp: []byte("old-cp"), siblingRoot + "/meta/x": []byte("x")}
	want := expectation{plan: planned{seg: []byte("new-seg"), cp: []byte("new-cp")}}
	want.after = want.plan.applyTo(before)
	dump := func(s state, rev map[string]int64) Dump {
		d := Dump{KVs: map[string]KV{}}
		for k, v := range s {
			d.KVs[k] = KV{Value: v, ModRev: rev[k]}
		}
		return d
	}
	ok := heronRun{rc: 0}
	ok.doc.Verify = &verifyDoc{OK: true}
	split := state{seg: []byte("new-seg"), cp: []byte("old-cp"), siblingRoot + "/meta/x": []byte("x")}
	for _, c := range []struct {
		name    string
		run     heronRun
		now     state
		rev     map[string]int64
		in      injected
		refused bool
		rules   []string
	}{
		{name: "a run that completed", run: ok, now: want.after},
		{name: "a run stopped half way", run: heronRun{rc: 1}, now: split},
		{name: "exit 0 over a split instance", run: ok, now: split, rules: []string{RuleExitZero}},
		{name: "bytes of neither", run: heronRun{rc: 1}, now: state{seg: []byte("other"), cp: []byte("old-cp"), siblingRoot + "/meta/x": []byte("x")}, rules: []string{RulePerKey}},
		{name: "a key outside the root", run: heronRun{rc: 1}, now: state{seg: []byte("old-seg"), cp: []byte("old-cp"), siblingRoot + "/meta/x": []byte("y")}, rules: []string{RuleOutsideRoot}},
		{name: "nothing was written, falsely", run: heronRun{rc: 3, stderr: "error: reset checkpoint refused, nothing was written: ..."}, now: split, rules: []string{RuleNothing}},
		{name: "a write after a component registered", run: heronRun{rc: 1}, now: split, rev: map[string]int64{seg: 9}, in: injected{session: "s", sessionRev: 8}, rules: []string{RuleSession}},
		{name: "a write before it", run: heronRun{rc: 1}, now: split, rev: map[string]int64{seg: 7}, in: injected{session: "s", sessionRev: 8}},
		{name: "a refused plan that wrote", run: heronRun{rc: 3}, now: split, refused: true, rules: []string{RulePerKey, RuleRefused}},
		{name: "exit 0 without verify: ok", run: heronRun{rc: 0}, now: want.after, rules: []string{RuleExitZero}},
		{name: "exit 0 with a component registered", run: ok, now: want.after, in: injected{session: "s", sessionRev: 99}, rules: []string{RuleExitZero}},
		{name: "exit 0 over a writer's change to a planned key", run: ok, now: want.after, in: injected{writes: map[string][]byte{cp: []byte("new-cp")}}, rules: []string{RuleExitZero}},
		{name: "a fault-free run that fails", run: heronRun{rc: 1, fault: FaultNone}, now: before, rules: []string{RuleFaultFree}},
		{name: "a writer's change overwritten", run: heronRun{rc: 1}, now: split, in: injected{writes: map[string][]byte{seg: []byte("writer")}}, rules: []string{RuleLostWrite}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &runner{res: &Result{}}
			in := c.in
			w := want
			if c.refused {
				w = expectation{refused: true, plan: planned{}, after: before}
			}
			r.checkRun(1, c.run, before, dump(c.now, c.rev), w, &in)
			var got []string
			for _, v := range r.res.Violations {
				got = append(got, v.Rule)
			}
			if !reflect.DeepEqual(got, c.rules) {
				t.Errorf("rules broken: %v, want %v (%v)", got, c.rules, r.res.Violations)
			}
		})
	}
}

// workers: schedules at a time; a schedule mostly waits on etcd's fsyncs
// and heron's processes starting.
const workers = 3

// The backups a step published: none for a changed instance is reported,
// and undone newest first they must give the state before.
func TestCheckerReportsBackups(t *testing.T) {
	const a, b = rootPath + "/meta/a", rootPath + "/meta/b"
	before := state{a: []byte("a0"), b: []byte("b0")}
	after := state{a: []byte("a1"), b: []byte("b1")}
	publish := func(dir string, rev int64, entries map[string][]byte) {
		t.Helper()
		bw, err := apply.CreateBackup(filepath.Join(dir, fmt.Sprintf("heron-backup-by-dev-test-rev%d.jsonl", rev)), apply.Header{Command: "test", RootPath: rootPath, Revision: rev})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range entries {
			if err := bw.Add(apply.Entry{Key: k, Value: v, ModRevision: 5}); err != nil {
				t.Fatal(err)
			}
		}
		if err := bw.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	check := func(setup func(dir string)) []string {
		dir := t.TempDir()
		r := &runner{res: &Result{}, backups: filepath.Join(dir, "backups"), opt: Options{Dir: dir}}
		if err := os.MkdirAll(r.backups, 0o755); err != nil {
			t.Fatal(err)
		}
		had := fileSet(r.backups)
		setup(r.backups)
		in := &injected{}
		r.checkPublished(1, had, before, after, in)
		r.checkBackups(1, had, before, after, in)
		var rules []string
		for _, v := range r.res.Violations {
			rules = append(rules, v.Rule)
		}
		return rules
	}
	if got := check(func(string) {}); !reflect.DeepEqual(got, []string{RuleNoBackup}) {
		t.Errorf("no backup: %v", got)
	}
	if got := check(func(dir string) { publish(dir, 7, map[string][]byte{a: []byte("a0"), b: []byte("b0")}) }); got != nil {
		t.Errorf("a whole backup: %v", got)
	}
	// A chain: the re-run's backup (newer) holds what the first run left.
	if got := check(func(dir string) {
		publish(dir, 7, map[string][]byte{a: []byte("a0"), b: []byte("b0")})
		publish(dir, 9, map[string][]byte{b: []byte("b0")})
	}); got != nil {
		t.Errorf("a chain: %v", got)
	}
	// A backup that recorded a written value instead of the original.
	if got := check(func(dir string) { publish(dir, 7, map[string][]byte{a: []byte("a1"), b: []byte("b0")}) }); !reflect.DeepEqual(got, []string{RuleBackupChain}) {
		t.Errorf("a wrong backup: %v", got)
	}
}

// bins builds the release heron and the failpoints build of this tree,
// once for the package's tests.
func bins(t *testing.T) Bins {
	t.Helper()
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Fatalf("the chaos schedules run Debian's etcd server: apt-get install etcd-server (%v)", err)
	}
	b, err := builtBins()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// binDirEnv names a folder holding heron and heron-failpoints built from
// this tree (make test's build phase builds them into bin/ and sets it),
// so that the tests do not build them again.
const binDirEnv = "HERON_CHAOS_BIN_DIR"

var builtBins = sync.OnceValues(func() (Bins, error) {
	if d := os.Getenv(binDirEnv); d != "" {
		b := Bins{Heron: filepath.Join(d, "heron"), Failpoints: filepath.Join(d, "heron-failpoints")}
		for _, f := range []string{b.Heron, b.Failpoints} {
			if _, err := os.Stat(f); err != nil {
				return Bins{}, fmt.Errorf("$%s: %w", binDirEnv, err)
			}
		}
		return b, nil
	}
	dir, err := os.MkdirTemp("", "heron-chaos-bins-")
	if err != nil {
		return Bins{}, err
	}
	binDir = dir
	b := Bins{Heron: filepath.Join(dir, "heron"), Failpoints: filepath.Join(dir, "heron-failpoints")}
	for _, build := range [][]string{{"build", "-o", b.Heron, "."}, {"build", "-tags", "failpoints", "-o", b.Failpoints, "."}} {
		cmd := exec.Command("go", build...)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return Bins{}, fmt.Errorf("go %s: %v\n%s", strings.Join(build, " "), err, out)
		}
	}
	return b, nil
})

// binDir is where builtBins built them (TestMain removes it).
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// The bounded set: every fault kind injected, every command run, no
// invariant broken.
func TestChaosBoundedSet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs etcd servers and heron: not with -short")
	}
	rep := Run(context.Background(), Config{Bins: bins(t), Dir: t.TempDir(), Seeds: boundedSeeds(), Workers: workers, Replay: "make chaos SEED=%d SCHEDULES=1"})
	var out strings.Builder
	rep.Write(&out)
	t.Log(out.String())
	if len(rep.Failures) > 0 {
		t.Fatalf("%d schedules failed:\n%s", len(rep.Failures), out.String())
	}
	for _, f := range Faults {
		if rep.Injected[f] == 0 {
			t.Errorf("fault %s was never injected", f)
		}
	}
	for _, c := range Commands {
		if rep.Commands[c] == 0 {
			t.Errorf("command %s never ran", c)
		}
	}
}

// Deliberately broken builds of heron (HERON_APPLY_BREAK) run the bounded
// set's schedules of the fault that exposes each: the checker reports it.
func TestChaosCatchesBrokenBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs etcd servers and heron: not with -short")
	}
	b := bins(t)
	for _, c := range breakages {
		t.Run(c.name, func(t *testing.T) {
			seeds := exposing(c.name, 2)
			rep := Run(context.Background(), Config{Bins: b, Dir: t.TempDir(), Seeds: seeds, Workers: workers, Break: c.name})
			var out strings.Builder
			rep.Write(&out)
			if rep.Errors() > 0 {
				t.Fatalf("harness errors:\n%s", out.String())
			}
			caught := map[uint64]bool{}
			for _, f := range rep.Failures {
				for _, v := range f.Violations {
					if slices.Contains(c.rules, v.Rule) {
						caught[f.Schedule.Seed] = true
					}
				}
			}
			for _, seed := range seeds {
				if !caught[seed] {
					t.Errorf("HERON_APPLY_BREAK=%s ran seed %d and no %v violation was reported:\n%s", c.name, seed, c.rules, out.String())
				}
			}
		})
	}
}
