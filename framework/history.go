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

// secretName matches flag names whose value is never stored, whatever their
// command: anything with "pas" (password, passwd, and typos such as
// --etcdPasword), "pwd", "secret" or "token", in any case.
var secretName = regexp.MustCompile(`(?i)(pas|pwd|secret|token)`)

// SecretFlagName reports whether a flag's name alone makes its value secret
// (secretName), whatever the command and the state: history never stores it.
func SecretFlagName(name string) bool { return secretName.MatchString(name) }

func (sh *Shell) historyPath() string {
	if sh.historySet {
		return sh.historyFile
	}
	return configs.Load().HistoryFile
}

// isSecretFlag reports whether a flag's value must never reach history: a
// flag tagged secret:"true" in the current state, or a password-like name.
func (sh *Shell) isSecretFlag(name string) bool {
	if SecretFlagName(name) {
		return true
	}
	for _, c := range sh.index().cmds {
		if f := c.spec.flag(name); f != nil && f.Secret {
			return true
		}
	}
	return false
}

// flagArity tells, for a command seen in any state of this shell, whether
// its flag name is known and takes a value. A flag the command does not
// know may be a mistyped password flag.
func (sh *Shell) flagArity(cmd string) func(name string) (known, takesValue bool) {
	sh.index() // the current state's commands are seen
	spec, ok := sh.seen[cmd]
	if !ok {
		return nil
	}
	return func(name string) (bool, bool) {
		if name == "run" || name == "help" {
			return true, false
		}
		f := spec.flag(name)
		if f == nil {
			return false, true
		}
		return true, f.Kind != kindBool
	}
}

// redactLine returns line as it may be stored in history: the value of every
// secret flag replaced by ***, and in a connect line every word that is not
// a flag or a flag's value too. With the flags of the line's command known
// (arity, nil when not), the value of a flag the command does not know is
// redacted too. ok is false when the line cannot be redacted safely (it does
// not split into words and mentions a secret, or it is a connect line): it
// must not be stored at all.
func redactLine(line string, secret func(name string) bool, arity func(name string) (known, takesValue bool)) (string, bool) {
	words, err := shlex.Split(line)
	if err != nil {
		fields := strings.Fields(line)
		if len(fields) > 0 && credentialCommands[fields[0]] {
			return "", false
		}
		for _, w := range fields {
			if name, found := flagName(w); found {
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
	if len(words) == 0 {
		return line, true
	}
	credential := credentialCommands[words[0]]
	if arity == nil {
		arity = func(string) (bool, bool) { return true, true }
	}
	changed := false
	redact := func(i int) {
		words[i] = Redacted
		changed = true
	}
	for i := 1; i < len(words); i++ {
		w := words[i]
		if credential && w == "--" {
			for j := i + 1; j < len(words); j++ {
				redact(j)
			}
			break
		}
		name, isFlag := flagName(w)
		if !isFlag {
			if credential {
				redact(i) // a stray word in a connect line may be a password
			}
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		known, takesValue := arity(name)
		switch {
		case secret(name) || (credential && !known):
			if hasValue {
				words[i] = w[:len(w)-len(strings.TrimLeft(w, "-"))] + name + "=" + Redacted
				changed = true
			} else if i+1 < len(words) && (secret(name) || !isFlagWord(words[i+1])) {
				redact(i + 1)
				i++
			}
		case !hasValue && takesValue && i+1 < len(words) && !isFlagWord(words[i+1]):
			i++ // the flag's value, kept
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

// flagName strips the dashes of a flag word (-x, --x, ---x).
func flagName(w string) (string, bool) {
	if !isFlagWord(w) {
		return "", false
	}
	return strings.TrimLeft(w, "-"), true
}

func isFlagWord(w string) bool {
	return len(w) > 1 && w[0] == '-' && strings.TrimLeft(w, "-") != ""
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
	var arity func(string) (bool, bool)
	if words := strings.Fields(line); len(words) > 0 {
		arity = sh.flagArity(words[0])
	}
	red, ok := redactLine(line, sh.isSecretFlag, arity)
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
