package chaos

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Fault is a kind of fault a step injects.
type Fault string

// The fault kinds. A fault "at" a point is injected while heron is held
// there by the failpoints build's HERON_APPLY_PAUSE (after its Nth
// transaction, or at its scan), then heron goes on.
const (
	FaultNone       Fault = "none"            // the control: no fault
	FaultKill       Fault = "kill"            // SIGKILL of heron right after transaction N (HERON_APPLY_KILL_AFTER_TXNS)
	FaultKillBackup Fault = "kill-backup"     // SIGKILL of heron once its backup is synced, before any write
	FaultStop       Fault = "stop"            // heron stops cleanly after transaction N (HERON_APPLY_FAIL_AFTER_TXNS)
	FaultFreeze     Fault = "etcd-freeze"     // SIGSTOP of an etcd member at the point, SIGCONT a while later
	FaultMemberKill Fault = "member-kill"     // SIGKILL of a member (the leader or a follower) of 3 at the point, restarted a while later
	FaultLeaderMove Fault = "leader-move"     // the leader of 3 moved to another member at the point
	FaultCompaction Fault = "compaction"      // a compaction storm (to the current revision every few ms) and a writer outside the root, all through the run
	FaultNoSpace    Fault = "nospace"         // etcd's quota filled at the point (NOSPACE alarm); healed after
	FaultSession    Fault = "session"         // a Milvus component registers a session with a lease at the point
	FaultRacer      Fault = "racer"           // another heron runs the same command from the point on
	FaultWriter     Fault = "writer"          // another writer changes keys of the instance at the point
	FaultBackupRO   Fault = "backup-readonly" // --backup-dir where no file can be created (a read-only filesystem)
	FaultBackupFull Fault = "backup-full"     // the backup folder full: heron's file size limit (RLIMIT_FSIZE) below its backup
)

// Faults is every kind, in the order reports list them.
var Faults = []Fault{FaultNone, FaultKill, FaultKillBackup, FaultStop, FaultFreeze, FaultMemberKill, FaultLeaderMove,
	FaultCompaction, FaultNoSpace, FaultSession, FaultRacer, FaultWriter, FaultBackupRO, FaultBackupFull}

// Command is a kind of write command a step runs.
type Command string

// The write commands.
const (
	CmdReset       Command = "reset checkpoint"
	CmdResetWAL    Command = "reset wal"
	CmdRestore     Command = "restore"
	CmdApply       Command = "apply --file"
	CmdRepairTask  Command = "repair wal-broadcast-task"
	CmdRepairCP    Command = "repair checkpoint"
	CmdRepairReg   Command = "repair vchannel-registration"
	CmdRepairRecov Command = "repair wal-recovery-storage"
	CmdRemoveRepl  Command = "remove replicate-pchannel"
)

// Commands is every command kind, in the order reports list them.
var Commands = []Command{CmdReset, CmdResetWAL, CmdRestore, CmdApply, CmdRepairTask, CmdRepairCP, CmdRepairReg, CmdRepairRecov, CmdRemoveRepl}

// Step is one write command of a schedule and the fault injected into it.
type Step struct {
	n       int // 1-based position in the schedule
	Command Command
	// Args is the command line without --run, --backup-dir and --format
	// (restore's --file is the newest backup of the steps before; apply's
	// plan is saved with --plan-out from Args, a reset, right before).
	Args  []string
	Fault Fault
	// At picks the transaction after which the fault is injected (0: at
	// the plan's scan, before any write): the runner takes it modulo the
	// transactions the plan needs, so that it falls inside the run.
	At int
	// Member is the etcd member a member fault hits (-1: the leader).
	Member int
	// Millis is how long a frozen or killed member stays down, how many
	// keys a writer changes, or the file size limit of a full backup
	// folder, per mille of the backup's size.
	Millis int
	// Rollback: after a STOPPED run, run its "to roll it back" command
	// instead of "to complete it".
	Rollback bool
	// ApplyArgs are apply --file's flags (Args save the plan).
	ApplyArgs []string
}

// Line is the step's command line as the runner types it (restore's and
// apply's file filled in).
func (s Step) Line() string { return strings.Join(s.Args, " ") }

// Schedule is what one seed generates: an instance, an etcd cluster, and
// steps run one after the other.
type Schedule struct {
	Seed     uint64
	Members  int    // 1 or 3
	WAL      string // the instance's WAL
	Segments int    // segments added to the sample instance
	// Damage seeded for the repairs (what `check` finds after a switch).
	SchemasLost      int  // vchannels whose recovery-storage schemas are gone
	RegistrationGone bool // books' first vchannel has no vchannel meta
	PendingTask      bool // broadcast task 2 is Pending (an in-flight alter-WAL)
	Replicating      bool // a replicating-pchannel record to a cluster
	Quota            int64
	Steps            []Step
	targets          []string // the reset targets of the steps so far
}

// String is the schedule on one line (the report names failures by it).
func (s Schedule) String() string {
	var steps []string
	for _, st := range s.Steps {
		at := ""
		if st.Fault != FaultNone {
			at = fmt.Sprintf(" @%d", st.At)
		}
		steps = append(steps, fmt.Sprintf("[%s | %s%s]", st.Line(), st.Fault, at))
	}
	return fmt.Sprintf("seed %d: %d member(s), %s, +%d segments: %s", s.Seed, s.Members, s.WAL, s.Segments, strings.Join(steps, " "))
}

var wals = []string{"pulsar", "kafka", "woodpecker", "rocksmq"}

// Generate is the schedule of seed: the same seed, the same schedule. The
// seed also decides the fault and command of one step, the last (a
// broadcast task's repair: the first), Faults and Commands in turn, so
// that any run of consecutive seeds covers every kind evenly and a replay
// needs only the seed.
func Generate(seed uint64) Schedule {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := Schedule{Seed: seed, Members: 1, WAL: wals[r.IntN(len(wals))], Segments: r.IntN(300)}
	s.SchemasLost = r.IntN(3)
	s.RegistrationGone = r.IntN(3) == 0
	s.Replicating = r.IntN(3) == 0
	fault, cmd := Faults[seed%uint64(len(Faults))], Commands[seed%uint64(len(Commands))]
	switch cmd {
	case CmdRepairTask:
		// A Pending broadcast task refuses every other write command:
		// only its repair's schedules have one, the repair first.
		s.PendingTask = true
	case CmdResetWAL:
		// heron demo's pulsar and kafka instances keep woodpecker logs.
		s.WAL = wals[r.IntN(2)]
	case CmdRepairReg:
		s.RegistrationGone = true
	case CmdRemoveRepl:
		s.Replicating = true
	case CmdRepairRecov:
		s.SchemasLost = max(s.SchemasLost, 1)
	}
	n := 1 + r.IntN(3)
	if cmd == CmdRestore {
		n = max(n, 2) // a backup to restore first
	}
	forced := n - 1
	if cmd == CmdRepairTask {
		forced = 0
	}
	for i := range n {
		if i == forced {
			s.Steps = append(s.Steps, genStep(r, &s, i, fault, cmd))
		} else {
			s.Steps = append(s.Steps, genStep(r, &s, i, Faults[r.IntN(len(Faults))], ""))
		}
	}
	for _, st := range s.Steps {
		switch st.Fault {
		case FaultMemberKill, FaultLeaderMove:
			s.Members = 3
		case FaultNoSpace:
			s.Quota = 24 << 20
		}
	}
	if s.Members == 1 && r.IntN(4) == 0 {
		s.Members = 3
	}
	return s
}

// genStep is step i with fault f, its command cmd ("": a random one that
// fits the instance).
func genStep(r *rand.Rand, s *Schedule, i int, f Fault, cmd Command) Step {
	st := Step{n: i + 1, Fault: f, Member: -1}
	cmds := []Command{CmdReset, CmdReset, CmdReset, CmdResetWAL, CmdApply, CmdRepairCP, CmdRepairRecov}
	if i > 0 {
		cmds = append(cmds, CmdRestore, CmdRestore)
	}
	if s.RegistrationGone {
		cmds = append(cmds, CmdRepairReg)
	}
	if s.Replicating {
		cmds = append(cmds, CmdRemoveRepl)
	}
	st.Command = cmds[r.IntN(len(cmds))]
	if cmd != "" {
		st.Command = cmd
	}
	pchannels := []string{"by-dev-rootcoord-dml_0", "by-dev-rootcoord-dml_1", "by-dev-rootcoord-dml_2"}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	scope := func() []string {
		if r.IntN(5) != 0 {
			return nil
		}
		return []string{"--pchannel", pick(pchannels)}
	}
	switch st.Command {
	case CmdReset, CmdApply:
		// A target no step before moved the instance to, so that the
		// step has something to write.
		var fresh []string
		for _, w := range wals {
			if w != s.WAL && !slices.Contains(s.targets, w) {
				fresh = append(fresh, w)
			}
		}
		target := pick(wals)
		if len(fresh) > 0 {
			target = pick(fresh)
		}
		s.targets = append(s.targets, target)
		st.Args = append([]string{"reset", "checkpoint", "--target-wal", target}, scope()...)
		// heron demo's pulsar and kafka instances keep woodpecker logs.
		if r.IntN(3) == 0 || (target == "woodpecker" && r.IntN(3) != 0) {
			st.Args = append(st.Args, "--allow-non-empty-target")
		}
	case CmdResetWAL:
		st.Args = append([]string{"reset", "wal", "--target", "woodpecker"}, scope()...)
	case CmdRestore:
		st.Args = []string{"restore"}
	case CmdRepairTask:
		mode := pick([]string{"reset", "remove"})
		st.Args = []string{"repair", "wal-broadcast-task", "--id", "2", "--mode", mode}
		if mode == "remove" {
			st.Args = append(st.Args, "--force")
		}
	case CmdRepairCP:
		// latest-cp takes a segment's position (logs' vchannel has no
		// segment); latest-msgid needs a Kafka broker: not here.
		if r.IntN(2) == 0 {
			st.Args = []string{"repair", "checkpoint", "--vchannel", pick(sampleVChannels[:3]), "--set-to", "latest-cp"}
		} else {
			st.Args = []string{"repair", "checkpoint", "--vchannel", pick(sampleVChannels), "--set-to", "pchannel-cp"}
		}
	case CmdRepairReg:
		st.Args = []string{"repair", "vchannel-registration", "--vchannel", sampleVChannels[0]}
	case CmdRepairRecov:
		st.Args = []string{"repair", "wal-recovery-storage"}
	case CmdRemoveRepl:
		st.Args = []string{"remove", "replicate-pchannel", "--target-cluster", replicaCluster, "--source-channel", pchannels[0]}
	}
	st.Args = append(st.Args, runFlags(r)...)
	if st.Command == CmdApply {
		// apply --file takes the kit's flags too; the plan is saved
		// with the reset's own, these go on the apply line.
		st.ApplyArgs = runFlags(r)
	}
	st.Rollback = r.IntN(3) == 0
	switch f {
	case FaultKill, FaultStop:
		st.At = 1 + r.IntN(3) // the first transactions, where a plan of 3 keys is still split
		if r.IntN(2) == 0 {
			st.At = 1 + r.IntN(10)
		}
	case FaultFreeze, FaultMemberKill, FaultLeaderMove, FaultNoSpace, FaultSession, FaultRacer, FaultWriter:
		st.At = r.IntN(5) // 0: at the scan
		st.Millis = 100 + r.IntN(2500)
		if r.IntN(2) == 0 {
			st.Member = r.IntN(3)
		}
		if f == FaultWriter {
			st.Millis = 1 + r.IntN(5)
		}
	case FaultBackupFull:
		st.Millis = 50 + r.IntN(900) // per mille of the backup's size
	}
	return st
}

// runFlags are the random flags of the kit every write command takes.
func runFlags(r *rand.Rand) []string {
	var out []string
	if r.IntN(4) != 0 {
		out = append(out, "--max-inflight", fmt.Sprint([]int{1, 2, 4, 8}[r.IntN(4)]))
	}
	if r.IntN(4) != 0 {
		out = append(out, "--max-txn-ops", fmt.Sprint([]int{3, 4, 5, 8, 16}[r.IntN(5)]))
	}
	if r.IntN(5) == 0 {
		out = append(out, "--max-request-bytes", fmt.Sprint([]int{16384, 65536, 262144}[r.IntN(3)]))
	}
	return out
}
