package apply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Scan is a command's scan: it decides every key at the plan's revision,
// in write order, and yields each op (yield is nil when nothing is staged,
// a dry run: the scan then builds no op, it only decides).
type Scan func(ctx context.Context, yield func(Op) error) error

// Stage is where a plan's ops go: the kit makes it and hands it to build.
// On a dry run it stages nothing; with --run or --plan-out its ops go into
// a temporary backup file (the old values; the new ones in the file, or
// derived again by the header's Rule), which the kit publishes on commit.
type Stage struct {
	opt     Options
	staging bool
	staged  *Staged
	label   string // the progress label of a scan that stages nothing
	// planner and params are the command that plans and its recorded flags
	// (Header.Planner, Header.Params); tap sees every op of the scan
	// (Replay); header is the one the scan staged under.
	planner string
	params  []string
	tap     func(Op) error
	header  Header
	// held is the published backup, open until the verify has read it back
	// (a backup deleted during the run is still read back, and reported).
	held *os.File
	// read counts the keys a scan that stages nothing reads (its progress:
	// such a scan yields no op to count); a no-op while staging.
	read func(n int)
}

// openBackup reads the published backup from its start.
func (s *Stage) openBackup() (*BackupReader, error) {
	if s.held != nil {
		return reopen(s.staged.opt.BackupPath, s.held)
	}
	return OpenBackup(s.staged.opt.BackupPath)
}

// release closes the held backup.
func (s *Stage) release() {
	if s.held != nil {
		_ = s.held.Close()
		s.held = nil
	}
}

// Scan runs scan once with the header of the backup the run publishes
// (name goes into the backup's file name).
func (s *Stage) Scan(ctx context.Context, h Header, name string, scan Scan) error {
	if s.staged != nil {
		return errors.New("a plan staged its ops twice")
	}
	h.Heron = HeronBuild()
	if s.planner != "" {
		h.Planner, h.Params = s.planner, s.params
	}
	s.header = h
	if !s.staging {
		// Nothing staged, nothing counted: the scan counts what it reads
		// (Phases.Scan's read), shown once it takes longer than a progress
		// interval.
		prog := startQuietProgress(s.opt.Progress, s.label, s.opt.ProgressInterval)
		count := prog.add
		if pause := s.opt.Pause; pause != nil && s.label == replanLabel {
			paused := false
			count = func(n int) {
				prog.add(n)
				if !paused {
					paused = true
					pause(PauseReplan)
				}
			}
		}
		s.read = count
		err := scan(ctx, s.tap)
		prog.finish(err == nil)
		return err
	}
	opt := s.opt
	opt.Header = h
	opt.BackupPath = BackupPath(opt.BackupDir, h.RootPath, name, h.Revision, time.Now())
	st, err := newStaged(opt, "scan", h.Rule == "")
	if err != nil {
		// A dry run with --plan-out stages in the plan's folder, not
		// --backup-dir's: the step names both.
		return fmt.Errorf("%w; nothing was written: choose a writable folder with --backup-dir (a dry run with --plan-out FILE: FILE's folder)", err)
	}
	st.ctx = ctx
	s.staged = st
	s.read = func(int) {}
	yield := st.add
	if tap := s.tap; tap != nil {
		yield = func(op Op) error {
			if err := tap(op); err != nil {
				return err
			}
			return st.add(op)
		}
	}
	if err := scan(ctx, yield); err != nil {
		return err
	}
	return st.close()
}

// Rule derives the op of a staged entry again from its backed-up old value:
// a pure function of the backup header (its RuleParams), registered by name,
// so that a staged plan need not carry new values it can compute.
type Rule func(h Header) (func(Entry) (Op, error), error)

var (
	rulesMu sync.RWMutex
	rules   = map[string]Rule{}
)

// RegisterRule registers rule under name (a command's package does, in init).
func RegisterRule(name string, rule Rule) {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	rules[name] = rule
}

// ruleFor is the function that gives each entry of a file with header h its
// op: the header's rule, or the entry's own new value.
func ruleFor(h Header) (func(Entry) (Op, error), error) {
	if h.Rule == "" {
		return entryOp, nil
	}
	rulesMu.RLock()
	rule, ok := rules[h.Rule]
	rulesMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("the file names rule %q, which this heron does not know", h.Rule)
	}
	return rule(h)
}

// Derive is the function that gives each entry of a backup with header h
// the op its command wrote (its new value: in the entry, or derived again by
// the header's Rule): what restore compares a key with to see whether the
// instance moved on since.
func Derive(h Header) (func(Entry) (Op, error), error) { return ruleFor(h) }

// entryOp is the op of an entry that carries its new value.
func entryOp(e Entry) (Op, error) {
	op := Op{Key: e.Key, ModRevision: e.ModRevision, Delete: e.Delete, Phase: e.Phase}
	if !e.Absent {
		op.Original = e.Value
	}
	if !e.Delete {
		if !e.HasNew {
			return Op{}, fmt.Errorf("entry %s has no new value", keyText(e.Key))
		}
		op.Value = e.New
	}
	return op, nil
}

// saveAs publishes the staged ops under path (a dry run's --plan-out) and
// returns the plan's digest (its SHA-256 end line).
func (st *Staged) saveAs(path string) (string, error) {
	if st == nil {
		return "", errors.New("plan: nothing was staged")
	}
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("plan: %s already exists", path)
	}
	st.bw.final = path
	if err := st.bw.Commit(); err != nil {
		return "", fmt.Errorf("plan: %w", err)
	}
	digest := st.bw.digest
	st.bw = nil
	return digest, nil
}

// copyFile copies the published backup to path (--plan-out with --run).
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("plan: write %s: %w", to, err)
	}
	return out.Close()
}
