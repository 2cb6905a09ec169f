package framework

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// builtins are the commands every state has.
var builtins = [][2]string{
	{"help [command]", "list the commands, or the flags of one command"},
	{"exit", "leave the shell (also: quit)"},
	{"clear", "clear the screen"},
}

// builtinHelp is what help --help, exit --help and quit --help print.
var builtinHelp = map[string]string{
	"help":  "help [COMMAND]: list the commands, or the flags of one command (also COMMAND --help)\n\nExample:\n  help show segment",
	"exit":  "exit: leave the shell (also: quit, Ctrl-D); takes no arguments",
	"quit":  "quit: leave the shell (also: exit, Ctrl-D); takes no arguments",
	"clear": "clear: clear the screen (on a terminal); takes no arguments",
}

// HelpNoter is an optional interface of a State: its HelpNote is printed
// under the list of commands (the offline state names what connect unlocks).
type HelpNoter interface {
	HelpNote() string
}

// helpFormat takes --format F (or --format=F) out of help's words: help
// answers --format like every command.
func helpFormat(words []string) ([]string, string, error) {
	format := FormatTable
	var rest []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--format":
			if i+1 == len(words) {
				return nil, "", Usagef("help: --format needs a value: table, json or line")
			}
			format = words[i+1]
			i++
		case strings.HasPrefix(w, "--format="):
			format = strings.TrimPrefix(w, "--format=")
		default:
			rest = append(rest, w)
			continue
		}
		if format != FormatTable && format != FormatJSON && format != FormatLine && format != FormatMarkdown {
			return nil, "", Usagef("help: --format must be table, json, line or markdown, not %q", format)
		}
	}
	return rest, format, nil
}

// FormatMarkdown is help's reference form: every command of the state with
// its flags, as docs/commands.md holds it (generated from it).
const FormatMarkdown = "markdown"

func (sh *Shell) help(words []string) error {
	words, format, err := helpFormat(words)
	if err != nil {
		return err
	}
	if format == FormatMarkdown {
		if len(words) > 0 {
			return Usagef("help --format markdown is the reference of every command: it takes no command name")
		}
		return writeMarkdown(sh.stdout, sh.index().cmds)
	}
	ix := sh.index()
	if len(words) == 0 {
		h := &helpResult{cmds: ix.cmds, builtins: true}
		if n, ok := sh.state.(HelpNoter); ok {
			h.note = n.HelpNote()
		}
		return Render(sh.stdout, h, format)
	}
	if len(words) == 1 && (words[0] == "--help" || words[0] == "-h") {
		return Render(sh.stdout, &helpResult{builtin: "help"}, format)
	}
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			return Usagef("help takes a command name, not %q", w)
		}
	}
	path := strings.Join(words, " ")
	if c, ok := ix.lookup(path); ok {
		return Render(sh.stdout, &helpResult{detail: c}, format)
	}
	if _, ok := builtinHelp[path]; ok {
		return Render(sh.stdout, &helpResult{builtin: path}, format)
	}
	var under []*Command
	for _, c := range ix.cmds {
		if hasPrefix(c.spec.Path, words) {
			under = append(under, c)
		}
	}
	if len(under) == 0 {
		if _, _, err := ix.resolve(words); err != nil {
			return err
		}
		return Usagef("unknown command %q (type help for the list)", path)
	}
	return Render(sh.stdout, &helpResult{cmds: under}, format)
}

// helpResult lists commands, or details one.
type helpResult struct {
	cmds     []*Command
	builtins bool
	detail   *Command
	// builtin is help, exit or quit: its own help.
	builtin string
	// note is the state's HelpNote, under the list.
	note string
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
	Aliases     []string       `json:"aliases,omitempty"`
	Flags       []helpFlagJSON `json:"flags,omitempty"`
}

func (h *helpResult) JSON() any {
	var out []helpCommandJSON
	for _, c := range h.list() {
		hc := helpCommandJSON{Command: c.Path(), Description: c.spec.Desc, Example: c.spec.Example, Aliases: c.spec.Aliases}
		for _, f := range c.spec.Flags {
			hc.Flags = append(hc.Flags, helpFlagJSON{
				Name: "--" + f.Name, Type: f.Kind.String(), Default: f.Default, Description: f.Desc,
				Enum: f.Enum, Required: f.Required, Env: f.Env, Repeatable: f.repeatable(),
				Placeholder: flagTypeWord(f),
			})
		}
		out = append(out, hc)
	}
	if h.builtin != "" {
		out = append(out, helpCommandJSON{Command: h.builtin, Description: builtinHelp[h.builtin]})
	}
	if h.builtins {
		for _, b := range builtins {
			out = append(out, helpCommandJSON{Command: b[0], Description: b[1]})
		}
	}
	doc := map[string]any{"commands": out}
	if h.note != "" {
		doc["note"] = h.note
	}
	return doc
}

func (h *helpResult) list() []*Command {
	if h.detail != nil {
		return []*Command{h.detail}
	}
	return h.cmds
}

// Table writes the help, each description wrapped to the width output
// keeps to (Width: the terminal's, piped PipeWidth like every table).
func (h *helpResult) Table(w io.Writer) error {
	width := Width(w)
	var sb strings.Builder
	if h.builtin != "" {
		sb.WriteString(wrapText(builtinHelp[h.builtin], width, ""))
		sb.WriteByte('\n')
		_, err := io.WriteString(w, sb.String())
		return err
	}
	if c := h.detail; c != nil {
		sb.WriteString(wrapText(c.Path()+": "+c.spec.Desc, width, "  "))
		sb.WriteByte('\n')
		if len(c.spec.Aliases) > 0 {
			sb.WriteString(wrapText("Also: "+strings.Join(c.spec.Aliases, ", "), width, "  "))
			sb.WriteByte('\n')
		}
		var rows [][2]string
		for _, f := range c.spec.Flags {
			rows = append(rows, [2]string{strings.TrimSpace("--" + f.Name + " " + flagTypeWord(f)), flagHelp(f)})
		}
		if len(rows) > 0 {
			sb.WriteString("\nFlags:\n")
			writeTwoColumns(&sb, rows, width)
		}
		if c.spec.Example != "" {
			fmt.Fprintf(&sb, "\nExample:\n  %s\n", c.spec.Example)
		}
		_, err := io.WriteString(w, sb.String())
		return err
	}
	var rows [][2]string
	for _, c := range h.cmds {
		rows = append(rows, [2]string{c.Path(), c.spec.Desc})
	}
	if h.builtins {
		rows = append(rows, builtins...)
	}
	if len(rows) > 0 {
		sb.WriteString("Commands:\n")
		writeTwoColumns(&sb, rows, width)
	}
	if h.note != "" {
		sb.WriteByte('\n')
		sb.WriteString(wrapText(h.note, width, ""))
		sb.WriteByte('\n')
	}
	if h.builtins {
		sb.WriteString("\nhelp COMMAND or COMMAND --help shows the flags of a command.\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// maxNameColumn bounds the first column of a two-column help listing; a
// longer name puts its description on the next line.
const maxNameColumn = 32

// writeTwoColumns writes rows as "  name  description", the descriptions
// aligned and wrapped to width (width 0: not wrapped, and aligned after the
// longest name, as piped help always was).
func writeTwoColumns(sb *strings.Builder, rows [][2]string, width int) {
	col := 0
	for _, r := range rows {
		if n := utf8.RuneCountInString(r[0]); n <= maxNameColumn || width <= 0 {
			col = max(col, n)
		}
	}
	indent := strings.Repeat(" ", 2+col+2)
	for _, r := range rows {
		name := "  " + r[0]
		if n := utf8.RuneCountInString(r[0]); n > col {
			sb.WriteString(name + "\n" + indent)
		} else {
			sb.WriteString(name + strings.Repeat(" ", col-n+2))
		}
		sb.WriteString(strings.TrimPrefix(wrapText(indent+r[1], width, indent), indent))
		sb.WriteByte('\n')
	}
}

// wrapText wraps s at spaces to width columns (width 0: s as it is);
// continuation lines start with indent. Each line of s (its own newlines)
// is wrapped on its own; a word longer than a line stays whole.
func wrapText(s string, width int, indent string) string {
	if width <= 0 {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		lead := para[:len(para)-len(strings.TrimLeft(para, " "))]
		words := strings.Fields(para)
		line := lead
		n := utf8.RuneCountInString(line)
		for i, word := range words {
			wn := utf8.RuneCountInString(word)
			if i > 0 && n+1+wn > width {
				out = append(out, line)
				line, n = indent+word, utf8.RuneCountInString(indent)+wn
				continue
			}
			if i > 0 {
				line += " "
				n++
			}
			line += word
			n += wn
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func (h *helpResult) Lines(w io.Writer) error {
	for _, c := range h.list() {
		if err := WriteLine(w, "command", c.Path(), "description", c.spec.Desc); err != nil {
			return err
		}
	}
	rows := builtins
	if h.builtin != "" {
		rows = [][2]string{{h.builtin, builtinHelp[h.builtin]}}
	} else if !h.builtins {
		rows = nil
	}
	for _, b := range rows {
		if err := WriteLine(w, "command", b[0], "description", b[1]); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdown writes the reference of cmds: a section per command with
// its description, aliases, flags (a table) and example.
func writeMarkdown(w io.Writer, cmds []*Command) error {
	var sb strings.Builder
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	for _, c := range cmds {
		fmt.Fprintf(&sb, "### %s\n\n%s\n\n", c.Path(), c.spec.Desc)
		if len(c.spec.Aliases) > 0 {
			fmt.Fprintf(&sb, "Also: `%s`\n\n", strings.Join(c.spec.Aliases, "`, `"))
		}
		if len(c.spec.Flags) > 0 {
			sb.WriteString("| flag | value | meaning |\n|---|---|---|\n")
			for _, f := range c.spec.Flags {
				name := "`--" + f.Name + "`"
				for _, a := range f.Aliases {
					name += ", `--" + a + "`"
				}
				fmt.Fprintf(&sb, "| %s | %s | %s |\n", name, cell(flagTypeWord(f)), cell(flagHelp(f)))
			}
			sb.WriteByte('\n')
		}
		if c.spec.Example != "" {
			fmt.Fprintf(&sb, "    %s\n\n", c.spec.Example)
		}
	}
	sb.WriteString("### Built in\n\n| command | meaning |\n|---|---|\n")
	for _, b := range builtins {
		fmt.Fprintf(&sb, "| `%s` | %s |\n", b[0], cell(b[1]))
	}
	_, err := io.WriteString(w, sb.String())
	return err
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

// ParseMain parses the command line of heron or of one of its programs
// (heron demo, heron load-backup) into fs: --help prints the usage to stdout
// and ends with ExitOK; a bad flag prints "error: " + prefix + the error and
// the usage to stderr and ends with ExitUsage. done is false when the
// program goes on.
func ParseMain(fs *pflag.FlagSet, args []string, prefix string, usage func(io.Writer, *pflag.FlagSet), stdout, stderr io.Writer) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return ExitOK, false
	case errors.Is(err, pflag.ErrHelp):
		usage(stdout, fs)
		return ExitOK, true
	}
	fmt.Fprintf(stderr, "error: %s%v\n", prefix, err)
	usage(stderr, fs)
	return ExitUsage, true
}
