package apply

import (
	"context"
	"io"

	"github.com/heron-shell/heron/framework"
)

// Phases are a write command as typed phases, run in this order at one
// revision the kit reads (README.md beside this file: how to add one):
//
//	Context (read at the plan's revision)  ->  Scan (decide every key, yield ops)
//	  ->  Gates (those that need the scan)  ->  View (pure: the plan shown)
//
// C is the command's context (first in each phase, so that a phase may be
// a method expression, (*walPlan).scan): what Context read, what Scan decides into it
// (its counts), what Gates and View read. The kit owns the rest: the
// revision, the instance gates (Instance), the stage, the guards, the
// refusal, the backup chain, the STOPPED block and the verify.
type Phases[S Guarded, P, C any] struct {
	// Context reads what the command needs at rev and decides what it can
	// before the scan; a usage error (a flag the instance refutes) stops
	// the plan.
	Context func(ctx context.Context, s S, p *P, rev int64) (C, error)
	// Header is the backup header of the scan, and the name its file
	// carries ("reset-wal").
	Header func(c C) (Header, string)
	// Scan decides every key at the plan's revision, in write order, and
	// yields each op (yield is nil on a dry run: it decides, builds no op);
	// read counts the keys it reads, the kit's progress of a scan that
	// yields nothing.
	Scan func(c C, ctx context.Context, read func(n int), yield func(Op) error) error
	// Gates are the gates that need the scan (nil: none), after the
	// instance's and the context's.
	Gates func(c C, ctx context.Context) ([]framework.Gate, error)
	// View is the plan shown, a pure function of c and every gate: the kit
	// sets the plan's Gates.
	View func(c C, gates []framework.Gate) *Plan
	// Replay, set instead of Header and Scan, is a scan that plans another
	// write command again through st (apply --file: the command a saved
	// plan records, see Replay): that command's build stages the ops and
	// runs the instance gates, so the kit runs none of its own (they would
	// run twice), and Gates shows them.
	Replay func(c C, ctx context.Context, st *Stage) error
}

// Instance runs the gates every write command's plan shows first (the
// instance's: etcd alarms, its generation, live components, broadcasts) at
// rev, beside the command's Context.
type Instance[S Guarded] func(ctx context.Context, s S, rev int64) ([]framework.Gate, error)

// Waiver is a command context that waives instance gates which do not
// guard what its plan writes (a repair of a stuck broadcast task is not
// refused for that task being in flight): gate name -> why. Every instance
// gate runs unless the context names it, and a waived gate still shows, as
// passed, with the reason in its place.
type Waiver interface{ Waived() map[string]string }

func waive(gates []framework.Gate, why map[string]string) []framework.Gate {
	for i, g := range gates {
		if reason, ok := why[g.Name]; ok {
			gates[i] = framework.Gate{Name: g.Name, OK: true, Detail: "not needed here: " + reason}
		}
	}
	return gates
}

// Revisioned is a store that reads etcd's revision under what it reads.
type Revisioned interface {
	Guarded
	Revision(ctx context.Context) (int64, error)
}

// Phased is the Build of a command's phases: the revision, the instance
// gates (read side by side with the command's context), the scan through
// the stage, the gates after it, the view. A context that holds a file open
// (an io.Closer) is closed once the scan has read it.
func Phased[S Revisioned, P, C any](instance Instance[S], ph Phases[S, P, C]) Build[S, P] {
	return func(ctx context.Context, s S, p *P, st *Stage) (*Plan, error) {
		rev, err := s.Revision(ctx)
		if err != nil {
			return nil, err
		}
		var instanceGates []framework.Gate
		var gateErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			if ph.Replay == nil {
				instanceGates, gateErr = instance(ctx, s, rev)
			}
		}()
		c, err := ph.Context(ctx, s, p, rev)
		<-done
		if err != nil {
			return nil, err
		}
		if cl, ok := any(c).(io.Closer); ok {
			defer cl.Close()
		}
		if gateErr != nil {
			return nil, gateErr
		}
		if w, ok := any(c).(Waiver); ok {
			instanceGates = waive(instanceGates, w.Waived())
		}
		if ph.Replay != nil {
			err = ph.Replay(c, ctx, st)
		} else {
			h, name := ph.Header(c)
			err = st.Scan(ctx, h, name, func(ctx context.Context, yield func(Op) error) error { return ph.Scan(c, ctx, st.read, yield) })
		}
		if err != nil {
			return nil, err
		}
		gates := instanceGates
		if ph.Gates != nil {
			more, err := ph.Gates(c, ctx)
			if err != nil {
				return nil, err
			}
			gates = append(gates, more...)
		}
		pl := ph.View(c, gates)
		pl.Gates = gates
		return pl, nil
	}
}
