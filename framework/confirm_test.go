package framework

import (
	"context"
	"strings"
	"testing"
)

// The question before a write: asked only when the shell has a terminal to
// ask on, and written only on y/yes; --yes skips it.
func TestWriteAsksBeforeTheFirstWrite(t *testing.T) {
	tests := []struct {
		name, line, answer string
		terminal           bool
		applied            int
		stdout, stderr     string
		asked              bool
	}{
		{name: "yes", line: "reset thing --run", answer: "y\n", terminal: true, applied: 1, asked: true,
			stdout: "PLAN put k v\napplied 1 key\n"},
		{name: "YES", line: "reset thing --run", answer: "YES\n", terminal: true, applied: 1, asked: true},
		{name: "no", line: "reset thing --run", answer: "n\n", terminal: true, asked: true,
			stdout: "PLAN put k v\n", stderr: "nothing was written"},
		{name: "empty answer is no", line: "reset thing --run", answer: "\n", terminal: true, asked: true, stderr: "nothing was written"},
		{name: "--yes does not ask", line: "reset thing --run --yes", terminal: true, applied: 1},
		{name: "no terminal does not ask", line: "reset thing --run", applied: 1},
		{name: "json: the plan goes to stderr", line: "reset thing --run --format json", answer: "yes\n", terminal: true, applied: 1, asked: true,
			stdout: "{\n  \"message\": \"applied 1 key\"\n}\n", stderr: "PLAN put k v"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, st, out, errOut := newTestShell(t)
			if tt.terminal {
				sh.confirm = terminalConfirm(strings.NewReader(tt.answer), errOut)
			}
			if err := sh.Run(context.Background(), tt.line); err != nil {
				t.Fatalf("exit %d: %v", ExitCode(err), err)
			}
			if st.applied != tt.applied {
				t.Fatalf("applied %d, want %d", st.applied, tt.applied)
			}
			if asked := strings.Contains(errOut.String(), "apply these 1 key changes to root? [y/N]"); asked != tt.asked {
				t.Fatalf("asked %v, want %v; stderr %q", asked, tt.asked, errOut.String())
			}
			if tt.stdout != "" && out.String() != tt.stdout {
				t.Fatalf("stdout %q, want %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errOut.String(), tt.stderr) {
				t.Fatalf("stderr %q lacks %q", errOut.String(), tt.stderr)
			}
		})
	}
	sh, _, _, _ := newTestShell(t)
	if err := sh.Run(context.Background(), "reset thing --yes"); ExitCode(err) != ExitUsage {
		t.Fatalf("--yes without --run: %v", err)
	}
}

// The question may name a root path from the operator: it is terminal text.
func TestConfirmQuestionIsTerminalText(t *testing.T) {
	var out strings.Builder
	yes, err := terminalConfirm(strings.NewReader("yes\n"), &out)(context.Background(), "apply to a\x1b[2J? [y/N] ")
	if err != nil || !yes {
		t.Fatalf("yes=%v err=%v", yes, err)
	}
	if want := `apply to a\x1b[2J? [y/N] `; out.String() != want {
		t.Fatalf("question %q, want %q", out.String(), want)
	}
}
