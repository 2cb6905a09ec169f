package framework

import (
	"context"
	"strings"
	"time"

	prompt "github.com/c-bata/go-prompt"
)

// ValueCompleter is implemented by a State that can list values of a kind
// (a flag's complete tag: pchannel, collection) from what it is connected
// to, for the REPL's completion. It returns nil for a kind it does not know
// and on any error: completion never fails a line.
type ValueCompleter interface {
	CompleteValues(ctx context.Context, kind string) []Completion
}

// Completion is one value to complete, with a note shown beside it.
type Completion struct {
	Value string
	Note  string
}

// completeTimeout bounds one read of values for completion, which runs
// while the operator types.
const completeTimeout = 500 * time.Millisecond

// Suggest completes the text before the cursor: command words, then the
// command's flags, then flag values: enum values (--format j → json) and the
// values the state completes for the flag's kind (pchannel names).
func (sh *Shell) Suggest(before string) (out []prompt.Suggest) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	words := strings.Fields(before)
	cur := ""
	if len(words) > 0 && !strings.HasSuffix(before, " ") && !strings.HasSuffix(before, "\t") {
		cur = words[len(words)-1]
		words = words[:len(words)-1]
	}
	ix := sh.index()
	if len(words) > 0 && words[0] == "help" {
		return filter(ix.pathSuggestions(words[1:], false), cur)
	}
	n := 0
	for n < len(words) && !strings.HasPrefix(words[n], "-") {
		n++
	}
	var cmd *Command
	for k := min(n, ix.depth); k >= 1; k-- {
		if c, ok := ix.lookup(strings.Join(words[:k], " ")); ok {
			cmd = c
			break
		}
	}
	if cmd == nil {
		if n < len(words) || strings.HasPrefix(cur, "-") {
			return nil
		}
		return filter(ix.pathSuggestions(words, true), cur)
	}
	// Inside the command's flags.
	rest := words[len(cmd.spec.Path):]
	if len(rest) > 0 {
		prev := rest[len(rest)-1]
		if name, ok := strings.CutPrefix(prev, "--"); ok && !strings.Contains(name, "=") {
			if f := cmd.spec.flag(name); f != nil && f.Kind != kindBool {
				return filterValues(sh.valueSuggestions(f, listPrefix(f, cur), cur), cur, listPrefix(f, cur))
			}
		}
	}
	if name, val, ok := strings.Cut(strings.TrimPrefix(cur, "--"), "="); ok && strings.HasPrefix(cur, "--") {
		if f := cmd.spec.flag(name); f != nil {
			return filterValues(sh.valueSuggestions(f, "--"+name+"="+listPrefix(f, val), val), cur, "--"+name+"="+listPrefix(f, val))
		}
		return nil
	}
	if cur != "" && !strings.HasPrefix(cur, "-") {
		return nil
	}
	used := map[string]bool{}
	for _, w := range rest {
		if name, ok := strings.CutPrefix(w, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			used[name] = true
		}
	}
	for _, f := range cmd.spec.Flags {
		if used[f.Name] && !f.repeatable() {
			continue
		}
		out = append(out, prompt.Suggest{Text: "--" + f.Name, Description: flagHelp(f)})
	}
	return filter(out, cur)
}

// listPrefix is the part of a list flag's value before the element being
// typed (--pchannel dml_0,dm completes the element after "dml_0,").
func listPrefix(f *flagSpec, val string) string {
	if !f.repeatable() {
		return ""
	}
	if i := strings.LastIndexByte(val, ','); i >= 0 {
		return val[:i+1]
	}
	return ""
}

// valueSuggestions are the values of flag f, each after prefix: its enum,
// the entries of the folder typed names (path kinds), or what the state
// completes for its kind.
func (sh *Shell) valueSuggestions(f *flagSpec, prefix, typed string) []prompt.Suggest {
	var out []prompt.Suggest
	for _, v := range f.Enum {
		out = append(out, prompt.Suggest{Text: prefix + v})
	}
	if len(f.Enum) > 0 || f.Complete == "" {
		return out
	}
	if isPathKind(f.Complete) {
		return pathSuggestions(f.Complete, prefix, typed)
	}
	vc, ok := sh.state.(ValueCompleter)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	for _, c := range vc.CompleteValues(ctx, f.Complete) {
		out = append(out, prompt.Suggest{Text: prefix + c.Value, Description: EscapeText(c.Note)})
	}
	return out
}

// replSuggest is Suggest as the REPL offers it: a completed word ends with a
// space, so the next word can be typed (or completed) at once.
func (sh *Shell) replSuggest(before string) []prompt.Suggest {
	if strings.TrimSpace(before) == "" {
		return nil // no menu over an empty line
	}
	out := sh.Suggest(before)
	for i := range out {
		if !strings.HasSuffix(out[i].Text, "/") { // a folder: completion goes on inside it
			out[i].Text += " "
		}
	}
	return out
}

// pathSuggestions are the next command words after prefix.
func (ix *index) pathSuggestions(prefix []string, withBuiltins bool) []prompt.Suggest {
	var out []prompt.Suggest
	for _, w := range ix.children(prefix) {
		full := strings.Join(append(append([]string{}, prefix...), w), " ")
		desc := ""
		if c, ok := ix.byPath[full]; ok {
			desc = c.spec.Desc
		} else {
			desc = strings.Join(ix.children(append(append([]string{}, prefix...), w)), ", ")
		}
		out = append(out, prompt.Suggest{Text: w, Description: desc})
	}
	if withBuiltins && len(prefix) == 0 {
		out = append(out,
			prompt.Suggest{Text: "help", Description: builtins[0][1]},
			prompt.Suggest{Text: "exit", Description: builtins[1][1]},
			prompt.Suggest{Text: "clear", Description: builtins[2][1]},
		)
	}
	return out
}

// filterValues keeps the values whose text, or whose note (a collection's
// name beside its id), starts with what is typed after prefix: typing a
// collection's name offers its id.
func filterValues(s []prompt.Suggest, cur, prefix string) []prompt.Suggest {
	typed, _ := strings.CutPrefix(cur, prefix)
	var out []prompt.Suggest
	for _, sg := range s {
		if strings.HasPrefix(strings.ToLower(sg.Text), strings.ToLower(cur)) || (typed != "" && strings.HasPrefix(strings.ToLower(sg.Description), strings.ToLower(typed))) {
			out = append(out, sg)
		}
	}
	return out
}

func filter(s []prompt.Suggest, cur string) []prompt.Suggest {
	return prompt.FilterHasPrefix(s, cur, true)
}
