package apply

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A saved plan is a claim: apply --file plans its command again (Replay)
// and compares the file with that plan op for op. Both list their ops in
// the scan's write order, so the two are read side by side, one entry per
// op, with nothing held while they agree; keys seen on one side only (the
// orders part when a key is new or gone) wait in two maps, bounded by
// maxOutOfStep, for their other half.

// Difference is one way the file differs from the plan made again.
type Difference struct {
	Key  string `json:"key"`
	What string `json:"what"`
}

// What a difference is.
const (
	DiffNewKey     = "new key: heron would write it now, the file does not hold it"
	DiffKeyGone    = "key gone: the file writes it, heron would not write it now"
	DiffOldValue   = "old value changed: etcd holds other bytes than the file"
	DiffOldAbsent  = "old value changed: the key exists in one, not the other"
	DiffOpKind     = "op differs: put in one, delete in the other"
	DiffNewValue   = "new value differs"
	DiffNoNewValue = "new value missing: the file names no rule and the line carries none"
	DiffOutOfStep  = "not compared: too many keys out of step"
	DiffTwice      = "key twice: the file holds more than one op for it"
)

// maxDifferences bounds the differences listed (all are counted).
const maxDifferences = 20

// maxOutOfStep bounds the keys held while the two sides disagree.
const maxOutOfStep = 100_000

// Comparison compares a saved plan, read from r, with the ops its command
// plans again, given to Op in write order; Finish reads the rest.
type Comparison struct {
	r      *BackupReader
	rule   string   // the file's rule: "" when its lines carry their new values
	scope  []string // the prefixes the recorded command may write
	writer string   // the command, in messages
	// file and again are the keys seen on one side only, waiting.
	file, again map[string]opSum
	// Differences are the first maxDifferences; Total counts all.
	Differences []Difference
	Total       int64
	// Compared counts the ops of the plan made again.
	Compared int64
}

// opSum is one side of a key, held while the sides are out of step.
type opSum struct {
	del, absent, hasNew bool
	old, new            [sha256.Size]byte
}

// NewComparison compares the plan file r (its header read) with the ops of
// command, which may write only under scope.
func NewComparison(r *BackupReader, command string, scope []string) *Comparison {
	return &Comparison{r: r, rule: r.Header.Rule, scope: scope, writer: command, file: map[string]opSum{}, again: map[string]opSum{}, Differences: []Difference{}}
}

func (c *Comparison) differ(key, what string) {
	c.Total++
	if len(c.Differences) < maxDifferences {
		c.Differences = append(c.Differences, Difference{Key: key, What: what})
	}
}

// next is the file's next entry under the scope (an entry outside it is a
// difference and is skipped).
func (c *Comparison) next() (Entry, bool, error) {
	for {
		e, ok, err := c.r.Next()
		if err != nil || !ok {
			return e, ok, err
		}
		if (Header{Prefixes: c.scope}).Allows(e.Key) {
			return e, true, nil
		}
		// Listed first: a key outside the command's reach is the plainest
		// sign of an edited file.
		c.Total++
		d := Difference{Key: e.Key, What: "outside what " + c.writer + " writes (" + strings.Join(c.scope, ", ") + ")"}
		c.Differences = append([]Difference{d}, c.Differences...)[:min(len(c.Differences)+1, maxDifferences)]
	}
}

// Op compares the next op of the plan made again.
func (c *Comparison) Op(op Op) error {
	c.Compared++
	e, ok, err := c.next()
	if err != nil {
		return err
	}
	if ok && e.Key == op.Key && len(c.file) == 0 && len(c.again) == 0 {
		c.compareEntry(e, op)
		return nil
	}
	if ok {
		c.side(e.Key, c.entrySum(e), c.file, c.again, true)
	}
	c.side(op.Key, opSumOf(op), c.again, c.file, false)
	return nil
}

// Finish reads the rest of the file (its end line and checksum too) and
// names the keys left on one side.
func (c *Comparison) Finish() error {
	for {
		e, ok, err := c.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		c.side(e.Key, c.entrySum(e), c.file, c.again, true)
	}
	for _, k := range slices.Sorted(maps.Keys(c.file)) {
		c.differ(k, DiffKeyGone)
	}
	for _, k := range slices.Sorted(maps.Keys(c.again)) {
		c.differ(k, DiffNewKey)
	}
	c.file, c.again = map[string]opSum{}, map[string]opSum{}
	return nil
}

// side is a key met on one side out of step: compared with its other half
// when that is waiting, else it waits (fromFile: the file's side).
func (c *Comparison) side(key string, s opSum, mine, other map[string]opSum, fromFile bool) {
	if o, ok := other[key]; ok {
		delete(other, key)
		f, a := s, o
		if !fromFile {
			f, a = o, s
		}
		c.compareSums(key, f, a)
		return
	}
	if _, twice := mine[key]; twice {
		// Held twice on one side (a file line repeated out of step): the
		// second would replace the first, unseen.
		c.differ(key, DiffTwice)
		return
	}
	if len(mine) >= maxOutOfStep {
		c.differ(key, DiffOutOfStep)
		return
	}
	mine[key] = s
}

// compareEntry compares a file entry with the op made again for its key.
func (c *Comparison) compareEntry(e Entry, op Op) {
	switch {
	case e.Delete != op.Delete:
		c.differ(e.Key, DiffOpKind)
	case e.Absent != (op.ModRevision == 0):
		c.differ(e.Key, DiffOldAbsent)
	case !bytes.Equal(e.Value, op.Original):
		c.differ(e.Key, DiffOldValue)
	case c.rule == "" && !e.Delete && !e.HasNew:
		c.differ(e.Key, DiffNoNewValue)
	case c.rule == "" && !e.Delete && !bytes.Equal(e.New, op.Value):
		c.differ(e.Key, DiffNewValue)
	}
}

func (c *Comparison) compareSums(key string, f, a opSum) {
	switch {
	case f.del != a.del:
		c.differ(key, DiffOpKind)
	case f.absent != a.absent:
		c.differ(key, DiffOldAbsent)
	case f.old != a.old:
		c.differ(key, DiffOldValue)
	case c.rule == "" && !f.del && !f.hasNew:
		c.differ(key, DiffNoNewValue)
	case c.rule == "" && !f.del && f.new != a.new:
		c.differ(key, DiffNewValue)
	}
}

func (c *Comparison) entrySum(e Entry) opSum {
	s := opSum{del: e.Delete, absent: e.Absent, hasNew: e.HasNew, old: sha256.Sum256(e.Value)}
	if e.HasNew {
		s.new = sha256.Sum256(e.New)
	}
	return s
}

func opSumOf(op Op) opSum {
	s := opSum{del: op.Delete, absent: op.ModRevision == 0, hasNew: !op.Delete, old: sha256.Sum256(op.Original)}
	if !op.Delete {
		s.new = sha256.Sum256(op.Value)
	}
	return s
}

// HeaderDifferences are the fields of a plan file's header that decide
// what is written and differ from the header of the plan made again: the
// command line (the one a refusal and a STOPPED block advise), the rule
// and its params (a file with a rule carries no new values), the root
// path, the prefixes, the restore order and check, the target and scope.
func HeaderDifferences(file, again Header) []Difference {
	var out []Difference
	field := func(name string, f, a any) {
		fb, _ := json.Marshal(f)
		ab, _ := json.Marshal(a)
		if !bytes.Equal(fb, ab) {
			out = append(out, Difference{Key: "(header) " + name, What: fmt.Sprintf("the file says %s, heron plans %s", fb, ab)})
		}
	}
	field("command", file.Command, again.Command)
	field("root_path", file.RootPath, again.RootPath)
	field("rule", file.Rule, again.Rule)
	field("rule_params", compactJSON(file.RuleParams), compactJSON(again.RuleParams))
	field("prefixes", file.Prefixes, again.Prefixes)
	field("restore_order", file.RestoreOrder, again.RestoreOrder)
	field("after_restore", file.AfterRestore, again.AfterRestore)
	field("target", file.Target, again.Target)
	field("scope", file.Scope, again.Scope)
	return out
}

// compactJSON is raw without insignificant space (nil when it is empty or
// not JSON: compared as such).
func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
