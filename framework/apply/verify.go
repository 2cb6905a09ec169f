package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/heron-shell/heron/framework"
)

// verify checks every key of the published backup (each put holds the
// bytes staged, each delete is absent: proven by the run's own revisions
// when nothing else wrote, read back otherwise), plans again (nothing more
// to do), then runs the plan's After checks.
func (k *kit[S, P]) verify(ctx context.Context, opt Options, pl *Plan, st *Stage) (*Verify, error) {
	v, err := k.verifyWritten(ctx, opt, pl, st)
	return v, afterWrite(err)
}

func (k *kit[S, P]) verifyWritten(ctx context.Context, opt Options, pl *Plan, st *Stage) (*Verify, error) {
	v := &Verify{Failures: []string{}}
	var again int64
	var planned bool
	var readErr, planErr error
	if pl.Replan != nil && pl.Keys > 0 {
		// The read-back first: proven by revisions, the command's own proof
		// of the re-plan stands in for it (Replan).
		if readErr = readBack(ctx, k.store, st.openBackup, st.staged, v); readErr == nil && v.ReadBack == provenByRevisions {
			again, planned, planErr = replanProven(ctx, pl.Replan, v.Revision)
		}
		if readErr == nil && !planned && planErr == nil {
			if pl.Replan.Pending != nil {
				again, planned, planErr = pending(ctx, pl.Replan.Pending)
			} else {
				again, planned, planErr = k.replanKeys(ctx, opt, pl)
			}
		}
	} else {
		// The read-back and the re-plan are independent reads: they run side
		// by side, so the verify costs about one scan.
		var wg sync.WaitGroup
		if pl.Keys > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				readErr = readBack(ctx, k.store, st.openBackup, st.staged, v)
			}()
		}
		again, planned, planErr = k.replanKeys(ctx, opt, pl)
		wg.Wait()
	}
	if readErr != nil {
		return v.unread(pl, "the written keys could not be read back", readErr)
	}
	if planErr != nil {
		return v.unread(pl, "planning again could not read the instance", planErr)
	}
	if planned {
		v.Replanned = again
		if again > 0 {
			v.fail("planned again, the command still finds %d keys to write", again)
		}
	}
	var live *LiveError
	switch err := checkGuards(ctx, k.store, opt.guards); {
	case err == nil:
	case errors.As(err, &live):
		// A component live now is first among the problems: it is who wrote
		// over any key that does not read back.
		v.Running = live.Running()
		v.FailuresTotal++
		v.Failures = append([]string{err.Error()}, v.Failures...)[:min(len(v.Failures)+1, maxListedFailures)]
	default:
		v.fail("%v", err)
	}
	for _, c := range pl.After {
		var note string
		var err error
		proven := c.Proven != nil && v.ReadBack == provenByRevisions
		if proven {
			// At the verify's revision; compacted since, read as Run does.
			note, err = c.Proven(ctx, v.Revision)
			proven = err == nil || !stale(err)
		}
		if !proven {
			note, err = runCheck(ctx, c)
		}
		switch {
		case err != nil && unreadable(err):
			return v.unread(pl, fmt.Sprintf("the check %q could not read the instance", c.Name), err)
		case err != nil:
			v.OK = false
			v.fail("%s", err)
			return v, fmt.Errorf("verify: %s", err)
		}
		v.Note = note
	}
	v.OK = v.FailuresTotal == 0
	first := strings.Join(v.Failures[:min(3, len(v.Failures))], "; ")
	switch {
	case !v.OK && pl.Keys == 0:
		return v, fmt.Errorf("verify: nothing was written, and %d problems after the run, first: %s", v.FailuresTotal, first)
	case !v.OK && v.Running != "":
		return v, fmt.Errorf("verify: %d problems after the run: a Milvus component is running: %s; stop it (every component), then re-run heron to complete; first: %s",
			v.FailuresTotal, v.Running, first)
	case !v.OK:
		return v, fmt.Errorf("verify: %d problems after the run, first: %s", v.FailuresTotal, first)
	}
	return v, nil
}

// runCheck runs an After check, again when etcd compacts the revision it
// reads at (up to maxReadBacks times).
func runCheck(ctx context.Context, c Check) (string, error) {
	for attempt := 1; ; attempt++ {
		note, err := c.Run(ctx)
		if err == nil || !stale(err) || attempt == maxReadBacks {
			return note, err
		}
	}
}

// stale: a read at a revision etcd compacted away (read again at a new one).
func stale(err error) bool { return framework.IsStaleRead(err) || IsCompacted(err) }

// unreadable: a read the verify could not make (compacted past every
// attempt, not permitted, the cluster away), which says nothing of the
// keys the run wrote.
func unreadable(err error) bool {
	return stale(err) || IsPermissionDenied(err) || transientRead(err)
}

// unread ends a verify that could not read what it needed after a
// completed write: what was proven stays in v, Unread says what could not
// be read and why, Again the commands that check again. The error says
// the write completed.
func (v *Verify) unread(pl *Plan, what string, err error) (*Verify, error) {
	why := err.Error()
	if stale(err) {
		why = fmt.Sprintf("etcd compacted its history past the revision it read at, %d times (another writer moves the revision and etcd's compactor runs): %v", maxReadBacks, err)
	}
	v.Unread = framework.EscapeText(what + ": " + why)
	v.Again = checkAgain(pl.commandLine)
	written := "the run's keys were written"
	if pl.Keys == 0 {
		written = "nothing was written"
	}
	return v, fmt.Errorf("verify incomplete: %s; %s; check again with: %s", written, v.Unread, strings.Join(v.Again, ", then "))
}

// checkAgain are the commands that check a run of command (its line, with
// --run) again: its own dry run and show checkpoint.
func checkAgain(command string) []string {
	return []string{strings.TrimSpace(strings.ReplaceAll(" "+command+" ", " --run ", " ")), "show checkpoint"}
}

// replanLabel is the progress label of the verify's re-plan.
const replanLabel = "verify: planning again"

// replanKeys builds the plan again at the current revision (pl.Again's
// plan when it names one), again when etcd compacts the one it reads at (up
// to maxReadBacks times), and returns the keys it would write.
func (k *kit[S, P]) replanKeys(ctx context.Context, opt Options, pl *Plan) (int64, bool, error) {
	for attempt := 1; ; attempt++ {
		again, err := k.planAgain(ctx, opt, pl)
		if err == nil {
			return again.Keys, true, nil
		}
		if !stale(err) || attempt == maxReadBacks {
			return 0, false, err
		}
	}
}

// pending is a command's cheap re-plan (Replan.Pending), again when etcd
// compacts the revision it reads at (up to maxReadBacks times).
func pending(ctx context.Context, keys func(context.Context) (int64, error)) (int64, bool, error) {
	for attempt := 1; ; attempt++ {
		n, err := keys(ctx)
		if err == nil {
			return n, true, nil
		}
		if !stale(err) || attempt == maxReadBacks {
			return 0, false, err
		}
	}
}

// replanProven is the re-plan's answer from the command's proof r at rev,
// a revision the run's own revisions prove (planned false: the context at
// rev decides otherwise, or etcd compacted rev: the kit plans again).
func replanProven(ctx context.Context, r *Replan, rev int64) (int64, bool, error) {
	same, err := r.Same(ctx, rev)
	switch {
	case err != nil && framework.IsStaleRead(err):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case !same:
		return 0, false, nil
	}
	return r.Unsettled, true, nil
}

const maxListedFailures = 20

// Verify is the read-back after the writes.
type Verify struct {
	OK bool `json:"ok"`
	// Revision is the revision the keys were checked at.
	Revision int64 `json:"revision"`
	// Keys checked; Replanned is what planning again found to write.
	Keys int64 `json:"keys_checked"`
	// ReadBack is how the keys were checked: "proven by revisions" (every
	// revision since the plan's is one of the run's transactions, so each
	// key holds what its transaction wrote, nothing read), or "keys-only
	// read, N values compared" (something else wrote to etcd: mod revisions
	// read, values compared only where a key's is not its transaction's).
	ReadBack string `json:"read_back"`
	// ValuesCompared counts the values read back and compared.
	ValuesCompared int64    `json:"values_compared"`
	Replanned      int64    `json:"replanned_keys"`
	Failures       []string `json:"failures"`
	// FailuresTotal counts every failure (at most 20 are listed).
	FailuresTotal int64 `json:"failures_total"`
	// Note replaces "ok" when an After check found something to say.
	Note string `json:"note,omitempty"`
	// Unread says what the verify could not read after a completed write,
	// and why ("": it read everything); Again are the commands that check
	// the run again.
	Unread string   `json:"unread,omitempty"`
	Again  []string `json:"check_again,omitempty"`
	// Running names the Milvus component live at the verify
	// (LiveError.Running): the verify fails, and the run is stopped.
	Running string `json:"running,omitempty"`
}

func (v *Verify) fail(format string, a ...any) {
	v.FailuresTotal++
	if len(v.Failures) < maxListedFailures {
		v.Failures = append(v.Failures, fmt.Sprintf(format, a...))
	}
}

// maxReadBacks is how many times verify reads the keys back when etcd
// compacts the revision it reads at.
const maxReadBacks = 3
