package reset

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/gates"
)

// The JSON shapes of the plan and of a run are documented in docs/json.md.

// Summary is everything a reset plan holds besides its key-by-key ops, which
// it regenerates: bounded by the number of kinds, pchannels and examples,
// never by the number of keys.
type Summary struct {
	Command   string   `json:"command"`
	TargetWAL string   `json:"target_wal"`
	Earliest  Earliest `json:"earliest"`
	Scope     Scope    `json:"scope"`
	Revision  int64    `json:"revision"`
	MetaRoot  string   `json:"meta_root"`
	Gates     []Gate   `json:"gates"`
	Refused   bool     `json:"refused"`
	// Rewrites are the kinds whose keys get new values, in write order.
	Rewrites []KindCount `json:"rewrites"`
	// Deletions are the keys removed, in the unit the plan uses.
	Deletions []Deletion `json:"deletions"`
	// Kept counts scanned keys left as they are, by kind and reason.
	Kept []Kept `json:"kept"`
	// TotalKeys is the number of keys the run writes or deletes (0: nothing to do).
	TotalKeys int64 `json:"total_keys"`
	// SplitState reports, per pchannel, how many positions name which WAL.
	SplitState     []PChannelWALs `json:"split_state"`
	SplitPChannels []string       `json:"split_pchannels"`
	NotTouched     []string       `json:"not_touched"`
	Warnings       []string       `json:"warnings"`
	Reminders      []string       `json:"reminders"`
	// wide (--wide) lists the scope's pchannels in full in the table.
	wide bool
	// splitBackup is the backup of the interrupted run a split state comes
	// from, when --backup-dir holds it: the table names it.
	splitBackup string
	// EtcdSpace is what the write adds beside etcd's database size (absent
	// when etcd does not tell the connected user its status).
	EtcdSpace *gates.Space `json:"etcd_space,omitempty"`
}

// Earliest is the id every position in scope gets.
type Earliest struct {
	BytesHex string `json:"bytes_hex"`
	Text     string `json:"text"`
	Human    string `json:"human"`
}

// Scope is what the plan covers.
type Scope struct {
	WholeInstance bool `json:"whole_instance"`
	// PChannels in scope: every known pchannel on a whole-instance run.
	PChannels []string `json:"pchannels"`
}

// Gate is one safety check and its verdict.
type Gate = framework.Gate

// Example is one key of a kind with its first changed position before and after.
type Example struct {
	Key    string `json:"key"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// KindCount is the keys (and positions in them) of one kind that change.
type KindCount struct {
	Kind      string    `json:"kind"`
	Keys      int64     `json:"keys"`
	Positions int64     `json:"positions"`
	Examples  []Example `json:"examples"`
}

// Deletion is the keys of one kind that go: a prefix (whole-instance runs)
// or a list of keys (scoped runs; at most maxListedKeys listed).
type Deletion struct {
	Kind     string    `json:"kind"`
	Unit     string    `json:"unit"`
	Prefixes []string  `json:"prefixes,omitempty"`
	Keys     []string  `json:"keys,omitempty"`
	Count    int64     `json:"count"`
	More     int64     `json:"more,omitempty"`
	Examples []Example `json:"examples,omitempty"`
}

// Kept counts keys of a kind left as they are for one reason.
type Kept struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Keys   int64  `json:"keys"`
}

// PChannelWALs is the split-state report of one pchannel: the census of
// models.WALCensus (the rule show checkpoint uses too) and whether the
// pchannel is in scope.
type PChannelWALs struct {
	models.PChannelWALs
	InScope bool `json:"in_scope"`
}

const (
	maxExamples   = 3
	maxListedKeys = 100
	maxGateKeys   = 5
)

// --- rendering of the plan --------------------------------------------------

// JSON is the plan document.
func (s *Summary) JSON() any { return s }

// Table writes the plan for people.
func (s *Summary) Table(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("reset checkpoint to %s: earliest id %s (bytes %q, text %q), read at revision %d\n",
		s.TargetWAL, s.Earliest.Human, s.Earliest.BytesHex, s.Earliest.Text, s.Revision)
	ew.printf("scope: %s\n", scopeText(s.Scope, s.wide))
	ew.printf("\n")
	// w, not ew: WriteGates sees whether w is a terminal (wrapped there by
	// the table's wrapper) or piped (wrapped by WriteGates).
	if err := framework.WriteGates(w, s.Gates); err != nil {
		return err
	}
	ew.printf("\nrewrites (in write order):\n")
	if len(s.Rewrites) == 0 {
		ew.printf("  none\n")
	}
	tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
	exampleKey := s.exampleKeys(w)
	rewrites := s.Rewrites
	if s.stackedRewrites(w, ew) {
		rewrites = nil
	}
	if len(rewrites) > 0 {
		fmt.Fprintf(tw, "  kind\tkeys\tpositions\texample\tbefore\tafter\n")
	}
	for _, k := range rewrites {
		for i := 0; i < max(1, len(k.Examples)); i++ {
			var ex Example
			if i < len(k.Examples) {
				ex = k.Examples[i]
			}
			if i == 0 {
				fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\t%s\n", k.Kind, k.Keys, k.Positions, exampleKey(ex.Key), ex.Before, ex.After)
			} else {
				fmt.Fprintf(tw, "  \t\t\t%s\t%s\t%s\n", exampleKey(ex.Key), ex.Before, ex.After)
			}
		}
	}
	if len(rewrites) > 0 {
		tw.Flush()
	}
	ew.printf("\ndeletions:\n")
	if len(s.Deletions) == 0 {
		ew.printf("  none\n")
	}
	for _, d := range s.Deletions {
		if d.Unit == "prefix" {
			ew.printf("  %s: %d keys, every key under %s\n", d.Kind, d.Count, strings.Join(d.Prefixes, ", "))
			continue
		}
		ew.printf("  %s: %d keys\n", d.Kind, d.Count)
		for _, k := range d.Keys {
			ew.printf("    %s\n", framework.EscapeText(k))
		}
		if d.More > 0 {
			ew.printf("    ... and %d more\n", d.More)
		}
	}
	if len(s.Kept) > 0 {
		ew.printf("\nkept as they are:\n")
		tw = tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
		for _, k := range s.Kept {
			fmt.Fprintf(tw, "  %s\t%d\t%s\n", k.Kind, k.Keys, k.Reason)
		}
		tw.Flush()
	}
	ew.printf("\nkeys to write or delete: %d\n", s.TotalKeys)
	if s.EtcdSpace != nil {
		ew.printf("etcd space: %s\n", s.EtcdSpace)
	}
	if len(s.SplitPChannels) > 0 {
		rollback := "restore --file BACKUP --run (the backup of the interrupted run: none in --backup-dir; backups --dir DIR lists a folder's backups)"
		if s.splitBackup != "" {
			rollback = "restore --file " + s.splitBackup + " --run"
		}
		ew.printf("\nSPLIT STATE: positions of %s name more than one WAL (an interrupted reset?); a run completes it, %s rolls it back:\n", strings.Join(s.SplitPChannels, ", "), rollback)
		for _, p := range s.SplitState {
			if p.Split {
				ew.printf("  %s (consume checkpoint: %s): %s\n", p.PChannel, p.CheckpointWAL, walCounts(p.Positions))
			}
		}
	}
	ew.printf("\nnot touched:\n")
	for _, n := range s.NotTouched {
		ew.printf("  %s\n", n)
	}
	if len(s.Warnings) > 0 {
		ew.printf("\n")
		for _, n := range s.Warnings {
			ew.printf("warning: %s\n", framework.EscapeText(n))
		}
	}
	ew.printf("\nreminders:\n")
	for _, n := range s.Reminders {
		ew.printf("  %s\n", n)
	}
	return ew.err
}

// Lines writes the plan as key=value records.
func (s *Summary) Lines(w io.Writer) error {
	ew := &errWriter{w: w}
	line := func(kv ...any) {
		if ew.err == nil {
			ew.err = framework.WriteLine(w, kv...)
		}
	}
	line("plan", "reset checkpoint", "target_wal", s.TargetWAL, "revision", s.Revision, "whole_instance", s.Scope.WholeInstance,
		"pchannels", strings.Join(s.Scope.PChannels, ","), "total_keys", s.TotalKeys, "refused", s.Refused)
	if ew.err == nil {
		ew.err = framework.GateLines(w, s.Gates)
	}
	for _, k := range s.Rewrites {
		line("rewrite", k.Kind, "keys", k.Keys, "positions", k.Positions)
		for _, ex := range k.Examples {
			line("example", k.Kind, "key", ex.Key, "before", ex.Before, "after", ex.After)
		}
	}
	for _, d := range s.Deletions {
		line("delete", d.Kind, "unit", d.Unit, "count", d.Count, "prefixes", strings.Join(d.Prefixes, ","), "keys", strings.Join(d.Keys, ","))
	}
	for _, k := range s.Kept {
		line("keep", k.Kind, "keys", k.Keys, "reason", k.Reason)
	}
	for _, p := range s.SplitState {
		line("pchannel", p.PChannel, "in_scope", p.InScope, "consume_checkpoint_wal", p.CheckpointWAL, "positions", walCounts(p.Positions), "split", p.Split)
	}
	for _, n := range s.NotTouched {
		line("not_touched", n)
	}
	for _, n := range s.Warnings {
		line("warning", n)
	}
	for _, n := range s.Reminders {
		line("reminder", n)
	}
	return ew.err
}

// exampleKeyRoom is what a rewrites row needs besides its example key: the
// key gets 44 columns of 120 (the JSON and line formats give whole keys).
const (
	exampleKeyRoom     = 76
	minExampleKeyWidth = 24
)

// exampleKeys renders the example keys of the rewrites table written to w:
// escaped, and unless --wide cut to the width left on w's terminal by
// dropping the prefix the examples share and keeping their ends, where
// dml_0 and dml_10 differ (framework.ColumnElider).
func (s *Summary) exampleKeys(w io.Writer) func(key string) string {
	var keys []string
	for _, k := range s.Rewrites {
		for _, ex := range k.Examples {
			keys = append(keys, framework.EscapeText(ex.Key))
		}
	}
	width := max(minExampleKeyWidth, framework.Width(w)-exampleKeyRoom)
	if s.wide {
		width = 0
	}
	col := framework.NewColumnElider(keys, width)
	return func(key string) string { return col.Elide(framework.EscapeText(key)) }
}

func walCounts(m map[string]int64) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s:%d", n, m[n])
	}
	return strings.Join(parts, ",")
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

// maxScopeNames is how many pchannels the scope line names one by one;
// more are counted, first ... last, unless --wide.
const maxScopeNames = 4

// scopeText is the plan's scope line: "whole instance: 64 pchannels (dml_0
// ... dml_63)", each pchannel by the part that tells it from the others;
// every full name with wide.
func scopeText(sc Scope, wide bool) string {
	what := "pchannels"
	if sc.WholeInstance {
		what = "whole instance"
	}
	names := sc.PChannels
	n := len(names)
	switch {
	case n == 0:
		return what + ": no pchannel"
	case wide:
		return fmt.Sprintf("%s: %s: %s", what, framework.Plural(n, "pchannel", ""), strings.Join(names, ", "))
	case n <= maxScopeNames:
		parts := make([]string, n)
		for i, pc := range names {
			parts[i] = framework.DistinctPart(pc, names)
		}
		return fmt.Sprintf("%s: %s (%s)", what, framework.Plural(n, "pchannel", ""), strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%s: %s (%s ... %s; --wide lists them)", what, framework.Plural(n, "pchannel", ""),
		framework.DistinctPart(names[0], names), framework.DistinctPart(names[n-1], names))
}

// rewritesRowWidth is the width of the one-row-per-example rewrites table:
// a terminal narrower than this (80 columns under kubectl exec) gets the
// examples stacked under their kind instead.
const rewritesRowWidth = framework.PipeWidth

// stackedRewrites writes the rewrites for a narrow terminal, each kind on a
// line and its examples under it (the key, then before -> after), and
// reports whether it did; wider output keeps the table.
func (s *Summary) stackedRewrites(w io.Writer, ew *errWriter) bool {
	width, ok := framework.TerminalWidth(w)
	if !ok || width >= rewritesRowWidth || s.wide || len(s.Rewrites) == 0 {
		return false
	}
	var keys []string
	for _, k := range s.Rewrites {
		for _, ex := range k.Examples {
			keys = append(keys, framework.EscapeText(ex.Key))
		}
	}
	col := framework.NewColumnElider(keys, width-4)
	tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  kind\tkeys\tpositions\n")
	for _, k := range s.Rewrites {
		fmt.Fprintf(tw, "  %s\t%d\t%d\n", k.Kind, k.Keys, k.Positions)
	}
	tw.Flush()
	ew.printf("examples (before -> after):\n")
	for _, k := range s.Rewrites {
		for _, ex := range k.Examples {
			ew.printf("  %s\n    %s -> %s\n", col.Elide(framework.EscapeText(ex.Key)), ex.Before, ex.After)
		}
	}
	return true
}
