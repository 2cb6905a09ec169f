package framework

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// builtins are the commands every state has.
var builtins = [][2]string{
	{"help [command]", "list the commands, or the flags of one command"},
	{"exit", "leave the shell (also: quit)"},
}

func (sh *Shell) help(words []string) error {
	ix := sh.index()
	if len(words) == 0 {
		return Render(sh.stdout, &helpResult{cmds: ix.cmds, builtins: true}, FormatTable)
	}
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			return Usagef("help takes a command name, not %q", w)
		}
	}
	path := strings.Join(words, " ")
	if c, ok := ix.byPath[path]; ok {
		return Render(sh.stdout, &helpResult{detail: c}, FormatTable)
	}
	if path == "exit" || path == "quit" || path == "help" {
		return Render(sh.stdout, &helpResult{builtins: true}, FormatTable)
	}
	var under []*Command
	for _, c := range ix.cmds {
		if hasPrefix(c.spec.Path, words) {
			under = append(under, c)
		}
	}
	if len(under) == 0 {
		return Usagef("unknown command %q (type help for the list)", path)
	}
	return Render(sh.stdout, &helpResult{cmds: under}, FormatTable)
}

// helpResult lists commands, or details one.
type helpResult struct {
	cmds     []*Command
	builtins bool
	detail   *Command
}

type helpFlagJSON struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Default     string   `json:"default,omitempty"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Env         string   `json:"env,omitempty"`
	Repeatable  bool     `json:"repeatable,omitempty"`
}

type helpCommandJSON struct {
	Command     string         `json:"command"`
	Description string         `json:"description"`
	Flags       []helpFlagJSON `json:"flags,omitempty"`
}

func (h *helpResult) JSON() any {
	var out []helpCommandJSON
	for _, c := range h.list() {
		hc := helpCommandJSON{Command: c.Path(), Description: c.spec.Desc}
		for _, f := range c.spec.Flags {
			hc.Flags = append(hc.Flags, helpFlagJSON{
				Name: "--" + f.Name, Type: f.Kind.String(), Default: f.Default, Description: f.Desc,
				Enum: f.Enum, Required: f.Required, Env: f.Env, Repeatable: f.repeatable(),
			})
		}
		out = append(out, hc)
	}
	return map[string]any{"commands": out}
}

func (h *helpResult) list() []*Command {
	if h.detail != nil {
		return []*Command{h.detail}
	}
	return h.cmds
}

func (h *helpResult) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	if c := h.detail; c != nil {
		fmt.Fprintf(tw, "%s: %s\n", c.Path(), c.spec.Desc)
		if len(c.spec.Flags) > 0 {
			fmt.Fprintln(tw, "\nFlags:")
		}
		for _, f := range c.spec.Flags {
			fmt.Fprintf(tw, "  --%s %s\t%s\n", f.Name, flagTypeWord(f), flagHelp(f))
		}
		return tw.Flush()
	}
	if len(h.cmds) > 0 {
		fmt.Fprintln(tw, "Commands:")
	}
	for _, c := range h.cmds {
		fmt.Fprintf(tw, "  %s\t%s\n", c.Path(), c.spec.Desc)
	}
	if h.builtins {
		for _, b := range builtins {
			fmt.Fprintf(tw, "  %s\t%s\n", b[0], b[1])
		}
		fmt.Fprintln(tw, "\nhelp COMMAND or COMMAND --help shows the flags of a command.")
	}
	return tw.Flush()
}

func (h *helpResult) Lines(w io.Writer) error {
	for _, c := range h.list() {
		if err := WriteLine(w, "command", c.Path(), "description", c.spec.Desc); err != nil {
			return err
		}
	}
	return nil
}

func flagTypeWord(f *flagSpec) string {
	switch f.Kind {
	case kindBool:
		return ""
	case kindStrings:
		return "LIST"
	case kindInt64s:
		return "IDS"
	case kindInt, kindInt64:
		return "N"
	}
	if len(f.Enum) > 0 {
		return strings.Join(f.Enum, "|")
	}
	return "VALUE"
}

func flagHelp(f *flagSpec) string {
	var notes []string
	if f.Required {
		notes = append(notes, "required")
	}
	if f.Default != "" && f.Kind != kindBool {
		notes = append(notes, "default "+f.Default)
	}
	if f.repeatable() {
		notes = append(notes, "repeatable, or comma-separated")
	}
	if f.Env != "" {
		notes = append(notes, "env $"+f.Env)
	}
	s := f.Desc
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}
