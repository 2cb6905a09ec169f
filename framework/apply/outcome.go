package apply

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/heron-shell/heron/framework"
)

// Outcome is what a write command's --run prints: the plan, what was
// applied (nil: nothing to write), the read-back (nil: not run), and for a
// run that stopped after its backup was published, how to go on.
type Outcome struct {
	plan    *Plan
	Applied *Result
	Verify  *Verify
	Stopped *Stopped
	// Unwritten says why a run that stopped before writing any key wrote
	// nothing ("": it wrote, or had nothing to write).
	Unwritten string
	// External are the plan's effects outside etcd the run did.
	External []EffectDone
}

// Stopped is a run that stopped part way: Written of Total keys are
// written, so the instance is split; Complete is the command that completes
// it, RollBack the restores that roll it back.
type Stopped struct {
	Written  int64  `json:"written"`
	Total    int64  `json:"total"`
	Complete string `json:"complete"`
	RollBack string `json:"roll_back"`
	// Running names the Milvus component found live when the run stopped
	// (LiveError.Running; "": none): it must be stopped before either way out.
	Running string `json:"running,omitempty"`
	// MovedOn says which key another writer changed since the plan (the
	// instance moved on through another run): then neither way out is
	// advised (Complete and RollBack are empty), Again names what to read
	// first.
	MovedOn string   `json:"moved_on,omitempty"`
	Again   []string `json:"check_again,omitempty"`
	// With a component running, the keys the run wrote are read back:
	// Overwritten counts those that no longer hold the run's bytes (the
	// component wrote over them), OverwrittenKeys names the first few;
	// OverwrittenUnread is why they could not be read ("": read).
	Overwritten       int64    `json:"overwritten,omitempty"`
	OverwrittenKeys   []string `json:"overwritten_keys,omitempty"`
	OverwrittenUnread string   `json:"overwritten_unread,omitempty"`
}

// overwrittenLine is what the STOPPED block says of the keys the run wrote
// that a running component wrote over ("": nothing read).
func (s *Stopped) overwrittenLine() string {
	switch {
	case s.Running == "":
		return ""
	case s.OverwrittenUnread != "":
		return "the keys the run wrote could not be read back: " + s.OverwrittenUnread
	case s.Overwritten == 0:
		return "every key the run wrote still holds its bytes"
	}
	keys := strings.Join(s.OverwrittenKeys, ", ")
	if s.Overwritten > int64(len(s.OverwrittenKeys)) {
		keys += ", ..."
	}
	return fmt.Sprintf("%s the run wrote no longer %s its bytes (the running component wrote over them): %s",
		framework.Plural(s.Overwritten, "key", ""), framework.PluralWord(s.Overwritten, "holds", "hold"), keys)
}

type outcomeJSON struct {
	Plan      any          `json:"plan"`
	Applied   *Result      `json:"applied"`
	Verify    *Verify      `json:"verify"`
	Stopped   *Stopped     `json:"stopped,omitempty"`
	Unwritten string       `json:"nothing_written,omitempty"`
	Reminders []string     `json:"reminders"`
	External  []EffectDone `json:"external,omitempty"`
}

// JSON is the run document.
func (o *Outcome) JSON() any {
	return outcomeJSON{Plan: o.plan.View.JSON(), Applied: o.Applied, Verify: o.Verify, Stopped: o.Stopped, Unwritten: o.Unwritten, Reminders: o.reminders(), External: o.External}
}

// reminders are the plan's, once the run verified.
func (o *Outcome) reminders() []string {
	if o.Verify == nil || !o.Verify.OK {
		return []string{}
	}
	r := slices.Clone(o.plan.Reminders)
	a := o.Applied
	switch {
	case a == nil || a.Backup == "" || a.BackupDeleted:
	case a.Continues != "" && a.Continues == o.plan.Continues:
		// The run rolled a split state back by restoring the backup its
		// own continues: its backup undoes it, the split back.
		r = append(r, fmt.Sprintf("keep the backup file: restore --file %s --run puts every key the run changed in etcd back as it was, in the split state it found (then restore --file %s --run rolls that back again)", a.Backup, a.Continues))
	case a.Continues != "":
		// The run continued an interrupted one: its backup holds the state
		// that run left, the chain the values before it.
		chain := []string{a.Backup}
		rest, missing := BackupChain(a.Continues)
		chain = append(chain, rest...)
		note := ""
		if missing != nil {
			note = fmt.Sprintf(" (the chain stops there: %v)", missing)
		}
		r = append(r, fmt.Sprintf("keep the backup files of the chain: this run continued an interrupted one; to put every key the runs changed in etcd back as it was, restore newest first: %s%s", restoreOrder(chain), note))
	default:
		r = append(r, fmt.Sprintf("keep the backup file: restore --file %s --run puts every key the run changed in etcd back as it was", a.Backup))
	}
	return r
}

// Table writes the run for people.
func (o *Outcome) Table(w io.Writer) error {
	var b strings.Builder
	pl := o.plan
	if s := o.Stopped; s != nil {
		switch {
		case s.MovedOn != "":
			fmt.Fprintf(&b, "STOPPED: %d of %d keys written, then the instance moved on through another writer: do not start Milvus.\n", s.Written, s.Total)
		case s.Running != "" && s.Written == s.Total:
			fmt.Fprintf(&b, "STOPPED: %d of %d keys written, then a Milvus component started: the instance may be split.\n", s.Written, s.Total)
		default:
			fmt.Fprintf(&b, "STOPPED: %d of %d keys written: the instance is split, do not start Milvus.\n", s.Written, s.Total)
		}
		if s.Running != "" {
			fmt.Fprintf(&b, "  a Milvus component is running: %s: stop it (every component) first\n", framework.EscapeText(s.Running))
			fmt.Fprintf(&b, "  %s\n", framework.EscapeText(s.overwrittenLine()))
		}
		if s.MovedOn != "" {
			fmt.Fprintf(&b, "  %s\n", s.MovedOn)
			fmt.Fprintf(&b, "  no way out is advised: completing this run or rolling it back would undo that writer's changes; read the instance first: %s\n",
				framework.EscapeText(strings.Join(s.Again, ", then ")))
		} else {
			fmt.Fprintf(&b, "  to complete it:  %s\n", framework.EscapeText(s.Complete))
			fmt.Fprintf(&b, "  to roll it back: %s\n", framework.EscapeText(s.RollBack))
		}
	}
	for _, d := range o.External {
		fmt.Fprintf(&b, "%s: outside etcd, %s in %.1fs (the backup cannot bring them back)\n", pl.Title, framework.EscapeText(d.String()), d.Seconds)
	}
	switch a := o.Applied; {
	case o.Unwritten != "" && len(o.External) > 0:
		fmt.Fprintf(&b, "%s: nothing was written to etcd (0 of %d keys; the effects outside etcd above were done): %s\n", pl.Title, pl.Keys, o.Unwritten)
	case o.Unwritten != "":
		fmt.Fprintf(&b, "%s: nothing was written (0 of %d keys): %s\n", pl.Title, pl.Keys, o.Unwritten)
	case a == nil:
		fmt.Fprintf(&b, "%s: %s\n", pl.Title, pl.Nothing)
	default:
		fmt.Fprintf(&b, "%s: wrote %d of %d keys (%s) in %d transactions, %.1fs: scan %.1fs, backup %.1fs, write %.1fs (%.0f keys/s), verify %.1fs\n",
			pl.Title, a.Written, a.Keys, writtenParts(a.Puts, pl.Put, a.Deletes), a.Txns, a.Seconds, a.ScanSeconds, a.BackupSeconds, a.WriteSeconds,
			a.KeysPerSecond, a.VerifySeconds)
		if a.BackupDeleted {
			fmt.Fprintf(&b, "backup: %s DELETED during the run (with its folder or alone): nothing keeps the original values\n", a.Backup)
		} else {
			fmt.Fprintf(&b, "backup: %s\n", a.Backup)
		}
	}
	switch v := o.Verify; {
	case v == nil && o.Unwritten != "":
	case v == nil:
		fmt.Fprintf(&b, "verify: not run (the run stopped early)\n")
	case o.Applied == nil:
		// A run with nothing to write: its verify planned again only.
		o.nothingVerified(&b, v)
	case v.Unread != "":
		fmt.Fprintf(&b, "verify: INCOMPLETE, the run's keys were written; %s\n", v.proven())
		fmt.Fprintf(&b, "  could not read: %s\n", v.Unread)
		fmt.Fprintf(&b, "  check again with: %s\n", framework.EscapeText(strings.Join(v.Again, ", then ")))
	case v.OK && v.Note != "":
		fmt.Fprintf(&b, "verify: %s\n", v.Note)
	case v.OK && v.ReadBack == provenByRevisions:
		fmt.Fprintf(&b, "verify: ok, the %d keys written hold the planned bytes, proven by the run's own revisions (nothing else wrote up to revision %d), and planning again finds nothing to write\n", v.Keys, v.Revision)
	case v.OK:
		fmt.Fprintf(&b, "verify: ok, the %d keys written read back at revision %d hold the planned bytes (%s), and planning again finds nothing to write\n", v.Keys, v.Revision, v.ReadBack)
	default:
		fmt.Fprintf(&b, "verify: FAILED, %d problems:\n", v.FailuresTotal)
		for _, f := range v.Failures {
			fmt.Fprintf(&b, "  %s\n", framework.EscapeText(f))
		}
	}
	for _, r := range o.reminders() {
		fmt.Fprintf(&b, "reminder: %s\n", r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nothingVerified is the verify line of a run that had nothing to write.
func (o *Outcome) nothingVerified(b *strings.Builder, v *Verify) {
	switch {
	case v.Unread != "":
		fmt.Fprintf(b, "verify: INCOMPLETE, nothing was written; %s\n", v.Unread)
		fmt.Fprintf(b, "  check again with: %s\n", framework.EscapeText(strings.Join(v.Again, ", then ")))
	case v.OK && v.Note != "":
		fmt.Fprintf(b, "verify: ok, nothing was written; %s\n", v.Note)
	case v.OK:
		fmt.Fprintf(b, "verify: ok, nothing was written, and planning again finds nothing to write\n")
	default:
		fmt.Fprintf(b, "verify: FAILED, nothing was written; %d problems:\n", v.FailuresTotal)
		for _, f := range v.Failures {
			fmt.Fprintf(b, "  %s\n", framework.EscapeText(f))
		}
	}
}

// Lines writes the run as key=value records.
func (o *Outcome) Lines(w io.Writer) error {
	kv := []any{"run", o.plan.Command}
	if a := o.Applied; a != nil {
		kv = append(kv, "backup", a.Backup, "backup_deleted", a.BackupDeleted, "keys", a.Keys, "written", a.Written, "puts", a.Puts, "deletes", a.Deletes,
			"txns", a.Txns, "seconds", fmt.Sprintf("%.3f", a.Seconds))
	} else {
		kv = append(kv, "keys", 0)
	}
	if err := framework.WriteLine(w, kv...); err != nil {
		return err
	}
	if o.Unwritten != "" {
		if err := framework.WriteLine(w, "nothing_written", o.Unwritten); err != nil {
			return err
		}
	}
	for _, d := range o.External {
		if err := framework.WriteLine(w, "external", d.Verb, "done", d.Done, "count", d.Count, "unit", d.Unit, "bytes", d.Bytes,
			"where", d.Where, "seconds", fmt.Sprintf("%.3f", d.Seconds)); err != nil {
			return err
		}
	}
	if s := o.Stopped; s != nil {
		if err := framework.WriteLine(w, "stopped", true, "written", s.Written, "total", s.Total, "complete", s.Complete, "roll_back", s.RollBack, "running", s.Running,
			"moved_on", s.MovedOn, "check_again", strings.Join(s.Again, "; "),
			"overwritten", s.Overwritten, "overwritten_keys", strings.Join(s.OverwrittenKeys, ","), "overwritten_unread", s.OverwrittenUnread); err != nil {
			return err
		}
	}
	if v := o.Verify; v != nil {
		if err := framework.WriteLine(w, "verify", v.OK, "revision", v.Revision, "keys", v.Keys, "read_back", v.ReadBack, "values_compared", v.ValuesCompared, "replanned", v.Replanned,
			"failures", v.FailuresTotal, "note", v.Note, "unread", v.Unread, "check_again", strings.Join(v.Again, "; ")); err != nil {
			return err
		}
		for _, f := range v.Failures {
			if err := framework.WriteLine(w, "failure", f); err != nil {
				return err
			}
		}
	}
	for _, r := range o.reminders() {
		if err := framework.WriteLine(w, "reminder", r); err != nil {
			return err
		}
	}
	return nil
}

// proven is what an incomplete verify proved before it could read no more.
func (v *Verify) proven() string {
	switch {
	case v.ReadBack == provenByRevisions:
		return fmt.Sprintf("the %d keys written hold the planned bytes, proven by the run's own revisions (up to revision %d)", v.Keys, v.Revision)
	case v.ReadBack != "":
		return fmt.Sprintf("the %d keys written read back hold the planned bytes (%s)", v.Keys, v.ReadBack)
	}
	return "the keys written were not read back"
}

// writtenParts is "15 rewritten, 3 deleted", leaving out a part of 0.
func writtenParts(puts int64, put string, deletes int64) string {
	var parts []string
	if puts > 0 || deletes == 0 {
		parts = append(parts, fmt.Sprintf("%d %s", puts, put))
	}
	if deletes > 0 {
		parts = append(parts, fmt.Sprintf("%d deleted", deletes))
	}
	return strings.Join(parts, ", ")
}
