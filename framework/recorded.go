package framework

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// A saved plan records the flags of the command that planned it, so that
// `apply --file` can plan again with them (framework/apply's registry):
// RecordedFlags writes them as words, ParseRecorded reads them back through
// the command's own parser (defaults, environment, Complete, Validate).

// recordedSkip are the embedded flag groups a plan does not record: how a
// run writes and prints (--max-txn-ops, --backup-dir, --plan-out, --format),
// not what it plans.
var recordedSkip = []reflect.Type{reflect.TypeOf(WriteFlags{}), reflect.TypeOf(Output{})}

// RecordedFlags are the flags of the params p (a pointer to a param struct)
// that decide what its command plans, as command-line words: every flag
// that differs from its default, in declaration order, except the secret
// ones (a plan file holds no credential: they come again from the
// environment or the command line) and the write and output flags.
func RecordedFlags(p any) ([]string, error) {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("params %T are not a pointer to a struct", p)
	}
	spec, err := parseSpec(v.Elem().Type())
	if err != nil {
		return nil, err
	}
	words := []string{}
	for _, f := range spec.Flags {
		if f.index == nil || f.Secret || slices.Contains(recordedSkip, v.Elem().Type().Field(f.index[0]).Type) {
			continue
		}
		words = append(words, f.words(v.Elem().FieldByIndex(f.index))...)
	}
	return words, nil
}

// words are the command-line words that set field to its value ("" when it
// holds the default).
func (f *flagSpec) words(field reflect.Value) []string {
	flag := "--" + f.Name
	switch f.Kind {
	case kindBool:
		def, _ := strconv.ParseBool(f.Default)
		if field.Bool() == def {
			return nil
		}
		return []string{flag + "=" + strconv.FormatBool(field.Bool())}
	case kindStrings, kindInt64s:
		var vals []string
		for i := 0; i < field.Len(); i++ {
			vals = append(vals, fmt.Sprint(field.Index(i).Interface()))
		}
		if strings.Join(vals, ",") == strings.Join(f.defaultWords(), ",") {
			return nil
		}
		var out []string
		for _, s := range vals {
			out = append(out, flag+"="+s)
		}
		return out
	}
	s := fmt.Sprint(field.Interface())
	if s == f.Default || (f.Default == "" && (s == "" || (f.Kind != kindString && s == "0"))) {
		return nil
	}
	return []string{flag + "=" + s}
}

// ParseRecorded builds fresh params of the command from recorded words
// (RecordedFlags), as its command line would: defaults, secret flags from
// the environment, Validate. It returns a pointer to the param struct.
// A word that is not one RecordedFlags writes (a secret, a write or output
// flag, --run) is refused: the words come from a file. So is a word with a
// control character (a newline, an escape): no flag value holds one, and
// an error quoting the value would lay out lines the file chose.
func (c *Command) ParseRecorded(words []string) (any, error) {
	for _, w := range words {
		if strings.ContainsFunc(w, unicode.IsControl) {
			return nil, Usagef("%s: recorded flag %q holds a control character", c.Path(), w)
		}
		name, _, ok := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		f := c.spec.flag(name)
		if !ok || !strings.HasPrefix(w, "--") || f == nil || f.index == nil || f.Secret || slices.Contains(recordedSkip, c.paramType.Field(f.index[0]).Type) {
			return nil, Usagef("%s: %q is not a recorded flag of %s", c.Path(), w, c.Path())
		}
		// A path is recorded absolute (the command's Complete makes it so):
		// a relative one names no folder it was relative to, and reading
		// it against the folder apply runs in could find another file.
		if _, v, _ := strings.Cut(w, "="); isPathKind(f.Complete) && v != "" && !filepath.IsAbs(v) {
			return nil, Usagef("%s: the recorded flag --%s=%s is a relative path, and the plan does not say which folder it was relative to: plan again naming the file by its absolute path (%s --%s /path/to/%s --plan-out FILE)",
				c.Path(), f.Name, v, c.Path(), f.Name, v)
		}
	}
	p, _, err := c.parse(words)
	if err != nil {
		return nil, err
	}
	return p, nil
}
