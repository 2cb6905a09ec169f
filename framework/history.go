package framework

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/shlex"

	"github.com/heron-shell/heron/configs"
)

// historyKeep is how many lines of history the REPL loads and keeps.
const historyKeep = 1000

// Redacted replaces the value of a secret flag in history.
const Redacted = "***"

// secretName matches flag names that are secret whatever their command.
var secretName = regexp.MustCompile(`(?i)(password|passwd|secret|token)`)

// SetHistoryFile sets the REPL history file; "" disables history. Without it
// the REPL uses configs.Load().HistoryFile.
func (sh *Shell) SetHistoryFile(path string) {
	sh.historyFile, sh.historySet = path, true
}

func (sh *Shell) historyPath() string {
	if sh.historySet {
		return sh.historyFile
	}
	return configs.Load().HistoryFile
}

// isSecretFlag reports whether a flag's value must never reach history: a
// flag tagged secret:"true" in the current state, or a password-like name.
func (sh *Shell) isSecretFlag(name string) bool {
	if secretName.MatchString(name) {
		return true
	}
	for _, c := range sh.index().cmds {
		if f := c.spec.flag(name); f != nil && f.Secret {
			return true
		}
	}
	return false
}

// RedactLine returns line as it may be stored in history: the value of every
// secret flag replaced by ***. ok is false when the line cannot be redacted
// safely (it does not split into words and mentions a secret): it must not
// be stored at all.
func RedactLine(line string, secret func(name string) bool) (redacted string, ok bool) {
	words, err := shlex.Split(line)
	if err != nil {
		for _, w := range strings.Fields(line) {
			if name, found := strings.CutPrefix(w, "--"); found {
				name, _, _ = strings.Cut(name, "=")
				if secret(name) {
					return "", false
				}
			}
		}
		if secretName.MatchString(line) {
			return "", false
		}
		return line, true
	}
	changed := false
	for i := 0; i < len(words); i++ {
		name, found := strings.CutPrefix(words[i], "--")
		if !found {
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		if !secret(name) {
			continue
		}
		changed = true
		if hasValue {
			words[i] = "--" + name + "=" + Redacted
		} else if i+1 < len(words) {
			words[i+1] = Redacted
			i++
		}
	}
	if !changed {
		return line, true
	}
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " "), true
}

// shellQuote quotes a word for the shell splitting of Run when needed.
func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	if !strings.ContainsAny(w, " \t\n'\"\\#,") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'"'"'`) + "'"
}

// recordHistory adds a line the operator typed to the in-memory history and
// the history file, redacted; a line that cannot be redacted is not kept.
func (sh *Shell) recordHistory(path string, hist []string, line string) ([]string, error) {
	red, ok := RedactLine(line, sh.isSecretFlag)
	if !ok || (len(hist) > 0 && hist[len(hist)-1] == red) {
		return hist, nil
	}
	return append(hist, red), appendHistory(path, red)
}

// loadHistory reads the last historyKeep lines of the history file.
func loadHistory(path string) []string {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > historyKeep {
		lines = lines[len(lines)-historyKeep:]
		if len(lines) > 0 {
			_ = rewriteHistory(path, lines)
		}
	}
	return lines
}

func rewriteHistory(path string, lines []string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// appendHistory appends one (already redacted) line to the history file,
// creating it readable by its owner only.
func appendHistory(path, line string) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
