package framework

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Gate is one safety check of a write command's plan, with its verdict. It
// has one rendering per format, whichever command runs it: its JSON is the
// struct, its table rows come from WriteGates, its records from GateLines.
type Gate struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Overridden: the gate found something and a flag let it pass.
	Overridden bool     `json:"overridden,omitempty"`
	Detail     string   `json:"detail"`
	Count      int64    `json:"count"`
	Keys       []string `json:"keys,omitempty"`
	// Fix is what the operator does about a refusal: steps of the one
	// recipe every refusal ends with (Recipe), in its fixed order.
	Fix []Step `json:"fix,omitempty"`
}

// StepOrder places a step in the recipe: the steps of failed gates fit one
// sequence (Milvus on the old WAL drains what only it can finish, then
// every component stops, its leases expire, the target is emptied), and
// the re-run closes it.
type StepOrder int

// The recipe's steps, in order.
const (
	StepOnOldWAL StepOrder = iota + 1
	StepStop
	StepLeases
	StepTarget
	StepOther
	// StepRerun replaces the closing "re-run the same command line".
	StepRerun
)

// Step is one thing to do about a failed gate.
type Step struct {
	Order StepOrder `json:"order"`
	Text  string    `json:"text"`
}

// Recipe is what to do about the failed gates, in order: their steps by
// StepOrder (those of one order joined into one step, each text once),
// then the re-run. Nil when every gate passed or no failed gate has a fix.
func Recipe(gates []Gate) []string {
	var by [StepRerun + 1][]string
	failed := false // and with a fix: a failed gate without one has no recipe to add to
	for _, g := range gates {
		if g.OK {
			continue
		}
		failed = true
		for _, s := range g.Fix {
			o := min(max(s.Order, StepOnOldWAL), StepRerun)
			if !slices.Contains(by[o], s.Text) {
				by[o] = append(by[o], s.Text)
			}
		}
	}
	if !failed || slices.IndexFunc(by[:], func(t []string) bool { return len(t) > 0 }) < 0 {
		return nil
	}
	if len(by[StepRerun]) == 0 {
		by[StepRerun] = []string{"re-run the same command line"}
	}
	var out []string
	for _, texts := range by {
		kept := slices.DeleteFunc(slices.Clone(texts), func(t string) bool {
			return slices.ContainsFunc(texts, func(o string) bool { return o != t && strings.HasPrefix(o, t) })
		})
		if len(kept) > 0 {
			out = append(out, strings.Join(kept, ", and "))
		}
	}
	return out
}

// Plural is n and noun, the noun in its plural form unless n is 1
// ("1 session key", "2 session keys"); plural empty: noun + "s".
func Plural[N int | int64](n N, noun, plural string) string {
	if n == 1 {
		return "1 " + noun
	}
	if plural == "" {
		plural = noun + "s"
	}
	return fmt.Sprintf("%d %s", n, plural)
}

// PluralWord is one when n is 1, else many: a verb or pronoun that agrees
// with a count ("holds", "hold").
func PluralWord[N int | int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Verdict is the gate's verdict as the table shows it.
func (g Gate) Verdict() string {
	switch {
	case !g.OK:
		return "REFUSED"
	case g.Overridden:
		return "overridden"
	}
	return "ok"
}

// Refused reports whether a gate failed: the one fold of a plan's gates
// (Refusal's, and the views' "refused").
func Refused(gates []Gate) bool {
	for _, g := range gates {
		if !g.OK {
			return true
		}
	}
	return false
}

// Refusal is nil when every gate passed, else the refusal (exit 3) of
// command naming each failed gate.
func Refusal(command string, gates []Gate) error {
	if !Refused(gates) {
		return nil
	}
	var failed, names []string
	for _, g := range gates {
		if !g.OK {
			failed = append(failed, g.Name+": "+g.Detail)
			names = append(names, g.Name)
		}
	}
	msg := fmt.Sprintf("%s refused, nothing was written: %s", command, strings.Join(failed, "; "))
	recipe := Recipe(gates)
	if len(recipe) > 0 {
		msg += "; what to do, in order:"
		for i, s := range recipe {
			msg += fmt.Sprintf(" %d. %s", i+1, s)
		}
	}
	brief := fmt.Sprintf("%s refused, nothing was written: %s", command, strings.Join(names, ", "))
	if len(recipe) > 0 {
		brief += "; see what to do above"
	} else {
		brief += "; see the gates above"
	}
	return &RefusedError{Err: errors.New(msg), Brief: brief}
}

// WriteGates writes the "gates:" block of a plan's table: one row per gate
// (verdict, name, detail) and under it the keys it names, escaped; when a
// gate failed, the recipe follows, numbered. On a terminal the table's
// wrapper lays the block out at its width; piped (a script's log, less, a
// file) it wraps here at PipeWidth the same way, since a refusal's detail
// and recipe are read by people: programs read --format line or json,
// where each gate and step stays one record.
func WriteGates(w io.Writer, gates []Gate) error {
	if _, terminal := TerminalWidth(w); terminal {
		return writeGates(w, gates)
	}
	ww := newWrapWriter(w, PipeWidth)
	err := writeGates(ww, gates)
	if ferr := ww.flush(); err == nil {
		err = ferr
	}
	return err
}

func writeGates(w io.Writer, gates []Gate) error {
	if _, err := fmt.Fprintf(w, "gates:\n"); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, g := range gates {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", g.Verdict(), g.Name, EscapeText(g.Detail))
		for _, k := range g.Keys {
			fmt.Fprintf(tw, "  \t\t%s\n", EscapeText(k))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	recipe := Recipe(gates)
	if len(recipe) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "what to do, in order:"); err != nil {
		return err
	}
	for i, s := range recipe {
		if _, err := fmt.Fprintf(w, "  %d. %s\n", i+1, EscapeText(s)); err != nil {
			return err
		}
	}
	return nil
}

// GateLines writes one "gate" record per gate, then one "step" record per
// step of the recipe when a gate failed.
func GateLines(w io.Writer, gates []Gate) error {
	for _, g := range gates {
		if err := WriteLine(w, "gate", g.Name, "ok", g.OK, "overridden", g.Overridden, "count", g.Count,
			"detail", g.Detail, "keys", strings.Join(g.Keys, ",")); err != nil {
			return err
		}
	}
	for i, s := range Recipe(gates) {
		if err := WriteLine(w, "step", i+1, "text", s); err != nil {
			return err
		}
	}
	return nil
}
