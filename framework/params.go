package framework

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/pflag"
)

// ParamBase is embedded in every param struct; its tags declare the command
// path, its one-line help, an example line shown by help and aliases
// (birdwatcher's names: each replaces the last word of the path, or is a
// whole path when it holds a space):
//
//	framework.ParamBase `use:"show checkpoint" desc:"one line help" example:"show checkpoint --format json" alias:"checkpoints,cp"`
//
// A flag field's tags: name, desc, default, enum (comma-separated; matched
// case-insensitively, stored as spelled here), required, secret, env,
// placeholder (the word help shows for the value: --file BACKUP) and complete
// (the kind of value the connected state completes: pchannel, collection; by
// default the flag's name, or a path kind for the placeholders FILE, DIR and
// BACKUP, which the shell completes from the file system; "-" for none).
type ParamBase struct{}

var paramBaseType = reflect.TypeOf(ParamBase{})

type flagKind int

const (
	kindString flagKind = iota
	kindBool
	kindInt
	kindInt64
	kindStrings
	kindInt64s
)

func (k flagKind) String() string {
	return [...]string{"string", "bool", "int", "int64", "strings", "int64s"}[k]
}

// flagSpec is one flag, read from a struct field's tags.
type flagSpec struct {
	Name     string
	Kind     flagKind
	Default  string
	Desc     string
	Enum     []string
	Required bool
	Secret   bool
	Env      string
	// Placeholder names the value in help (--file BACKUP); "" is the type word.
	Placeholder string
	// Complete is the kind of value the state completes for the flag.
	Complete string
	// Aliases are other spellings the flag answers to (birdwatcher's
	// --set_to for --set-to), so that an operator's habits carry; help
	// shows the name only.
	Aliases []string
	index   []int // field path in the param struct; nil for framework flags (--run)
}

// repeatable reports whether the flag may be given more than once.
func (f *flagSpec) repeatable() bool { return f.Kind == kindStrings || f.Kind == kindInt64s }

// commandSpec is what the tags of a param struct declare.
type commandSpec struct {
	Path    []string
	Desc    string
	Example string
	// Aliases are other paths of the command (show segments).
	Aliases []string
	Flags   []*flagSpec
}

// parseSpec reads the tags of the param struct type t. Mistakes in tags are
// programming errors: it returns an error the constructors panic with.
func parseSpec(t reflect.Type) (*commandSpec, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("param type %s is not a struct", t)
	}
	spec := &commandSpec{}
	found := false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == paramBaseType {
			found = true
			spec.Path = strings.Fields(f.Tag.Get("use"))
			spec.Desc = f.Tag.Get("desc")
			spec.Example = f.Tag.Get("example")
			for _, a := range splitList(f.Tag.Get("alias")) {
				spec.Aliases = append(spec.Aliases, aliasPath(spec.Path, a))
			}
		}
	}
	if !found || len(spec.Path) == 0 {
		return nil, fmt.Errorf("param type %s: embed framework.ParamBase with a use:\"...\" tag", t)
	}
	if err := collectFlags(t, nil, spec); err != nil {
		return nil, fmt.Errorf("command %q: %w", strings.Join(spec.Path, " "), err)
	}
	return spec, nil
}

// aliasPath is the path alias names: a whole path when it holds a space,
// else path with its last word replaced.
func aliasPath(path []string, alias string) string {
	if strings.Contains(alias, " ") || len(path) == 0 {
		return strings.Join(strings.Fields(alias), " ")
	}
	return strings.Join(append(slices.Clone(path[:len(path)-1]), alias), " ")
}

func collectFlags(t reflect.Type, index []int, spec *commandSpec) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(slices.Clone(index), i)
		if f.Type == paramBaseType {
			continue
		}
		name, hasName := f.Tag.Lookup("name")
		if name == "-" {
			continue
		}
		if f.Anonymous && !hasName && f.Type.Kind() == reflect.Struct {
			if err := collectFlags(f.Type, idx, spec); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if !hasName || name == "" {
			name = lowerFirst(f.Name)
		}
		fs := &flagSpec{
			Name:        name,
			Default:     f.Tag.Get("default"),
			Desc:        f.Tag.Get("desc"),
			Env:         f.Tag.Get("env"),
			Placeholder: f.Tag.Get("placeholder"),
			Complete:    name,
			Aliases:     splitList(f.Tag.Get("alias")),
			index:       idx,
		}
		if c, ok := f.Tag.Lookup("complete"); ok {
			fs.Complete = c
		} else if k, ok := placeholderCompletion[fs.Placeholder]; ok {
			fs.Complete = k
		}
		if fs.Complete == "-" {
			fs.Complete = ""
		}
		var err error
		if fs.Required, err = boolTag(f, "required"); err != nil {
			return err
		}
		if fs.Secret, err = boolTag(f, "secret"); err != nil {
			return err
		}
		if e := f.Tag.Get("enum"); e != "" {
			for _, v := range strings.Split(e, ",") {
				fs.Enum = append(fs.Enum, strings.TrimSpace(v))
			}
		}
		switch {
		case f.Type.Kind() == reflect.String:
			fs.Kind = kindString
		case f.Type.Kind() == reflect.Bool:
			fs.Kind = kindBool
		case f.Type.Kind() == reflect.Int:
			fs.Kind = kindInt
		case f.Type.Kind() == reflect.Int64:
			fs.Kind = kindInt64
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			fs.Kind = kindStrings
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Int64:
			fs.Kind = kindInt64s
		default:
			return fmt.Errorf("field %s: unsupported flag type %s", f.Name, f.Type)
		}
		if fs.Kind == kindBool && len(fs.Enum) > 0 {
			return fmt.Errorf("flag --%s: enum on a bool", name)
		}
		if err := fs.checkDefault(); err != nil {
			return err
		}
		for _, n := range append([]string{name}, fs.Aliases...) {
			if spec.flag(n) != nil {
				return fmt.Errorf("flag --%s declared twice", n)
			}
		}
		spec.Flags = append(spec.Flags, fs)
	}
	return nil
}

// flagAliases maps each flag alias to its flag's name.
func (spec *commandSpec) flagAliases() map[string]string {
	var out map[string]string
	for _, f := range spec.Flags {
		for _, a := range f.Aliases {
			if out == nil {
				out = map[string]string{}
			}
			out[a] = f.Name
		}
	}
	return out
}

func (spec *commandSpec) flag(name string) *flagSpec {
	for _, f := range spec.Flags {
		if f.Name == name || slices.Contains(f.Aliases, name) {
			return f
		}
	}
	return nil
}

func boolTag(f reflect.StructField, key string) (bool, error) {
	v, ok := f.Tag.Lookup(key)
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("field %s: tag %s:%q is not a bool", f.Name, key, v)
	}
	return b, nil
}

func lowerFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// checkDefault parses the default tag, so that a typo fails at registration.
func (f *flagSpec) checkDefault() error {
	if f.Default == "" {
		return nil
	}
	var err error
	switch f.Kind {
	case kindBool:
		_, err = strconv.ParseBool(f.Default)
	case kindInt:
		_, err = strconv.Atoi(f.Default)
	case kindInt64:
		_, err = strconv.ParseInt(f.Default, 10, 64)
	case kindInt64s:
		_, err = parseInt64s(f.Default)
	}
	if err != nil {
		return fmt.Errorf("flag --%s: bad default %q: %v", f.Name, f.Default, err)
	}
	for _, v := range f.defaultWords() {
		if len(f.Enum) > 0 && !slices.Contains(f.Enum, v) { // spelled as the enum, as parsed values are stored
			return fmt.Errorf("flag --%s: default %q is not one of %s", f.Name, v, strings.Join(f.Enum, ", "))
		}
	}
	return nil
}

func (f *flagSpec) defaultWords() []string {
	if f.Default == "" {
		return nil
	}
	if f.repeatable() {
		return splitList(f.Default)
	}
	return []string{f.Default}
}

// canonical is the enum value v names, matched case-insensitively, as the
// enum tag spells it; any value of a flag without enum.
func (f *flagSpec) canonical(v string) (string, bool) {
	if len(f.Enum) == 0 || slices.Contains(f.Enum, v) {
		return v, true
	}
	for _, e := range f.Enum {
		if strings.EqualFold(e, v) {
			return e, true
		}
	}
	return "", false
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseInt64s(s string) ([]int64, error) {
	var out []int64
	for _, p := range splitList(s) {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// credentialCommands take credentials on their command line (birdwatcher's
// connect): no error repeats one of their words, and history never stores
// their positional arguments (a stray word may be a password).
var credentialCommands = map[string]bool{"connect": true}

// positional is the index in args of the first word that is neither a flag
// nor a flag's value, as pflag reads them.
func positional(fs *pflag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i + 1
		case !strings.HasPrefix(a, "-") || a == "-":
			return i
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			if fl := fs.Lookup(a[2:]); fl != nil && fl.NoOptDefVal == "" {
				i++
			}
		}
	}
	return len(args)
}

// flagBinding is the state of one parse: the first broken flag rule, which
// parse reports instead of pflag's message (that one repeats the value).
type flagBinding struct {
	cmd       string
	sensitive bool // the command takes credentials: no message repeats a value
	err       error
	// empty is an empty value given to a list flag. It is reported after
	// the command's own Validate, whose message may say more ("--etcd needs
	// at least one address"), and whatever Validate says: an empty list
	// must not widen a scope to everything.
	empty error
}

func (b *flagBinding) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return err
}

// bind registers the flag on fs, storing into the field of the param struct v.
func (f *flagSpec) bind(fs *pflag.FlagSet, v reflect.Value, b *flagBinding) {
	field := v.FieldByIndex(f.index)
	if f.repeatable() {
		lv := &listValue{spec: f, field: field, b: b}
		switch f.Kind {
		case kindStrings:
			field.Set(reflect.ValueOf(splitList(f.Default)).Convert(field.Type()))
		case kindInt64s:
			def, _ := parseInt64s(f.Default)
			field.Set(reflect.ValueOf(def).Convert(field.Type()))
		}
		fs.Var(lv, f.Name, f.Desc)
		return
	}
	ptr := func(sample any) any {
		return field.Addr().Convert(reflect.TypeOf(sample)).Interface()
	}
	switch f.Kind {
	case kindString:
		fs.StringVar(ptr((*string)(nil)).(*string), f.Name, f.Default, f.Desc)
	case kindBool:
		def, _ := strconv.ParseBool(f.Default)
		fs.BoolVar(ptr((*bool)(nil)).(*bool), f.Name, def, f.Desc)
	case kindInt:
		def, _ := strconv.Atoi(f.Default)
		fs.IntVar(ptr((*int)(nil)).(*int), f.Name, def, f.Desc)
	case kindInt64:
		def, _ := strconv.ParseInt(f.Default, 10, 64)
		fs.Int64Var(ptr((*int64)(nil)).(*int64), f.Name, def, f.Desc)
	}
	fl := fs.Lookup(f.Name)
	fl.Value = &scalarValue{Value: fl.Value, spec: f, b: b}
}

// quoted is " \"v\"" for a message, or "" when the value must not be repeated.
func (f *flagSpec) quoted(b *flagBinding, v string) string {
	if f.Secret || b.sensitive {
		return ""
	}
	return " " + QuoteValue(v)
}

// badValue is the error for a value v that f does not take; want says
// what it takes.
func (f *flagSpec) badValue(b *flagBinding, v, want string) error {
	return b.fail(Usagef("%s: bad value%s for --%s: %s", b.cmd, f.quoted(b, v), f.Name, want))
}

// scalarValue applies the framework's rules to a flag that holds one value:
// enum values are matched case-insensitively and stored canonical, and a
// second occurrence must say the same as the first.
type scalarValue struct {
	pflag.Value
	spec  *flagSpec
	b     *flagBinding
	given bool
}

func (v *scalarValue) Set(s string) error {
	f := v.spec
	if s == Redacted && (f.Secret || v.b.sensitive || SecretFlagName(f.Name)) {
		hint := ""
		if f.Env != "" {
			hint = ", or set $" + f.Env
		}
		return v.b.fail(Usagef("%s: --%s is %s, the mask history keeps instead of the value (it never stores one): type the value again%s", v.b.cmd, f.Name, Redacted, hint))
	}
	c, ok := f.canonical(s)
	if !ok {
		return f.badValue(v.b, s, "must be one of "+strings.Join(f.Enum, ", "))
	}
	old := v.Value.String()
	if err := v.Value.Set(c); err != nil {
		return f.badValue(v.b, s, "want "+typeNoun(f.Kind))
	}
	if v.given && v.Value.String() != old {
		_ = v.Value.Set(old)
		if f.Secret || v.b.sensitive {
			return v.b.fail(Usagef("%s: --%s given twice with different values", v.b.cmd, f.Name))
		}
		return v.b.fail(Usagef("%s: --%s given twice with different values (%q, then %q)", v.b.cmd, f.Name, old, c))
	}
	v.given = true
	return nil
}

func typeNoun(k flagKind) string {
	switch k {
	case kindBool:
		return "true or false"
	case kindInt, kindInt64, kindInt64s:
		return "an integer"
	}
	return "a value"
}

// listValue is a repeatable flag: each occurrence adds its comma-separated
// elements (the first replaces the default). An empty value or element is an
// error: `--pchannel ”` must not widen a scope to everything.
type listValue struct {
	spec    *flagSpec
	field   reflect.Value
	b       *flagBinding
	changed bool
}

func (v *listValue) Type() string {
	if v.spec.Kind == kindInt64s {
		return "int64Slice"
	}
	return "stringSlice"
}

func (v *listValue) String() string {
	var words []string
	for i := 0; i < v.field.Len(); i++ {
		words = append(words, fmt.Sprint(v.field.Index(i).Interface()))
	}
	return "[" + strings.Join(words, ",") + "]"
}

func (v *listValue) Set(s string) error {
	f := v.spec
	if strings.TrimSpace(s) == "" {
		if v.b.empty == nil {
			v.b.empty = Usagef("%s: empty value for --%s (name one, or leave the flag out)", v.b.cmd, f.Name)
		}
		if !v.changed {
			v.field.Set(reflect.MakeSlice(v.field.Type(), 0, 0))
			v.changed = true
		}
		return nil
	}
	parts := strings.Split(s, ",")
	var strs []string
	var ints []int64
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return v.b.fail(Usagef("%s: empty element in --%s%s", v.b.cmd, f.Name, f.quoted(v.b, s)))
		}
		c, ok := f.canonical(p)
		if !ok {
			return f.badValue(v.b, p, "must be one of "+strings.Join(f.Enum, ", "))
		}
		if f.Kind == kindInt64s {
			n, err := strconv.ParseInt(c, 10, 64)
			if err != nil {
				return f.badValue(v.b, p, "want "+typeNoun(f.Kind))
			}
			ints = append(ints, n)
			continue
		}
		strs = append(strs, c)
	}
	add := reflect.ValueOf(strs)
	if f.Kind == kindInt64s {
		add = reflect.ValueOf(ints)
	}
	add = add.Convert(v.field.Type())
	if !v.changed {
		v.field.Set(reflect.MakeSlice(v.field.Type(), 0, add.Len()))
		v.changed = true
	}
	v.field.Set(reflect.AppendSlice(v.field, add))
	return nil
}

// after applies env and required to a parsed flag.
func (f *flagSpec) after(fs *pflag.FlagSet, cmd string) error {
	fl := fs.Lookup(f.Name)
	if !fl.Changed && f.Env != "" {
		if ev, ok := os.LookupEnv(f.Env); ok && ev != "" {
			if err := fl.Value.Set(ev); err != nil {
				if f.Secret {
					return Usagef("%s: bad value in $%s for --%s", cmd, f.Env, f.Name)
				}
				return Usagef("%s: bad value %q in $%s for --%s", cmd, ev, f.Env, f.Name)
			}
			fl.Changed = true
		}
	}
	if f.Required && !fl.Changed {
		if f.Env != "" {
			return Usagef("%s: flag --%s is required (or set $%s)", cmd, f.Name, f.Env)
		}
		return Usagef("%s: flag --%s is required", cmd, f.Name)
	}
	return nil
}
