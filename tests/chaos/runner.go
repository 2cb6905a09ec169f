package chaos

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework/apply"
)

// Violation is an invariant a schedule broke.
type Violation struct {
	Step int    // 1-based; 0: the schedule's end
	Rule string // which invariant
	Text string
}

func (v Violation) String() string {
	where := fmt.Sprintf("step %d", v.Step)
	if v.Step == 0 {
		where = "end"
	}
	return fmt.Sprintf("%s: %s: %s", where, v.Rule, v.Text)
}

// Result is what one schedule did and broke.
type Result struct {
	Schedule   Schedule
	Violations []Violation
	// Injected counts the faults that took effect (a kill after the 5th
	// transaction of a run of 3 did not), Commands the commands run.
	Injected map[Fault]int
	Commands map[Command]int
	// Refused counts the commands whose dry run refused or planned
	// nothing (their run is checked to write nothing).
	Refused map[Command]int
	// Recoveries counts the commands printed by a stopped run that the
	// runner ran (complete, roll back).
	Recoveries int
	Seconds    float64
	// EndCheck says why the end's restore of every backup did not compare
	// the seeded instance ("": it did, or a violation came first).
	EndCheck string
	// Log is a line per step: the command, its fault, its exit code.
	Log []string
}

// Options are what RunSchedule needs besides the schedule.
type Options struct {
	Bins Bins
	// Dir is a folder of the schedule's own (etcd's data, backups).
	Dir string
	// Break is HERON_APPLY_BREAK for the failpoints build ("" for none).
	Break string
}

// runner is one schedule's run.
type runner struct {
	opt     Options
	s       Schedule
	c       *Cluster
	cli     *clientv3.Client
	res     *Result
	backups string // the --backup-dir of every step
	work    string // heron's working folder
	initial state
	// external: the schedule has a writer other than heron writing keys
	// of the instance (the chain's end check cannot hold then).
	external bool
	plans    int
}

// RunSchedule runs s and checks it. A non-nil error is the harness's own
// failure (etcd would not start), not a violation.
func RunSchedule(ctx context.Context, s Schedule, opt Options) (*Result, error) {
	start := time.Now()
	res := &Result{Schedule: s, Injected: map[Fault]int{}, Commands: map[Command]int{}, Refused: map[Command]int{}}
	r := &runner{opt: opt, s: s, res: res, backups: filepath.Join(opt.Dir, "backups"), work: filepath.Join(opt.Dir, "work")}
	for _, d := range []string{r.backups, r.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	c, err := StartCluster(ctx, filepath.Join(opt.Dir, "etcd"), s.Members, s.Quota)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r.c, r.cli = c, c.Client()
	values, err := seedValues(s)
	if err != nil {
		return nil, err
	}
	// A cluster just elected can time a request out under load: the
	// puts are idempotent, so the seeding is tried again.
	for attempt := 1; ; attempt++ {
		err := load(ctx, r.cli, values)
		if err == nil {
			break
		}
		if attempt == 3 {
			return nil, fmt.Errorf("seed: %w", err)
		}
		time.Sleep(time.Second)
	}
	if r.initial, err = r.dump(ctx); err != nil {
		return nil, err
	}
	for i, st := range s.Steps {
		ok, err := r.step(ctx, i+1, st)
		if err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i+1, st.Line(), err)
		}
		if !ok {
			break // a broken invariant: what follows would only repeat it
		}
	}
	switch {
	case len(res.Violations) > 0:
	case r.external:
		res.EndCheck = "skipped: another writer changed what the backups recorded"
	default:
		if err := r.restoreAll(ctx); err != nil {
			return nil, err
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func (r *runner) violate(step int, rule, format string, args ...any) {
	r.res.Violations = append(r.res.Violations, Violation{Step: step, Rule: rule, Text: fmt.Sprintf(format, args...)})
}

// readDump reads every key, within 30 s.
func (r *runner) readDump(ctx context.Context) (Dump, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return ReadDump(cctx, r.cli)
}

// dump is every key's value.
func (r *runner) dump(ctx context.Context) (state, error) {
	d, err := r.readDump(ctx)
	if err != nil {
		return nil, err
	}
	return d.Values(), nil
}

// racerBackups is the backup folder of step n's racing heron.
func (r *runner) racerBackups(n int) string {
	return filepath.Join(r.opt.Dir, fmt.Sprintf("racer-%d", n), "backups")
}

// breakEnv is the failpoints build's environment: HERON_APPLY_BREAK when
// the run is of a deliberately broken build.
func (r *runner) breakEnv() []string {
	if r.opt.Break == "" {
		return nil
	}
	return []string{apply.EnvBreak + "=" + r.opt.Break}
}

// injected is what the fault injectors wrote: prefixes outside the
// instance, a session key, and keys of the instance a writer changed
// (their last values).
type injected struct {
	session    string
	sessionRev int64
	writes     map[string][]byte
}

func (in *injected) skip(k string) bool {
	if under(k, fillPrefix, stormPrefix) || (in.session != "" && k == in.session) {
		return true
	}
	_, ok := in.writes[k]
	return ok
}

// expectation is a fresh plan of a step's command, read before the step.
type expectation struct {
	refused bool    // the dry run refused (exit 3): nothing may be written
	why     string  // the refusal's error line
	plan    planned // what it writes
	after   state   // the state before with the plan written
}

// step runs one step: the fresh plan, the run with its fault, the checks,
// and the command the stopped run printed. false: a violation was found.
func (r *runner) step(ctx context.Context, n int, st Step) (bool, error) {
	before, err := r.dump(ctx)
	if err != nil {
		return false, err
	}
	line, ok, err := r.commandLine(ctx, n, st)
	if err != nil || !ok {
		return ok || err == nil, err
	}
	want, err := r.expect(ctx, n, line, before)
	if err != nil {
		return false, err
	}
	if len(r.res.Violations) > 0 {
		return false, nil
	}
	had := fileSet(r.backups)
	injBefore := r.res.Injected[st.Fault]
	in := &injected{writes: map[string][]byte{}}
	run, err := r.faulty(ctx, n, st, line, want, before, in)
	if err != nil {
		return false, err
	}
	if want.refused || len(want.plan) == 0 {
		r.res.Refused[st.Command]++
	} else {
		r.res.Commands[st.Command]++
	}
	r.res.Log = append(r.res.Log, fmt.Sprintf("step %d: %s | %s @%d: dry run %s, run exit %d%s", n, line, st.Fault, txnAt(st, line, len(want.plan)), want.outcome(), run.rc, map[bool]string{true: " (injected)"}[injectedNow(r.res, st.Fault, injBefore)]))
	if err := r.c.Heal(ctx); err != nil {
		return false, fmt.Errorf("heal the cluster: %w", err)
	}
	if in.session != "" {
		if err := r.endSession(ctx, in); err != nil {
			return false, err
		}
	}
	after, err := r.readDump(ctx)
	if err != nil {
		return false, err
	}
	r.checkRun(n, run, before, after, want, in)
	r.checkPublished(n, had, before, after.Values(), in)
	if len(r.res.Violations) > 0 {
		return false, nil
	}
	final := after.Values()
	// A run that stopped with the instance changed, but not (yet) as the
	// plan writes it, is recovered as heron says.
	if run.rc != 0 && changed(before, final, in.skip) && changed(want.after, final, in.skip) {
		final, err = r.recover(ctx, n, st, line, run, before, want, in)
		if err != nil {
			return false, err
		}
		if len(r.res.Violations) > 0 {
			return false, nil
		}
	}
	r.checkBackups(n, had, before, final, in)
	return len(r.res.Violations) == 0, nil
}

// commandLine is the step's command line: restore names the newest backup
// of the steps before; apply's plan is saved right now by a dry run of the
// step's reset. false: the step cannot run (no backup yet), skipped.
func (r *runner) commandLine(ctx context.Context, n int, st Step) (string, bool, error) {
	switch st.Command {
	case CmdRestore:
		all, err := backupsIn(r.backups)
		if err != nil || len(all) == 0 {
			return "", false, err
		}
		return strings.Join(append([]string{"restore", "--file", all[0].path}, st.Args[1:]...), " "), true, nil
	case CmdApply:
		r.plans++
		path := filepath.Join(r.opt.Dir, fmt.Sprintf("saved-plan-%d.jsonl", r.plans))
		run, err := runHeron(ctx, r.opt.Bins.Heron, r.work, r.c.Endpoints(), st.Line()+" --plan-out "+path)
		if err != nil {
			return "", false, err
		}
		if run.rc != 0 || !exists(path) {
			return "", false, nil // refused, or nothing to write: no plan to apply
		}
		return strings.Join(append([]string{"apply", "--file", path}, st.ApplyArgs...), " "), true, nil
	}
	return st.Line(), true, nil
}

// expect is a fresh plan of line on the instance as it is: the release
// heron's dry run saves it (--plan-out); a restore's is its backup.
func (r *runner) expect(ctx context.Context, n int, line string, before state) (expectation, error) {
	r.plans++
	path := filepath.Join(r.opt.Dir, fmt.Sprintf("plan-%d.jsonl", r.plans))
	dry := line + " --format json"
	restore := strings.HasPrefix(line, "restore ")
	if !restore {
		dry += " --plan-out " + path
	}
	run, err := runHeron(ctx, r.opt.Bins.Heron, r.work, r.c.Endpoints(), dry)
	if err != nil {
		return expectation{}, err
	}
	switch {
	case run.rc == 3 || run.rc == 2:
		// Refused (a gate), or a usage error the generator's flags met
		// (a repair with nothing to take its value from): the run must
		// write nothing either.
		return expectation{refused: true, why: lastLine(run.stderr), plan: planned{}, after: before}, nil
	case run.rc != 0:
		r.violate(n, "dry run", "the dry run of `%s` failed: %s", line, run.summary())
		return expectation{}, nil
	}
	p := planned{}
	switch {
	case restore:
		file := words(line)[2]
		restored, err := undo(before, file)
		if err != nil {
			return expectation{}, err
		}
		for k := range keysOf(before, restored) {
			if changedKey(before, restored, k) {
				p[k] = restored[k]
			}
		}
	case exists(path):
		if p, err = readPlan(path); err != nil {
			return expectation{}, fmt.Errorf("read the plan of %s: %w", line, err)
		}
	}
	return expectation{plan: p, after: p.applyTo(before)}, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := lines[len(lines)-1]
	if len(l) > 160 {
		l = l[:160] + "..."
	}
	return l
}

func injectedNow(res *Result, f Fault, before int) bool { return res.Injected[f] > before }

func (e expectation) outcome() string {
	if e.refused {
		return "refused (" + e.why + ")"
	}
	return fmt.Sprintf("plans %d keys", len(e.plan))
}

// keysOf is every key of a or b.
func keysOf(a, b state) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// changed: a and b differ at a key skip does not accept.
func changed(a, b state, skip func(string) bool) bool {
	n, _ := diff(a, b, skip, 0)
	return n > 0
}

// backupSize is about the bytes of the backup of plan: a line per key,
// its original value in base64.
func backupSize(plan planned, before state) int {
	n := 512
	for k := range plan {
		n += len(k) + len(before[k])*4/3 + 64
	}
	return n
}

// txnAt is the transaction a fault at st.At hits: st.At taken modulo the
// transactions the plan needs at the line's --max-txn-ops (less the
// session guard's 2 compares each; phases add more, never fewer).
func txnAt(st Step, line string, keys int) int {
	if st.At == 0 {
		return 0
	}
	ops := 128
	w := words(line)
	for i := range w[:max(len(w)-1, 0)] {
		if w[i] == "--max-txn-ops" {
			if v, err := strconv.Atoi(w[i+1]); err == nil {
				ops = v
			}
		}
	}
	per := max(ops-2, 1)
	txns := max((keys+per-1)/per, 1)
	return 1 + (st.At-1)%txns
}

// faulty runs the step's command line with its fault.
func (r *runner) faulty(ctx context.Context, n int, st Step, line string, want expectation, before state, in *injected) (heronRun, error) {
	st.At = txnAt(st, line, len(want.plan))
	args := line + " --run --format json --backup-dir " + r.backups
	env := r.breakEnv()
	var wrap []string
	pause := filepath.Join(r.opt.Dir, fmt.Sprintf("pause-%d", n))
	paused := false
	switch st.Fault {
	case FaultKill:
		env = append(env, fmt.Sprintf("%s=%d", apply.EnvKillAfterTxns, st.At))
	case FaultKillBackup:
		env = append(env, apply.EnvKillAfterBackup+"=1")
	case FaultStop:
		env = append(env, fmt.Sprintf("%s=%d", apply.EnvFailAfterTxns, st.At))
	case FaultBackupRO:
		args = line + " --run --format json --backup-dir /sys"
	case FaultBackupFull:
		wrap = []string{"prlimit", fmt.Sprintf("--fsize=%d", backupSize(want.plan, before)*st.Millis/1000), "--"}
	case FaultFreeze, FaultMemberKill, FaultLeaderMove, FaultNoSpace, FaultSession, FaultRacer, FaultWriter:
		paused = true
		if st.At == 0 {
			env = append(env, apply.EnvPause+"="+apply.PauseScan+":"+pause)
		} else {
			env = append(env, apply.EnvPause+"="+apply.PauseTxn+":"+pause, fmt.Sprintf("%s=%d", apply.EnvPauseAfterTxns, st.At))
		}
	}
	if st.Fault == FaultMemberKill || st.Fault == FaultLeaderMove || st.Fault == FaultFreeze {
		// Short deadlines, so that a run on a frozen member gives up (or
		// goes on through another) within the schedule's time.
		env = append(env, apply.EnvStallTimeout+"=8s", apply.EnvTxnTimeout+"=8s")
	}
	var storm *stormer
	if st.Fault == FaultCompaction {
		storm = startStorm(r.cli)
		if !want.refused && len(want.plan) > 0 {
			r.res.Injected[FaultCompaction]++
		}
	}
	p, err := startHeron(r.opt.Bins.Failpoints, wrap, r.work, r.c.Endpoints(), args, env)
	if err != nil {
		if storm != nil {
			storm.stop()
		}
		return heronRun{}, err
	}
	var racer *proc
	var after sync.WaitGroup
	if paused {
		for !exists(pause) && !p.exited() {
			time.Sleep(10 * time.Millisecond)
		}
		if exists(pause) {
			r.res.Injected[st.Fault]++
			racer, err = r.inject(ctx, st, line, want, before, in, &after)
			if err != nil {
				_ = os.Remove(pause)
				p.wait()
				return heronRun{}, err
			}
			_ = os.Remove(pause)
		}
	}
	run := p.wait()
	run.fault = st.Fault
	after.Wait()
	if storm != nil {
		storm.stop()
	}
	if racer != nil {
		rr := racer.wait()
		if rr.hung {
			r.violate(n, "hung", "the racing heron did not end in 3 minutes")
		}
	}
	switch st.Fault {
	case FaultKill, FaultKillBackup:
		if run.rc == 137 {
			r.res.Injected[st.Fault]++
		}
	case FaultStop:
		if strings.Contains(run.stderr, "stopped by "+apply.EnvFailAfterTxns) {
			r.res.Injected[st.Fault]++
		}
	case FaultBackupRO, FaultBackupFull:
		// Injected when the run met it: its backup's write failed.
		if run.rc != 0 && strings.Contains(run.stderr, "backup") && !want.refused && len(want.plan) > 0 {
			r.res.Injected[st.Fault]++
		}
	case FaultNone:
		r.res.Injected[st.Fault]++
	}
	if run.hung {
		r.violate(n, "hung", "`%s` did not end in 3 minutes", line)
	}
	return run, nil
}

// inject injects the step's fault while heron is held at its pause point;
// what ends later (a thaw, a restart) is added to after. A racer is
// returned to be waited for.
func (r *runner) inject(ctx context.Context, st Step, line string, want expectation, before state, in *injected, after *sync.WaitGroup) (*proc, error) {
	member := st.Member
	if member < 0 || member >= r.c.Size() {
		member = max(r.c.Leader(ctx), 0)
	}
	down := time.Duration(st.Millis) * time.Millisecond
	switch st.Fault {
	case FaultFreeze:
		r.c.Freeze(member)
		after.Add(1)
		time.AfterFunc(down, func() { r.c.Thaw(member); after.Done() })
	case FaultMemberKill:
		r.c.Kill(member)
		after.Add(1)
		time.AfterFunc(down, func() { _ = r.c.Restart(member); after.Done() })
	case FaultLeaderMove:
		if err := r.c.MoveLeader(ctx); err != nil {
			return nil, fmt.Errorf("move the leader: %w", err)
		}
	case FaultNoSpace:
		if err := fill(ctx, r.cli); err != nil {
			return nil, err
		}
	case FaultSession:
		return nil, r.startSession(ctx, in)
	case FaultRacer:
		// The same command from another pod: its own folder and backups.
		backups := r.racerBackups(st.n)
		if err := os.MkdirAll(backups, 0o755); err != nil {
			return nil, err
		}
		r.external = true
		return startHeron(r.opt.Bins.Failpoints, nil, filepath.Dir(backups), r.c.Endpoints(), line+" --run --format json --backup-dir "+backups, r.breakEnv())
	case FaultWriter:
		r.external = true
		return nil, r.write(ctx, st, want, before, in)
	}
	return nil, nil
}

// startSession registers a Milvus component: a session key with a lease.
func (r *runner) startSession(ctx context.Context, in *injected) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	lease, err := r.cli.Grant(ctx, 120)
	if err != nil {
		return err
	}
	in.session = rootPath + "/meta/session/querynode-99"
	resp, err := r.cli.Put(ctx, in.session, `{"ServerID":99,"ServerName":"querynode","Address":"10.0.0.99:21123","Version":"2.6.23"}`, clientv3.WithLease(lease.ID))
	if err != nil {
		return err
	}
	in.sessionRev = resp.Header.Revision
	return nil
}

// endSession stops the component: its lease revoked, its key gone.
func (r *runner) endSession(ctx context.Context, in *injected) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := r.cli.Get(ctx, in.session)
	if err != nil {
		return err
	}
	for _, kv := range resp.Kvs {
		if _, err := r.cli.Revoke(ctx, clientv3.LeaseID(kv.Lease)); err != nil {
			return err
		}
	}
	return nil
}

// write changes keys of the instance as a Milvus component would: a value
// with one more (unknown) field, on keys the plan writes and one it does
// not.
func (r *runner) write(ctx context.Context, st Step, want expectation, before state, in *injected) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rng := rand.New(rand.NewPCG(r.s.Seed, uint64(st.Millis)))
	var plannedKeys, others []string
	for k := range want.plan {
		if v, ok := before[k]; ok && isProto(v) && strings.HasPrefix(k, rootPath+"/") {
			plannedKeys = append(plannedKeys, k)
		}
	}
	for k, v := range before {
		if _, ok := want.plan[k]; !ok && strings.HasPrefix(k, rootPath+"/meta/datacoord-meta/s/") && isProto(v) {
			others = append(others, k)
		}
	}
	sort.Strings(plannedKeys)
	sort.Strings(others)
	var keys []string
	for range st.Millis {
		if len(plannedKeys) > 0 {
			keys = append(keys, plannedKeys[rng.IntN(len(plannedKeys))])
		}
	}
	if len(others) > 0 {
		keys = append(keys, others[rng.IntN(len(others))])
	}
	for _, k := range keys {
		cur, err := r.cli.Get(ctx, k)
		if err != nil {
			return err
		}
		var v []byte
		if len(cur.Kvs) > 0 {
			v = cur.Kvs[0].Value
		}
		// field 1999, varint: a field heron does not know (the writer's mark)
		nv := append(append([]byte{}, v...), 0xf8, 0x7c, byte(1+len(in.writes)))
		if _, err := r.cli.Put(ctx, k, string(nv)); err != nil {
			return err
		}
		in.writes[k] = nv
	}
	return nil
}

// isProto: v looks like a protobuf message heron decodes (starts with a
// field 1..15 tag), so a field appended keeps it one.
func isProto(v []byte) bool { return len(v) > 0 && v[0] >= 0x08 && v[0] < 0x80 && v[0]&7 <= 2 }

// fill writes large values outside the instance until etcd raises its
// NOSPACE alarm.
func fill(ctx context.Context, cli *clientv3.Client) error {
	big := bytes.Repeat([]byte("x"), 1<<20)
	for i := range 200 {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := cli.Put(cctx, fmt.Sprintf("%s%04d", fillPrefix, i), string(big))
		cancel()
		if err != nil {
			if strings.Contains(err.Error(), "space exceeded") {
				return nil
			}
			return fmt.Errorf("fill: %w", err)
		}
	}
	return fmt.Errorf("fill: 200 MiB written and no NOSPACE")
}

// stormer compacts etcd to its current revision every few milliseconds
// while 4 writers put keys outside the instance.
type stormer struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startStorm(cli *clientv3.Client) *stormer {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stormer{cancel: cancel}
	for w := range 4 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				_, _ = cli.Put(ctx, fmt.Sprintf("%s%d/%d", stormPrefix, w, i%50), "storm")
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for ctx.Err() == nil {
			if resp, err := cli.Get(ctx, stormPrefix+"0/0"); err == nil {
				_, _ = cli.Compact(ctx, resp.Header.Revision)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return s
}

func (s *stormer) stop() {
	s.cancel()
	s.wg.Wait()
}
