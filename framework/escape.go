package framework

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeText returns s for a terminal cell: printable text stays as it is,
// every other byte or rune (control characters such as ESC, newline and TAB,
// invalid UTF-8, non-printable runes) is written the way Go's %q writes it
// (\x1b, \n, \t, \xff, \u2028). Backslashes are kept, so that escaping
// twice changes nothing (a caller may escape before a table does); JSON
// output must not use it: it stays exact.
func EscapeText(s string) string { return escapeTerminal(s, false) }

// TerminalText is EscapeText for messages such as errors, which may quote a
// key: the same rule, but newlines and TABs are kept, as they lay the
// message out.
func TerminalText(s string) string { return escapeTerminal(s, true) }

// escapeTerminal is the one escaping rule; layout keeps newlines and TABs.
func escapeTerminal(s string, layout bool) string {
	if isPlain(s, layout) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			sb.WriteString(`\x`)
			sb.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			sb.WriteString(strconv.FormatUint(uint64(s[i])&0xf, 16))
		case kept(r, layout):
			sb.WriteRune(r)
		default:
			q := strconv.QuoteRune(r) // '\n', '\x1b', '\u2028'
			sb.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return sb.String()
}

// kept reports whether r goes to the terminal as it is.
func kept(r rune, layout bool) bool {
	return unicode.IsPrint(r) || (layout && (r == '\n' || r == '\t'))
}

// isPlain reports whether s needs no escaping (the common case, without
// allocating).
func isPlain(s string, layout bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && !kept(rune(c), layout) {
			return false
		}
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || !kept(r, layout) {
					return false
				}
			}
			return true
		}
	}
	return true
}
