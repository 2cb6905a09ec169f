package framework

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
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
	Placeholder string   `json:"placeholder,omitempty"`
}

type helpCommandJSON struct {
	Command     string         `json:"command"`
	Description string         `json:"description"`
	Example     string         `json:"example,omitempty"`
	Flags       []helpFlagJSON `json:"flags,omitempty"`
}

func (h *helpResult) JSON() any {
	var out []helpCommandJSON
	for _, c := range h.list() {
		hc := helpCommandJSON{Command: c.Path(), Description: c.spec.Desc, Example: c.spec.Example}
		for _, f := range c.spec.Flags {
			hc.Flags = append(hc.Flags, helpFlagJSON{
				Name: "--" + f.Name, Type: f.Kind.String(), Default: f.Default, Description: f.Desc,
				Enum: f.Enum, Required: f.Required, Env: f.Env, Repeatable: f.repeatable(),
				Placeholder: flagTypeWord(f),
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
			fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace("--"+f.Name+" "+flagTypeWord(f)), flagHelp(f))
		}
		if c.spec.Example != "" {
			fmt.Fprintf(tw, "\nExample:\n  %s\n", c.spec.Example)
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

// flagTypeWord is the word help shows for a flag's value: its placeholder
// tag (--file BACKUP), its enum (table|json|line), else its type (STRING, N).
func flagTypeWord(f *flagSpec) string {
	switch {
	case f.Kind == kindBool:
		return ""
	case f.Placeholder != "":
		return f.Placeholder
	case len(f.Enum) > 0:
		return strings.Join(f.Enum, "|")
	case f.Kind == kindInt, f.Kind == kindInt64, f.Kind == kindInt64s:
		return "N"
	}
	return "STRING"
}

func flagHelp(f *flagSpec) string {
	var notes []string
	if f.Required {
		notes = append(notes, "required")
	}
	if f.Kind != kindBool && !isZeroDefault(f.Default) {
		notes = append(notes, "default "+f.Default)
	}
	if f.repeatable() && !strings.Contains(strings.ToLower(f.Desc), "repeatable") {
		notes = append(notes, "repeatable, or comma-separated")
	}
	if f.Env != "" {
		notes = append(notes, "env $"+f.Env)
	}
	s := f.Desc
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return strings.TrimSpace(s)
}

// isZeroDefault reports a default that says nothing: the description says
// what leaving the flag out means ("all when omitted"), not "(default 0)".
func isZeroDefault(d string) bool {
	switch d {
	case "", "0", "false", "[]":
		return true
	}
	return false
}

// FlagUsages renders the flags of a command-line flag set (heron's own,
// heron demo's) in the shell's style: --rootPath STRING, the placeholder
// named by backquotes in the usage text (`COMMANDS`), no zero defaults.
func FlagUsages(fs *pflag.FlagSet) string {
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 2, 4, 2, ' ', 0)
	fs.VisitAll(func(fl *pflag.Flag) {
		word, usage := pflag.UnquoteUsage(fl)
		if fl.Value.Type() == "bool" {
			word = ""
		} else if !strings.Contains(fl.Usage, "`") {
			switch word {
			case "int", "int64", "uint", "uint64":
				word = "N"
			case "strings", "stringSlice":
				word = "STRING"
			default:
				word = strings.ToUpper(word)
			}
		}
		if fl.Value.Type() != "bool" && !isZeroDefault(fl.DefValue) {
			usage += " (default " + fl.DefValue + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace("--"+fl.Name+" "+word), usage)
	})
	_ = tw.Flush()
	return sb.String()
}
