package framework

import (
	"strings"

	prompt "github.com/c-bata/go-prompt"
)

// Suggest completes the text before the cursor: command words, then the
// command's flags, then the values of enum flags (--format j → json).
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
		if c, ok := ix.byPath[strings.Join(words[:k], " ")]; ok {
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
				return filter(enumSuggestions(f, ""), cur)
			}
		}
	}
	if name, _, ok := strings.Cut(strings.TrimPrefix(cur, "--"), "="); ok && strings.HasPrefix(cur, "--") {
		if f := cmd.spec.flag(name); f != nil {
			return filter(enumSuggestions(f, "--"+name+"="), cur)
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

func enumSuggestions(f *flagSpec, prefix string) []prompt.Suggest {
	var out []prompt.Suggest
	for _, v := range f.Enum {
		out = append(out, prompt.Suggest{Text: prefix + v})
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
		)
	}
	return out
}

func filter(s []prompt.Suggest, cur string) []prompt.Suggest {
	return prompt.FilterHasPrefix(s, cur, true)
}
