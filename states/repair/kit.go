// Package repair is the `repair` namespace: the WAL family of repairs of
// what `check` finds (a frozen channel checkpoint, a missing vchannel
// registration, a stuck broadcast task, schemas lost from recovery
// storage), each a write command on the kit (framework/apply) with
// birdwatcher's names and flag meanings. A repair is its flags and one
// Decide function (one file each); Build turns it into the kit's phases,
// with the instance gates, the gate of the components that cache what it
// writes (models.Cache), a backup, the session guard in every transaction
// and the verify. `remove replicate-pchannel` (states/remove) is one too.
package repair

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
	"github.com/heron-shell/heron/states/instance"
)

// Commands are the repairs on a connected instance.
func Commands(inst *instance.Instance) []*framework.Command { return tuned(inst, nil) }

// tuned are the repairs with tune adjusting every run's options (tests).
func tuned(inst *instance.Instance, tune func(*apply.Options)) []*framework.Command {
	return []*framework.Command{
		apply.Tuned(inst, CheckpointBuild, tune),
		apply.Tuned(inst, BroadcastTaskBuild, tune),
		apply.Tuned(inst, RegistrationBuild, tune),
		apply.Tuned(inst, RecoveryStorageBuild, tune),
	}
}

// Repair is one repair command: its name, what it writes and who caches
// it, and how it decides.
type Repair[P any] struct {
	// Command is the command's path ("repair wal-broadcast-task").
	Command string
	Cache   models.Cache
	// Decide reads what the repair needs at rev and decides every change;
	// a usage error (a flag the instance refutes) stops the plan.
	Decide func(ctx context.Context, inst *instance.Instance, p *P, rev int64) (*Decision, error)
	// Line is the command line the backup records (no --run).
	Line func(p *P) string
	// Pending, when set, counts the keys a plan at rev (0: now) would
	// write, without Decide's usage errors: the verify's re-plan after a
	// run (and apply --file's) uses it, for a repair whose Decide refuses
	// what the run leaves (a remove: no entry matches once it is gone).
	Pending func(ctx context.Context, inst *instance.Instance, p *P, rev int64) (int64, error)
}

// Decision is what a repair decided at the plan's revision.
type Decision struct {
	// Subject names what is repaired ("broadcast task 7 (CreateCollection, Pending)").
	Subject string
	Changes []Change
	// Gates are the repair's own (a refusal the operator can override
	// with --force shows as overridden).
	Gates     []framework.Gate
	Warnings  []string
	Reminders []string
}

// Gate adds one of the repair's own gates; a failed one that force
// (the command's --force) overrides passes as overridden, its detail
// repeated as a warning.
func (d *Decision) Gate(g framework.Gate, force bool) {
	if !g.OK && force {
		g.OK, g.Overridden = true, true
		d.Warnings = append(d.Warnings, "--force: "+g.Detail)
	}
	d.Gates = append(d.Gates, g)
}

// Change is one key the repair writes, with what it holds before and after
// in words.
type Change struct {
	Key    string `json:"key"`
	Action string `json:"action"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	op     apply.Op
}

// Put replaces kv's value.
func Put(kv instance.KV, value []byte, before, after string) Change {
	return Change{Key: kv.Key, Action: "put", Before: before, After: after,
		op: apply.Op{Key: kv.Key, ModRevision: kv.ModRevision, Value: value, Original: kv.Value}}
}

// Create puts key, which must not exist.
func Create(key string, value []byte, after string) Change {
	return Change{Key: key, Action: "create", After: after, op: apply.Op{Key: key, Value: value}}
}

// Delete removes kv.
func Delete(kv instance.KV, before string) Change {
	return Change{Key: kv.Key, Action: "delete", Before: before,
		op: apply.Op{Key: kv.Key, ModRevision: kv.ModRevision, Delete: true, Original: kv.Value}}
}

// plan is a repair's context: what it decided at rev.
type plan[P any] struct {
	r    *Repair[P]
	inst *instance.Instance
	p    *P
	rev  int64
	d    *Decision
}

func (pl *plan[P]) Waived() map[string]string {
	return gates.RepairWaiver(pl.r.Command)
}

// Build is the kit's phases of a repair (gates.Write: the instance gates
// come first).
func Build[P any](r Repair[P]) apply.Build[*instance.Instance, P] {
	return gates.Write(apply.Phases[*instance.Instance, P, *plan[P]]{
		Context: func(ctx context.Context, inst *instance.Instance, p *P, rev int64) (*plan[P], error) {
			d, err := r.Decide(ctx, inst, p, rev)
			if err != nil {
				return nil, err
			}
			return &plan[P]{r: &r, inst: inst, p: p, rev: rev, d: d}, nil
		},
		Header: func(pl *plan[P]) (apply.Header, string) {
			l := pl.inst.Layout
			return apply.Header{Command: r.Line(pl.p), Endpoints: pl.inst.Endpoints, RootPath: l.RootPath, MetaRoot: l.MetaRoot(),
				Revision: pl.rev, Prefixes: []string{l.MetaRoot()}}, fileName(r.Command)
		},
		Scan: func(pl *plan[P], ctx context.Context, read func(int), yield func(apply.Op) error) error {
			read(len(pl.d.Changes))
			if yield == nil {
				return nil
			}
			// Each change in a phase of its own: written in the order
			// Decide lists them, each committed before the next is sent
			// (whatever --max-inflight and --max-txn-ops), so that a
			// repair puts last what says it is done.
			for i, c := range pl.d.Changes {
				op := c.op
				op.Phase = i
				if err := yield(op); err != nil {
					return err
				}
			}
			return nil
		},
		Gates: func(pl *plan[P], ctx context.Context) ([]framework.Gate, error) {
			g, err := gates.CachedBy(ctx, pl.inst, pl.rev, r.Cache)
			if err != nil {
				return nil, err
			}
			return append([]framework.Gate{g}, pl.d.Gates...), nil
		},
		View: func(pl *plan[P], gs []framework.Gate) *apply.Plan {
			v := &View{Command: r.Command, Line: r.Line(pl.p), Subject: pl.d.Subject, RootPath: pl.inst.Layout.RootPath, Revision: pl.rev,
				Changes: pl.d.Changes, Gates: gs, Warnings: pl.d.Warnings, Reminders: pl.d.Reminders}
			if v.Changes == nil {
				v.Changes = []Change{}
			}
			// A run with nothing to write prints this line, not the view:
			// it carries the warnings.
			nothing := "nothing to repair: " + framework.EscapeText(pl.d.Subject)
			for _, m := range pl.d.Warnings {
				nothing += "\nwarning: " + framework.EscapeText(m)
			}
			out := &apply.Plan{Command: r.Command, Title: r.Command, View: v, Keys: int64(len(pl.d.Changes)), Root: pl.inst.Layout.RootPath,
				Put: "written", Nothing: nothing, Reminders: pl.d.Reminders}
			if r.Pending != nil {
				count := func(ctx context.Context, rev int64) (int64, error) { return r.Pending(ctx, pl.inst, pl.p, rev) }
				out.Replan = &apply.Replan{
					Same: func(ctx context.Context, rev int64) (bool, error) {
						n, err := count(ctx, rev)
						return n == 0, err
					},
					Pending: func(ctx context.Context) (int64, error) { return count(ctx, 0) },
				}
			}
			return out
		},
	})
}

// fileName is the backup file's name part: "repair-wal-broadcast-task".
func fileName(command string) string { return strings.ReplaceAll(command, " ", "-") }

// View is a repair's plan in every format.
type View struct {
	Command   string           `json:"command"`
	Line      string           `json:"command_line"`
	Subject   string           `json:"subject"`
	RootPath  string           `json:"root_path"`
	Revision  int64            `json:"revision"`
	Changes   []Change         `json:"changes"`
	Gates     []framework.Gate `json:"gates"`
	Warnings  []string         `json:"warnings,omitempty"`
	Reminders []string         `json:"reminders,omitempty"`
}

func (v *View) JSON() any { return v }

func (v *View) Table(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s (root %s, revision %d)\n", v.Command, framework.EscapeText(v.Subject), v.RootPath, v.Revision)
	if len(v.Changes) == 0 {
		fmt.Fprintln(w, "changes: none")
	}
	for _, c := range v.Changes {
		fmt.Fprintf(w, "%s %s\n", c.Action, framework.EscapeText(c.Key))
		if c.Before != "" {
			fmt.Fprintf(w, "  before: %s\n", framework.EscapeText(c.Before))
		}
		if c.After != "" {
			fmt.Fprintf(w, "  after:  %s\n", framework.EscapeText(c.After))
		}
	}
	if err := framework.WriteGates(w, v.Gates); err != nil {
		return err
	}
	for _, m := range v.Warnings {
		fmt.Fprintf(w, "warning: %s\n", framework.EscapeText(m))
	}
	return nil
}

func (v *View) Lines(w io.Writer) error {
	if err := framework.WriteLine(w, "plan", v.Command, "subject", v.Subject, "root", v.RootPath, "revision", v.Revision, "keys", len(v.Changes)); err != nil {
		return err
	}
	for _, c := range v.Changes {
		if err := framework.WriteLine(w, "change", c.Action, "key", c.Key, "before", c.Before, "after", c.After); err != nil {
			return err
		}
	}
	if err := framework.GateLines(w, v.Gates); err != nil {
		return err
	}
	for _, m := range v.Warnings {
		if err := framework.WriteLine(w, "warning", m); err != nil {
			return err
		}
	}
	return nil
}

// collection is a collection rootcoord keeps, as read at a revision.
type collection struct {
	kv     instance.KV
	info   *models.CollectionInfo
	legacy bool
}

// readCollections reads rootcoord's collections at rev that keep takes
// (see collections).
func readCollections(ctx context.Context, inst *instance.Instance, rev int64, keep func(models.CollectionChannels) bool) (*collections, error) {
	cs := newCollections(keep)
	_, err := inst.Walk(ctx, rev, []string{models.CollectionInfoPrefix, models.LegacyCollectionPrefix}, func(e instance.Entry) error {
		cs.add(e)
		return nil
	})
	return cs, err
}

// collections are rootcoord's collections by id: the database-scoped
// collection-info before the legacy one (Milvus's
// loadCollectionFromDefaultDb), whichever keep takes, tombstones left out;
// a value that does not decode is a warning naming its key. Only the ones
// keep takes, by the value's top level (its id, state and vchannels), are
// decoded whole: a collection's schema is most of the bytes of its value,
// and ten thousand of them most of a repair's CPU.
type collections struct {
	byID     map[int64]collection
	warnings []string
	keep     func(models.CollectionChannels) bool
	scoped   models.ScopedCollections // kept or not
}

func newCollections(keep func(models.CollectionChannels) bool) *collections {
	return &collections{byID: map[int64]collection{}, keep: keep, scoped: models.ScopedCollections{}}
}

// withID takes the collections of the ids given.
func withID(ids ...int64) func(models.CollectionChannels) bool {
	wanted := make(map[int64]bool, len(ids))
	for _, id := range ids {
		wanted[id] = true
	}
	return func(c models.CollectionChannels) bool { return wanted[c.ID] }
}

// listing takes the collections that list vchannel v.
func listing(v string) func(models.CollectionChannels) bool {
	return func(c models.CollectionChannels) bool { return slices.Contains(c.VChannels, v) }
}

// add keeps e when it is a collection-info that keep takes.
func (cs *collections) add(e instance.Entry) {
	var top *models.CollectionChannels
	if cc, err := models.DecodeCollectionChannels(e.Value); err == nil {
		top = &cc
	}
	cs.addDecoded(e, top)
}

// addDecoded is add of an entry whose top level the caller decoded (nil:
// a tombstone, or a value whose top level does not decode).
func (cs *collections) addDecoded(e instance.Entry, top *models.CollectionChannels) {
	if (e.Kind != models.KindCollectionInfo && e.Kind != models.KindLegacyCollection) || models.IsTombstone(e.Value) {
		return
	}
	legacy := e.Kind == models.KindLegacyCollection
	// The id the value holds, as Milvus's catalog and the channel state
	// read it (a key may name another); one whose top level does not
	// parse is decoded, and named.
	if top != nil {
		if !legacy {
			cs.scoped[top.ID] = true
			if have, ok := cs.byID[top.ID]; ok && have.legacy {
				delete(cs.byID, top.ID)
			}
		}
		if legacy && cs.scoped.Hides(top.ID) || !cs.keep(*top) {
			return
		}
	}
	c, err := models.DecodeCollectionInfo(e.Value)
	if err != nil {
		cs.warnings = append(cs.warnings, fmt.Sprintf("%s does not decode: %v", e.KV.Key, err))
		return
	}
	if have, ok := cs.byID[c.ID]; !ok || have.legacy && !legacy {
		cs.byID[c.ID] = collection{kv: e.KV, info: c, legacy: legacy}
	}
}

// liveWith is the live collection that lists vchannel v (of two, the
// smaller id: the same one each run).
func (cs *collections) liveWith(v string) (collection, bool) {
	for _, id := range slices.Sorted(maps.Keys(cs.byID)) {
		if c := cs.byID[id]; c.info.Live() && slices.Contains(c.info.VChannels, v) {
			return c, true
		}
	}
	return collection{}, false
}

// readRootcoord reads at rev what rootcoord keeps of c beside its
// collection-info: its partitions, fields, struct array fields and
// functions, in key order, tombstones left out. A schema part that does not
// decode stops the read, named: the schema built from it could not be read.
func readRootcoord(ctx context.Context, inst *instance.Instance, rev int64, c collection) (*models.RootcoordCollection, error) {
	rc := &models.RootcoordCollection{Info: c.kv.Value}
	id := c.info.ID
	parts := []struct {
		prefix, schema string
		into           *[][]byte
	}{{models.PartitionPrefixOf(id), "", &rc.Partitions}, {models.FieldPrefixOf(id), models.FieldPrefix, &rc.Fields},
		{models.StructArrayFieldPrefixOf(id), models.StructArrayFieldPrefix, &rc.StructArrayFields},
		{models.FunctionPrefixOf(id), models.FunctionPrefix, &rc.Functions}}
	prefixes := make([]string, len(parts))
	for i, p := range parts {
		prefixes[i] = p.prefix
	}
	_, err := inst.Walk(ctx, rev, prefixes, func(e instance.Entry) error {
		for _, p := range parts {
			if !strings.HasPrefix(e.Rel, p.prefix) || models.IsTombstone(e.Value) {
				continue
			}
			if p.schema != "" {
				if err := models.CheckSchemaPart(p.schema, e.Value); err != nil {
					return fmt.Errorf("%s: %w: heron cannot build collection %d's schema from it", e.KV.Key, err, id)
				}
			}
			*p.into = append(*p.into, e.Value)
		}
		return nil
	})
	return rc, err
}
