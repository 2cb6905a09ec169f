package framework

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscapeText(t *testing.T) {
	cases := map[string]string{
		"":                              "",
		"datacoord-meta/s/100/101/1001": "datacoord-meta/s/100/101/1001",
		"with space":                    "with space",
		"é/ü 日本":                        "é/ü 日本",
		"clear\x1b[2J":                  `clear\x1b[2J`,
		"ends in newline\n":             `ends in newline\n`,
		"tab\tkey":                      `tab\tkey`,
		"cr\rbell\a nul\x00 del\x7f":    `cr\rbell\a nul\x00 del\x7f`,
		"bad utf8 \xff\xfe":             `bad utf8 \xff\xfe`,
		"line sep \u2028 bidi \u202e":   `line sep \u2028 bidi \u202e`,
		`back\slash`:                    `back\slash`,
		"C1 control \u009b2J":           `C1 control \u009b2J`,
		"é then \x1b":                   `é then \x1b`,
		"s/100/101/1006/x":              "s/100/101/1006/x",
	}
	for in, want := range cases {
		if got := EscapeText(in); got != want {
			t.Errorf("EscapeText(%q) = %q, want %q", in, got, want)
		}
		got := EscapeText(in)
		if !strings.ContainsAny(in, "\n\t") && TerminalText(in) != got {
			t.Errorf("TerminalText(%q) = %q, EscapeText %q: one rule but for newlines and TABs", in, TerminalText(in), got)
		}
		if again := EscapeText(got); again != got {
			t.Errorf("EscapeText is not idempotent on %q: %q, then %q", in, got, again)
		}
		for i := 0; i < len(got); i++ {
			if c := got[i]; c < 0x20 || c == 0x7f {
				t.Errorf("EscapeText(%q) keeps control byte %#x", in, c)
			}
		}
	}
}

// Issue 9 item 8: an error quoting a key with control characters does not
// act on the terminal.
func TestTerminalText(t *testing.T) {
	assert.Equal(t, "plain\nline\ttab", TerminalText("plain\nline\ttab"))
	assert.Equal(t, `key a\x1b[2J b\r c\a`, TerminalText("key a\x1b[2J b\r c\a"))
	assert.Equal(t, `bad \xff byte, é kept`, TerminalText("bad \xff byte, é kept"))
	assert.Equal(t, `bidi \u202e`, TerminalText("bidi \u202e"))

	sh, _, _, errOut := newTestShell(t)
	st := sh.State().(*fakeState)
	st.cmds = append(st.cmds, Read(st, func(context.Context, *fakeState, *pingParams, IO) (Result, error) {
		return nil, errors.New("no key \x1b[2Jx")
	}))
	sh.idx = nil
	assert.Equal(t, ExitFailed, sh.RunScript(context.Background(), strings.NewReader("ping\n")))
	assert.Equal(t, "error: no key \\x1b[2Jx\n", errOut.String())
}
