package framework

import (
	"fmt"
	"io"
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

// Refusal is nil when every gate passed, else the refusal (exit 3) of
// command naming each failed gate.
func Refusal(command string, gates []Gate) error {
	var failed []string
	for _, g := range gates {
		if !g.OK {
			failed = append(failed, g.Name+": "+g.Detail)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return Refusedf("%s refused, nothing was written: %s", command, strings.Join(failed, "; "))
}

// WriteGates writes the "gates:" block of a plan's table: one row per gate
// (verdict, name, detail) and under it the keys it names, escaped.
func WriteGates(w io.Writer, gates []Gate) error {
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
	return tw.Flush()
}

// GateLines writes one "gate" record per gate.
func GateLines(w io.Writer, gates []Gate) error {
	for _, g := range gates {
		if err := WriteLine(w, "gate", g.Name, "ok", g.OK, "overridden", g.Overridden, "count", g.Count,
			"detail", g.Detail, "keys", strings.Join(g.Keys, ",")); err != nil {
			return err
		}
	}
	return nil
}
