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
// path and its one-line help:
//
//	framework.ParamBase `use:"show checkpoint" desc:"one line help"`
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
	index    []int // field path in the param struct; nil for framework flags (--run)
}

// repeatable reports whether the flag may be given more than once.
func (f *flagSpec) repeatable() bool { return f.Kind == kindStrings || f.Kind == kindInt64s }

// commandSpec is what the tags of a param struct declare.
type commandSpec struct {
	Path  []string
	Desc  string
	Flags []*flagSpec
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
			Name:    name,
			Default: f.Tag.Get("default"),
			Desc:    f.Tag.Get("desc"),
			Env:     f.Tag.Get("env"),
			index:   idx,
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
		if spec.flag(name) != nil {
			return fmt.Errorf("flag --%s declared twice", name)
		}
		spec.Flags = append(spec.Flags, fs)
	}
	return nil
}

func (spec *commandSpec) flag(name string) *flagSpec {
	for _, f := range spec.Flags {
		if f.Name == name {
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
		if !f.allowed(v) {
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

func (f *flagSpec) allowed(v string) bool {
	return len(f.Enum) == 0 || slices.Contains(f.Enum, v)
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

// bind registers the flag on fs, storing into the field of the param struct v.
func (f *flagSpec) bind(fs *pflag.FlagSet, v reflect.Value) {
	field := v.FieldByIndex(f.index)
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
	case kindStrings:
		fs.StringSliceVar(ptr((*[]string)(nil)).(*[]string), f.Name, splitList(f.Default), f.Desc)
	case kindInt64s:
		def, _ := parseInt64s(f.Default)
		fs.Int64SliceVar(ptr((*[]int64)(nil)).(*[]int64), f.Name, def, f.Desc)
	}
}

// after applies env, required and enum to a parsed flag.
func (f *flagSpec) after(fs *pflag.FlagSet, cmd string) error {
	fl := fs.Lookup(f.Name)
	if !fl.Changed && f.Env != "" {
		if ev, ok := os.LookupEnv(f.Env); ok && ev != "" {
			if err := fl.Value.Set(ev); err != nil {
				if f.Secret {
					return Usagef("%s: bad value in $%s for --%s", cmd, f.Env, f.Name)
				}
				return Usagef("%s: bad value %q in $%s for --%s: %v", cmd, ev, f.Env, f.Name, err)
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
	if len(f.Enum) == 0 {
		return nil
	}
	var words []string
	switch f.Kind {
	case kindStrings:
		words, _ = fs.GetStringSlice(f.Name)
	case kindInt64s:
		vs, _ := fs.GetInt64Slice(f.Name)
		for _, v := range vs {
			words = append(words, strconv.FormatInt(v, 10))
		}
	default:
		words = []string{fl.Value.String()}
	}
	for _, w := range words {
		if !f.allowed(w) {
			if f.Secret {
				return Usagef("%s: bad value for --%s: must be one of %s", cmd, f.Name, strings.Join(f.Enum, ", "))
			}
			return Usagef("%s: bad value %q for --%s: must be one of %s", cmd, w, f.Name, strings.Join(f.Enum, ", "))
		}
	}
	return nil
}
