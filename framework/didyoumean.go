package framework

import (
	"slices"
	"strings"
)

// nearest is the candidate closest to word by edit distance, when it is
// close enough to be a typo (at most 2 edits, and fewer than half the
// word's letters), or "" for none; a candidate that word starts or ends
// (segments for segment) counts as 1 edit.
func nearest(word string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		if c == word || c == "" {
			continue
		}
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if strings.HasPrefix(c, word) || strings.HasPrefix(word, c) {
			d = min(d, 1)
		}
		if d > 2 || 2*d >= len(word)+1 {
			continue
		}
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// didYouMean is ": did you mean PREFIX X?" for the nearest candidate X,
// else "".
func didYouMean(word string, candidates []string, prefix string) string {
	if n := nearest(word, candidates); n != "" {
		return ": did you mean " + prefix + n + "?"
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b, in bytes (command
// words and flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unknownFlagHint is the did-you-mean of pflag's "unknown flag: --NAME"
// among the command's flags, or "".
func (c *Command) unknownFlagHint(msg string) string {
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return ""
	}
	var names []string
	for _, f := range c.spec.Flags {
		names = append(names, "--"+f.Name)
	}
	return didYouMean("--"+name, names, "")
}

// topWords are the first words of the commands of ix and the builtins.
func (ix *index) topWords() []string {
	words := append(ix.children(nil), "help", "exit", "quit", "clear")
	for p := range ix.aliases {
		first, _, _ := strings.Cut(p, " ")
		if !slices.Contains(words, first) {
			words = append(words, first)
		}
	}
	return words
}
