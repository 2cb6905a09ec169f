package show

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// EtcdKVParam is `show etcd-kv`.
type EtcdKVParam struct {
	framework.ParamBase `use:"show etcd-kv" desc:"raw keys and values under the root path (keys relative to it, e.g. meta/session/ or config/); --decode decodes values of known kinds" example:"show etcd-kv --prefix meta/datacoord-meta/channel-cp/ --decode"`
	Key                 string `name:"key" default:"" placeholder:"KEY" desc:"one key, relative to the root path (meta/... for Milvus meta)"`
	Prefix              string `name:"prefix" default:"" placeholder:"PREFIX" desc:"every key under this prefix, relative to the root path (/ for the whole root)"`
	Limit               string `name:"limit" default:"" placeholder:"N" desc:"print at most N keys, 0 for all (when omitted: 100 in a table, all in json and line)"`
	Decode              bool   `name:"decode" desc:"decode each value with heron's model of its key kind (\"unknown kind\" otherwise)"`
	Secrets
	Wide
	framework.Output
}

// tableKVLimit is the --limit of the table format when none is given.
const tableKVLimit = 100

// Validate asks for exactly one of --key and --prefix.
func (p *EtcdKVParam) Validate() error {
	switch {
	case p.Key == "" && p.Prefix == "":
		return framework.Usagef("show etcd-kv: give --key KEY or --prefix PREFIX (relative to the root path; --prefix / for all of it)")
	case p.Key != "" && p.Prefix != "":
		return framework.Usagef("show etcd-kv: give --key or --prefix, not both")
	}
	_, _, err := parseLimit(p.Limit)
	return err
}

// KVRow is one key and its value.
type KVRow struct {
	// Key is relative to the root path.
	Key         string `json:"key"`
	Size        int    `json:"size"`
	ModRevision int64  `json:"mod_revision"`
	Lease       int64  `json:"lease,omitempty"`
	// ValueBase64 and ValueText are filled when the row is rendered as
	// JSON, so that a long listing holds each value once.
	ValueBase64 string `json:"value_base64"`
	// ValueText is the value itself when it is printable text.
	ValueText *string `json:"value_text,omitempty"`
	// Kind is the key kind with --decode ("unknown" when heron does not know it).
	Kind    string `json:"kind,omitempty"`
	Decoded any    `json:"decoded,omitempty"`
	Error   string `json:"error,omitempty"`

	value []byte
}

// EtcdKVResult is the output of `show etcd-kv`.
type EtcdKVResult struct {
	wide     bool
	Revision int64 `json:"revision"`
	// Root is what keys are relative to; Prefix (or Key) what was read, absolute.
	Root   string  `json:"root"`
	Prefix string  `json:"prefix,omitempty"`
	Key    string  `json:"key,omitempty"`
	Keys   []KVRow `json:"keys"`
	// More counts the keys under the prefix that --limit left out.
	More      int64 `json:"more"`
	Undecoded int   `json:"undecoded"`
	decode    bool
}

const unknownKind = "unknown"

// MarshalJSON renders the value as base64 and, when printable, as text.
func (r KVRow) MarshalJSON() ([]byte, error) {
	type plain KVRow
	p := plain(r)
	p.ValueBase64 = base64.StdEncoding.EncodeToString(r.value)
	if printable(r.value) {
		s := string(r.value)
		p.ValueText = &s
	}
	return json.Marshal(p)
}

// errLimit stops a scan once --limit keys are read.
var errLimit = errors.New("limit reached")

func runEtcdKV(ctx context.Context, inst *instance.Instance, p *EtcdKVParam, out framework.IO) (framework.Result, error) {
	limit, given, err := parseLimit(p.Limit)
	if err != nil {
		return nil, err
	}
	if !given && (p.Format == framework.FormatTable || p.Format == "") {
		limit = tableKVLimit
	}
	res, err := EtcdKV(ctx, inst, p.Key, p.Prefix, limit, p.Decode, p.ShowSecrets, out.Stderr)
	if err != nil {
		return nil, err
	}
	res.wide = p.Wide.Wide
	return res, nil
}

// EtcdKV reads one key, or the keys under a prefix (both relative to the root
// path), at one revision: at most limit keys (0: all), counting the rest.
// Unless showSecrets, a config/ value whose key names a secret and the
// secrets inside decoded values are masked (models.MaskView).
func EtcdKV(ctx context.Context, inst *instance.Instance, key, prefix string, limit int, decode, showSecrets bool, warn io.Writer) (*EtcdKVResult, error) {
	if warn == nil {
		warn = io.Discard
	}
	rev, err := inst.Revision(ctx)
	if err != nil {
		return nil, err
	}
	root := inst.Layout.Root("")
	res := &EtcdKVResult{Revision: rev, Root: root, Keys: []KVRow{}, decode: decode}
	var doc decodedDoc
	if decode {
		if doc.checkpointWAL, _, err = consumeWALs(ctx, inst, rev, io.Discard); err != nil {
			return nil, err
		}
	}
	add := func(kv instance.KV) {
		row := KVRow{Key: strings.TrimPrefix(kv.Key, root), Size: len(kv.Value), ModRevision: kv.ModRevision, Lease: kv.Lease, value: kv.Value}
		if !showSecrets && models.HoldsSecret(inst.Layout, kv.Key, kv.Value) {
			row.value = []byte(models.MaskedSecret)
		}
		if decode {
			kind, view, err := models.DecodeAny(inst.Layout, kv.Key, kv.Value, kv.Lease)
			switch {
			case kind == "":
				row.Kind = unknownKind
			case err != nil:
				row.Kind = kind
				row.Error = fmt.Sprintf("does not decode as %s: %v", kind, err)
				res.Undecoded++
				fmt.Fprintf(warn, "warning: %s: value %s\n", escape(row.Key), row.Error)
			default:
				row.Kind, row.Decoded = kind, doc.value(models.MaskView(view, showSecrets))
			}
		}
		res.Keys = append(res.Keys, row)
	}

	if key != "" {
		res.Key = inst.Layout.Root(strings.TrimPrefix(key, "/"))
		kv, ok, err := inst.Get(ctx, res.Key, rev)
		if err != nil {
			return nil, err
		}
		if ok {
			add(kv)
		} else {
			fmt.Fprintf(warn, "note: no key %s\n", escape(res.Key))
		}
		return res, nil
	}
	abs := inst.Layout.Root(strings.TrimPrefix(prefix, "/"))
	res.Prefix = abs
	_, err = inst.Scan(ctx, abs, rev, func(page []instance.KV) error {
		for _, kv := range page {
			if limit > 0 && len(res.Keys) >= limit {
				return errLimit
			}
			add(kv)
		}
		return nil
	})
	switch {
	case errors.Is(err, errLimit):
		total, err := inst.Count(ctx, abs, rev)
		if err != nil {
			return nil, err
		}
		res.More = total - int64(len(res.Keys))
	case err != nil:
		return nil, err
	}
	return res, nil
}

// printable reports a value that reads as text: valid UTF-8 of printable
// characters, tabs and line breaks.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// escape renders bytes for a line word or a message: framework.EscapeText.
func escape(s string) string { return framework.EscapeText(s) }

// tableValueWidth is where the table format elides a value.
const tableValueWidth = 80

// tableValue is a value in a table cell (the table escapes it), elided past
// tableValueWidth escaped characters, at a whole character or escape.
func tableValue(row KVRow) string {
	v, cut := cutEscaped(string(row.value), tableValueWidth)
	if cut {
		v += fmt.Sprintf("...(%d bytes)", row.Size)
	}
	return v
}

// cutEscaped returns the longest start of s whose escaped text fits limit
// bytes, cut at a whole character; cut reports whether s was shortened.
func cutEscaped(s string, limit int) (prefix string, cut bool) {
	width := 0
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		w := len(framework.EscapeText(s[i : i+n]))
		if width+w > limit {
			return s[:i], true
		}
		width += w
		i += n
	}
	return s, false
}

func decodedText(row KVRow) string {
	switch {
	case row.Kind == unknownKind:
		return "unknown kind"
	case row.Error != "":
		return "error: " + row.Error
	}
	b, err := json.Marshal(row.Decoded)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// JSON implements framework.Result.
func (r *EtcdKVResult) JSON() any { return r }

// Table implements framework.Result. A key is never cut (it is what tells
// rows apart); the raw value is, and under --decode it gives way to the
// decoded one.
func (r *EtcdKVResult) Table(w io.Writer) error {
	header := []string{"KEY", "SIZE", "VALUE"}
	if r.decode {
		header = []string{"KEY", "SIZE", "KIND", "DECODED"}
	}
	t := newTable(w, header...).fit(r.wide, len(header)-1)
	for _, row := range r.Keys {
		cells := []string{row.Key, itoa(row.Size), tableValue(row)}
		if r.decode {
			cells = []string{row.Key, itoa(row.Size), row.Kind, decodedText(row)}
		}
		t.row(cells...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	what := "under " + escape(r.Prefix)
	if r.Key != "" {
		what = "at " + escape(r.Key)
	}
	if _, err := fmt.Fprintf(w, "%d key(s) %s, revision %d (keys relative to %s)\n(values past %d characters elided: --format json or line for all)\n",
		len(r.Keys), what, r.Revision, r.Root, tableValueWidth); err != nil {
		return err
	}
	if r.Undecoded > 0 {
		if _, err := fmt.Fprintf(w, "%d value(s) do not decode as their key kind\n", r.Undecoded); err != nil {
			return err
		}
	}
	if r.More > 0 {
		_, err := fmt.Fprintf(w, "%d more, --limit 0 for all\n", r.More)
		return err
	}
	return nil
}

// Lines implements framework.Result.
func (r *EtcdKVResult) Lines(w io.Writer) error {
	for _, row := range r.Keys {
		kv := []string{"key", escape(row.Key), "size", itoa(row.Size), "mod_revision", i64(row.ModRevision), "value", escape(string(row.value))}
		if r.decode {
			kv = append(kv, "key_kind", row.Kind, "decoded", decodedText(row))
		}
		if err := line(w, "etcd-kv", append(kv, "error", row.Error)...); err != nil {
			return err
		}
	}
	return line(w, "etcd-kv-summary", "keys", itoa(len(r.Keys)), "more", i64(r.More), "revision", i64(r.Revision))
}
