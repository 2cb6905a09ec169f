package framework

import "testing"

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
