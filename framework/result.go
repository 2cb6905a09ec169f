package framework

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Output formats.
const (
	FormatTable = "table"
	FormatJSON  = "json"
	FormatLine  = "line"
)

// Output gives a command the flag --format table|json|line: embed it in the
// param struct.
type Output struct {
	Format string `name:"format" default:"table" enum:"table,json,line" desc:"output format: table, json or line"`
}

// OutputFormat is the chosen format; the framework reads it through this
// method, promoted to any param struct that embeds Output.
func (o Output) OutputFormat() string { return o.Format }

type formatter interface{ OutputFormat() string }

// Result is what a command returns; the framework renders it by --format.
type Result interface {
	// JSON is the value printed, indented, as exactly one JSON document.
	JSON() any
	// Table writes human-readable table(s).
	Table(w io.Writer) error
	// Lines writes one record per line, as key=value words (see WriteLine).
	Lines(w io.Writer) error
}

// JSONWriter is a Result that writes its one JSON document itself, as it
// reads it, so that a listing of any size is never held in memory: Render
// calls WriteJSON instead of marshalling JSON().
type JSONWriter interface {
	WriteJSON(w io.Writer) error
}

// Render writes r to w in the given format ("" is table).
func Render(w io.Writer, r Result, format string) error {
	switch format {
	case FormatTable, "":
		cols, ok := TerminalWidth(w)
		if _, wrapped := w.(*wrapWriter); !ok || wrapped {
			return r.Table(w)
		}
		// On a terminal, a line wider than it breaks at a space (wrapWriter).
		ww := newWrapWriter(w, cols)
		err := r.Table(ww)
		if ferr := ww.flush(); err == nil {
			err = ferr
		}
		return err
	case FormatLine:
		return r.Lines(w)
	case FormatJSON:
		if jw, ok := r.(JSONWriter); ok {
			return jw.WriteJSON(w)
		}
		b, err := json.MarshalIndent(r.JSON(), "", "  ")
		if err != nil {
			return fmt.Errorf("render json: %w", err)
		}
		b = append(b, '\n')
		_, err = w.Write(b)
		return err
	default:
		return Usagef("unknown output format %q (table, json or line)", format)
	}
}

// Message returns a Result that just says something.
func Message(format string, a ...any) Result {
	return message(fmt.Sprintf(format, a...))
}

type message string

func (m message) JSON() any { return map[string]string{"message": string(m)} }

func (m message) Table(w io.Writer) error {
	_, err := fmt.Fprintln(w, string(m))
	return err
}

func (m message) Lines(w io.Writer) error { return WriteLine(w, "message", string(m)) }

// WriteLine writes one record of key=value words, for the line format: keys
// at even positions, values (formatted with %v) after them. A key or value
// that is empty or holds spaces, quotes, '=', a byte that is not valid UTF-8
// or any non-printable character is Go-quoted (%q: ESC, newline and TAB are
// escaped), so every record splits on spaces and nothing reaches the
// terminal raw.
func WriteLine(w io.Writer, kv ...any) error {
	var sb strings.Builder
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(QuoteWord(fmt.Sprint(kv[i])))
		sb.WriteByte('=')
		var v string
		if i+1 < len(kv) {
			v = fmt.Sprint(kv[i+1])
		}
		sb.WriteString(QuoteWord(v))
	}
	sb.WriteByte('\n')
	_, err := io.WriteString(w, sb.String())
	return err
}

// QuoteWord returns s as it is when it is a plain word of printable UTF-8,
// else Go-quoted (every non-printable byte escaped).
func QuoteWord(s string) string {
	if s == "" {
		return `""`
	}
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' || r == '\'' || r == '=' || r == '\\' {
			return strconv.Quote(s)
		}
	}
	return s
}

// LeaseID is an etcd lease id as etcdctl prints it (lease grant, lease
// list: 16 hex digits, leading zeros kept), so that an operator matches
// the two.
func LeaseID(id int64) string { return fmt.Sprintf("%016x", id) }
