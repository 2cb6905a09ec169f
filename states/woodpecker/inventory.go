// Package woodpecker reads woodpecker's own metadata of a Milvus instance:
// which prefix woodpecker uses, and which logs exist under every prefix a
// release may have written, with each log's keys. It reads only, through
// states/instance, at one revision. Key layouts and value formats live in
// models (models/woodpecker.go).
//
// API:
//
//	inv, err := woodpecker.Find(ctx, inst, rev, woodpecker.Options{MetaPrefix: flag})
//
// returns, at revision rev:
//   - inv.Effective: the prefix a woodpecker client would use, and why:
//     "legacy" (a legacy key exists under the top-level woodpecker/: it wins,
//     as in woodpecker's detectEffectiveMetadataPrefix), "configured"
//     ({root}/{woodpecker.meta.prefix} with the prefix from --wp-meta-prefix
//     or an etcd config override, named in From) or "default"
//     ({root}/woodpecker).
//   - inv.Prefixes: every prefix looked at (the effective one first, then
//     legacy woodpecker/, the configured and default ones, {root}/wp, which
//     no release writes, and "found" prefixes: {root}/X or top-level X where
//     X/logs/{pchannel} holds a LogMeta of one of the instance's pchannels, a
//     woodpecker.meta.prefix set only in milvus.yaml; found by listing path
//     segments keys-only and reading only those LogMeta keys), whether it
//     could be read, its key count and its per-log keys that name a log id
//     no log has (Orphans; never attributed to a log).
//   - inv.Logs: every log found under those prefixes, sorted by prefix and
//     name: its log id (-1 when only parked copies or stray keys exist),
//     segment count and range, truncation point (-1, -1 = none), parked
//     copies under logs-deleted/, the count, bytes and greatest mod revision
//     of its per-log keys (models.WPKeyKind.PerLog: LogMeta, lock, segments,
//     readers/cleaning/marking by id, parked copies), and PChannel: the log
//     is named after one of the instance's pchannels. The shared legacy
//     prefix holds other instances' logs: only PChannel logs are the
//     instance's.
//
// Options.OnKey streams every per-log key (with its value, valid during the
// call) as it is read, so a caller can back keys up and delete them without
// holding them: memory is bounded by the number of logs, never by keys.
// Which log a per-log key belongs to is models.ParseWPKey's reading of it
// (parked copies, P/logs-deleted/{log}-{ts}, included).
package woodpecker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// Reasons the effective prefix was chosen.
const (
	ReasonLegacy     = "legacy"
	ReasonConfigured = "configured"
	ReasonDefault    = "default"
)

// Roles of a looked-at prefix.
const (
	RoleLegacy     = "legacy"     // top-level woodpecker/, shared by every instance
	RoleConfigured = "configured" // {root}/{woodpecker.meta.prefix} from a flag or etcd
	RoleDefault    = "default"    // {root}/woodpecker
	RoleWP         = "wp"         // {root}/wp: no release writes it
	// RoleFound: a prefix heron was not told of, found by a LogMeta of one
	// of the instance's pchannels at {root}/X/logs/{pchannel} or
	// X/logs/{pchannel}: a woodpecker.meta.prefix set only in milvus.yaml.
	RoleFound = "found"
)

// maxSegments bounds the keys-only reads (one per path segment) under
// {root}/ and at the top of the keyspace when looking for prefixes heron was
// not told of.
const maxSegments = 1000

// fromDefault is Effective.From when nothing set woodpecker.meta.prefix.
const fromDefault = "default"

// Options narrow and feed Find.
type Options struct {
	// MetaPrefix is woodpecker.meta.prefix as --wp-meta-prefix gives it;
	// "": an etcd config override, else the default.
	MetaPrefix string
	// PChannels are the instance's pchannels; nil: Find reads them
	// (InstancePChannels).
	PChannels map[string]bool
	// OnKey, when set, is called with every per-log key attributed to a log.
	OnKey func(Key) error
}

// Effective is the prefix a woodpecker client would use, and why.
type Effective struct {
	// Prefix is absolute, without a trailing slash.
	Prefix string `json:"prefix"`
	Reason string `json:"reason"`
	// LegacyKey is the legacy key (or a key under a legacy prefix) that
	// keeps woodpecker on the legacy prefix.
	LegacyKey string `json:"legacy_key,omitempty"`
	// Configured is the prefix woodpecker would use without legacy keys.
	Configured string `json:"configured"`
	// MetaPrefix is the woodpecker.meta.prefix value behind Configured, and
	// From where it came from: "--wp-meta-prefix", the absolute etcd config
	// key, or "default".
	MetaPrefix string `json:"meta_prefix"`
	From       string `json:"from"`
	// Note says what heron could not know (a legacy prefix it may not read,
	// a milvus.yaml setting it cannot see).
	Note string `json:"note,omitempty"`
}

// Describe is the effective prefix in one phrase.
func (e Effective) Describe() string {
	switch e.Reason {
	case ReasonLegacy:
		return fmt.Sprintf("%s/ (legacy: %s exists, so woodpecker keeps it over %s/)", e.Prefix, e.LegacyKey, e.Configured)
	case ReasonConfigured:
		return fmt.Sprintf("%s/ (woodpecker.meta.prefix %q from %s)", e.Prefix, e.MetaPrefix, e.From)
	}
	return fmt.Sprintf("%s/ (default woodpecker.meta.prefix %q)", e.Prefix, e.MetaPrefix)
}

// Prefix is one prefix Find looked at.
type Prefix struct {
	Prefix    string   `json:"prefix"`
	Roles     []string `json:"roles"`
	Effective bool     `json:"effective"`
	// Readable is false when etcd refused the read (a user granted only the
	// root path cannot read the legacy prefix); Error says why.
	Readable bool   `json:"readable"`
	Error    string `json:"error,omitempty"`
	Keys     int64  `json:"keys"`
	Logs     int    `json:"logs"`
	// Orphans are readers/, cleaning/ and marking/ keys whose log id names
	// no log (current or parked) under this prefix.
	Orphans int64 `json:"orphans"`
}

// Log is one log under one prefix.
type Log struct {
	Prefix string `json:"prefix"`
	Name   string `json:"name"`
	// ID is the LogMeta's log id; -1 without a LogMeta.
	ID      int64 `json:"id"`
	HasMeta bool  `json:"has_meta"`
	// Segments counts P/logs/{log}/segments/{seg} keys; FirstSegment and
	// LastSegment are their range (-1 when none), SegmentBytes the sum of
	// their sizes.
	Segments     int64 `json:"segments"`
	FirstSegment int64 `json:"first_segment"`
	LastSegment  int64 `json:"last_segment"`
	SegmentBytes int64 `json:"segment_bytes"`
	// TruncatedSegment and TruncatedEntry are the LogMeta's truncation
	// point; -1, -1: none (or no LogMeta).
	TruncatedSegment int64 `json:"truncated_segment"`
	TruncatedEntry   int64 `json:"truncated_entry"`
	// Locked: P/logs/{log}/lock exists.
	Locked bool `json:"locked"`
	// ParkedIDs are the log ids of copies parked under logs-deleted/.
	ParkedIDs []int64 `json:"parked_ids,omitempty"`
	// Keys, ValueBytes and MaxModRevision cover every per-log key.
	Keys           int64 `json:"keys"`
	ValueBytes     int64 `json:"value_bytes"`
	MaxModRevision int64 `json:"max_mod_revision"`
	// Undecodable counts LogMeta and segment values that do not decode.
	Undecodable int64 `json:"undecodable"`
	// PChannel: named after one of the instance's pchannels.
	PChannel  bool `json:"pchannel"`
	Effective bool `json:"effective"`
}

// IDs are the log's current and parked ids: its by-id keys are under them.
func (l Log) IDs() []int64 {
	var out []int64
	if l.ID >= 0 {
		out = append(out, l.ID)
	}
	return append(out, l.ParkedIDs...)
}

// Describe is the log in one phrase: "P/logs/{name} (id 3, 2 segments 0-1, truncated at 1:4)".
func (l Log) Describe() string {
	var parts []string
	if l.HasMeta {
		parts = append(parts, fmt.Sprintf("id %d", l.ID))
	} else {
		parts = append(parts, "no LogMeta")
	}
	if l.Segments > 0 {
		parts = append(parts, fmt.Sprintf("%d segments %d-%d", l.Segments, l.FirstSegment, l.LastSegment))
	} else {
		parts = append(parts, "no segments")
	}
	if l.TruncatedSegment >= 0 || l.TruncatedEntry >= 0 {
		parts = append(parts, fmt.Sprintf("truncated at %d:%d", l.TruncatedSegment, l.TruncatedEntry))
	}
	if len(l.ParkedIDs) > 0 {
		parts = append(parts, fmt.Sprintf("%d parked copies", len(l.ParkedIDs)))
	}
	parts = append(parts, fmt.Sprintf("%d keys", l.Keys))
	return fmt.Sprintf("%s/logs/%s (%s)", l.Prefix, l.Name, strings.Join(parts, ", "))
}

// Key is one per-log key, streamed to Options.OnKey.
type Key struct {
	Prefix      string
	Log         string
	Kind        models.WPKeyKind
	Key         string
	Value       []byte
	ModRevision int64
}

// Inventory is what Find read.
type Inventory struct {
	Revision  int64     `json:"revision"`
	Effective Effective `json:"effective"`
	Prefixes  []Prefix  `json:"prefixes"`
	Logs      []Log     `json:"logs"`
}

// InstanceLogs are the logs named after the instance's pchannels that
// inScope accepts (nil: all), under every prefix.
func (inv *Inventory) InstanceLogs(inScope func(pchannel string) bool) []Log {
	var out []Log
	for _, l := range inv.Logs {
		if l.PChannel && (inScope == nil || inScope(l.Name)) {
			out = append(out, l)
		}
	}
	return out
}

// Find reads woodpecker's metadata of the instance at revision rev (0: the
// current one).
func Find(ctx context.Context, inst *instance.Instance, rev int64, opts Options) (*Inventory, error) {
	if rev == 0 {
		r, err := inst.Revision(ctx)
		if err != nil {
			return nil, err
		}
		rev = r
	}
	pchannels := opts.PChannels
	if pchannels == nil {
		pc, err := InstancePChannels(ctx, inst, rev)
		if err != nil {
			return nil, err
		}
		pchannels = pc
	}
	eff, legacyErr, err := effective(ctx, inst, rev, opts.MetaPrefix)
	if err != nil {
		return nil, err
	}
	inv := &Inventory{Revision: rev, Effective: eff}
	prefixes := lookedAt(inst.Layout, eff)
	found, err := foundPrefixes(ctx, inst, rev, prefixes, pchannels, &inv.Effective)
	if err != nil {
		return nil, err
	}
	for _, p := range append(prefixes, found...) {
		p.Effective = p.Prefix == eff.Prefix
		if p.Prefix == models.WoodpeckerLegacyRoot && legacyErr != nil {
			p.Readable, p.Error = false, legacyErr.Error()
			inv.Prefixes = append(inv.Prefixes, p)
			continue
		}
		logs, err := readPrefix(ctx, inst, rev, &p, pchannels, opts.OnKey)
		if instance.IsPermissionDenied(err) {
			p.Readable, p.Error = false, err.Error()
			inv.Prefixes = append(inv.Prefixes, p)
			continue
		}
		if err != nil {
			return nil, err
		}
		inv.Prefixes = append(inv.Prefixes, p)
		inv.Logs = append(inv.Logs, logs...)
	}
	return inv, nil
}

// effective decides the prefix as woodpecker's detectEffectiveMetadataPrefix
// does (meta/metadata_etcd.go @v0.1.35). legacyErr is a refused read of the
// legacy prefix: woodpecker then uses the configured prefix, and so does
// heron, with a note.
func effective(ctx context.Context, inst *instance.Instance, rev int64, flag string) (Effective, error, error) {
	l := inst.Layout
	e := Effective{MetaPrefix: models.WoodpeckerDefaultMetaPrefix, From: fromDefault, Reason: ReasonDefault}
	switch {
	case flag != "":
		e.MetaPrefix, e.From, e.Reason = flag, "--wp-meta-prefix", ReasonConfigured
	default:
		key, value, err := configOverride(ctx, inst, rev)
		if err != nil {
			return e, nil, err
		}
		if key != "" {
			e.MetaPrefix, e.From, e.Reason = value, key, ReasonConfigured
		} else {
			e.Note = "woodpecker.meta.prefix from milvus.yaml is not visible to heron: pass --wp-meta-prefix if it is not the default"
		}
	}
	e.Configured = l.WoodpeckerConfiguredPrefix(e.MetaPrefix)
	e.Prefix = e.Configured
	legacyKey, err := legacyKey(ctx, inst, rev)
	if instance.IsPermissionDenied(err) {
		e.Note = joinNote(e.Note, "the legacy prefix "+models.WoodpeckerLegacyRoot+"/ is not readable by this user, so heron assumes it holds nothing (woodpecker decides the same way on a failed read)")
		return e, err, nil
	}
	if err != nil {
		return e, nil, err
	}
	if legacyKey != "" {
		e.Prefix, e.Reason, e.LegacyKey = models.WoodpeckerLegacyRoot, ReasonLegacy, legacyKey
	}
	return e, nil, nil
}

// configOverride finds the woodpecker.meta.prefix override in Milvus's etcd
// config source: the absolute key and its value, "" when none.
func configOverride(ctx context.Context, inst *instance.Instance, rev int64) (string, string, error) {
	l := inst.Layout
	var keys []string
	values := map[string]string{}
	_, err := inst.Scan(ctx, l.Root(models.ConfigPrefix), rev, func(page []instance.KV) error {
		for _, kv := range page {
			rel := strings.TrimPrefix(kv.Key, l.RootPath+"/")
			if models.IsWoodpeckerMetaPrefixConfigKey(rel) {
				keys = append(keys, rel)
				values[rel] = string(kv.Value)
			}
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	best := models.EffectiveWoodpeckerMetaPrefixKey(keys)
	if best == "" {
		return "", "", nil
	}
	return l.Root(best), values[best], nil
}

// legacyKey is the first legacy key that keeps woodpecker on the legacy
// prefix, "" when none (hasLegacyMetadata).
func legacyKey(ctx context.Context, inst *instance.Instance, rev int64) (string, error) {
	keys := models.WoodpeckerLegacyKeys()
	kvs, err := inst.GetMany(ctx, keys, rev)
	if err != nil {
		return "", err
	}
	for i, kv := range kvs {
		if kv.Key != "" {
			return keys[i], nil
		}
	}
	for _, prefix := range models.WoodpeckerLegacyPrefixes() {
		n, err := inst.Count(ctx, prefix, rev)
		if err != nil {
			return "", err
		}
		if n > 0 {
			return prefix + "...", nil
		}
	}
	return "", nil
}

// foundPrefixes looks for woodpecker prefixes heron was not told of (a
// woodpecker.meta.prefix set only in milvus.yaml, which heron cannot see):
// {root}/X and top-level X (other than those in known) where X/logs/{p}
// holds a LogMeta for one of the instance's pchannels p. It lists the path
// segments keys-only, one request each (at most maxSegments requests per
// level), and reads only the LogMeta keys it names, in transactions of 64;
// a note in eff says what it found, or that the listing stopped short.
func foundPrefixes(ctx context.Context, inst *instance.Instance, rev int64, known []Prefix, pchannels map[string]bool, eff *Effective) ([]Prefix, error) {
	if len(pchannels) == 0 {
		return nil, nil
	}
	root := inst.Layout.RootPath
	var cands []string
	complete := true
	// The instance's own subtree at each level (its meta root, its root
	// path) is not listed, only named: a listing that read past it would
	// cost etcd a count of every key of the instance.
	metaSeg, _, _ := strings.Cut(inst.Layout.MetaPath, "/")
	rootSeg, _, _ := strings.Cut(root, "/")
	for _, l := range []struct{ level, own string }{{root + "/", metaSeg}, {"", rootSeg}} {
		level := l.level
		segs, done, err := inst.Segments(ctx, level, rev, maxSegments, l.own)
		if instance.IsPermissionDenied(err) {
			// A user granted only the root path cannot list the top level.
			eff.Note = joinNote(eff.Note, fmt.Sprintf("this user may not list %s*/, so heron could not look there for logs under a woodpecker.meta.prefix set only in milvus.yaml", level))
			continue
		}
		if err != nil {
			return nil, err
		}
		complete = complete && done
		for _, seg := range append(segs, l.own) {
			p := level + seg
			if !slices.ContainsFunc(known, func(k Prefix) bool { return k.Prefix == p }) && !slices.Contains(cands, p) {
				cands = append(cands, p)
			}
		}
	}
	if !complete {
		eff.Note = joinNote(eff.Note, fmt.Sprintf("heron looked for logs under a woodpecker.meta.prefix set only in milvus.yaml in the first %d path segments of %s/ and of the keyspace only", maxSegments, root))
	}
	names := slices.Sorted(maps.Keys(pchannels))
	type logKey struct{ prefix, log string }
	hits := map[string][]string{}
	b := instance.NewBatch(inst, rev, 64, func(k logKey) string { return models.WPLogKey(k.prefix, k.log) }, func(k logKey, kv instance.KV) error {
		if kv.Key != "" && models.LooksLikeWPLogMeta(kv.Value) {
			hits[k.prefix] = append(hits[k.prefix], k.log)
		}
		return nil
	})
	for _, c := range cands {
		for _, pc := range names {
			if err := b.Add(ctx, logKey{c, pc}); err != nil {
				return nil, err
			}
		}
	}
	if err := b.Flush(ctx); err != nil {
		return nil, err
	}
	var out []Prefix
	for _, c := range cands {
		if logs := hits[c]; len(logs) > 0 {
			out = append(out, Prefix{Prefix: c, Roles: []string{RoleFound}, Readable: true})
			eff.Note = joinNote(eff.Note, fmt.Sprintf("woodpecker logs of the instance's pchannels (%s) exist under %s/, a prefix heron was not told of: woodpecker.meta.prefix is probably set in milvus.yaml; heron counts them (pass --wp-meta-prefix if it is the prefix in use)", capped(logs), c))
		}
	}
	return out, nil
}

// capped names at most three items, saying how many more there are.
func capped(items []string) string {
	const most = 3
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:most], ", "), len(items)-most)
}

func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}

// lookedAt lists the prefixes to read, the effective one first, each once
// with all its roles.
func lookedAt(l models.Layout, eff Effective) []Prefix {
	type cand struct{ prefix, role string }
	cands := []cand{{models.WoodpeckerLegacyRoot, RoleLegacy}}
	if eff.From != fromDefault {
		cands = append(cands, cand{eff.Configured, RoleConfigured})
	}
	cands = append(cands, cand{l.WoodpeckerConfiguredPrefix(""), RoleDefault}, cand{l.WoodpeckerHeronWPPrefix(), RoleWP})
	var out []Prefix
	for _, c := range cands {
		i := slices.IndexFunc(out, func(p Prefix) bool { return p.Prefix == c.prefix })
		if i < 0 {
			out = append(out, Prefix{Prefix: c.prefix, Readable: true})
			i = len(out) - 1
		}
		out[i].Roles = append(out[i].Roles, c.role)
	}
	slices.SortStableFunc(out, func(a, b Prefix) int {
		ae, be := a.Prefix == eff.Prefix, b.Prefix == eff.Prefix
		switch {
		case ae && !be:
			return -1
		case be && !ae:
			return 1
		}
		return 0
	})
	return out
}

// prefixScan gathers one prefix's logs while its keys stream by.
type prefixScan struct {
	p         *Prefix
	logs      map[string]*Log
	byID      map[int64]*Log
	pchannels map[string]bool
	onKey     func(Key) error
}

func (s *prefixScan) log(name string) *Log {
	l, ok := s.logs[name]
	if !ok {
		l = &Log{Prefix: s.p.Prefix, Name: name, ID: -1, FirstSegment: -1, LastSegment: -1,
			TruncatedSegment: -1, TruncatedEntry: -1, PChannel: s.pchannels[name], Effective: s.p.Effective}
		s.logs[name] = l
	}
	return l
}

// attribute counts a per-log key of l and streams it.
func (s *prefixScan) attribute(l *Log, k models.WPKey, kv instance.KV) error {
	l.Keys++
	l.ValueBytes += int64(len(kv.Value))
	l.MaxModRevision = max(l.MaxModRevision, kv.ModRevision)
	if s.onKey == nil {
		return nil
	}
	return s.onKey(Key{Prefix: s.p.Prefix, Log: l.Name, Kind: k.Kind, Key: kv.Key, Value: kv.Value, ModRevision: kv.ModRevision})
}

// readPrefix reads one prefix: logs/ and logs-deleted/ first (they name the
// log ids), then the by-id parts.
func readPrefix(ctx context.Context, inst *instance.Instance, rev int64, p *Prefix, pchannels map[string]bool, onKey func(Key) error) ([]Log, error) {
	s := &prefixScan{p: p, logs: map[string]*Log{}, byID: map[int64]*Log{}, pchannels: pchannels, onKey: onKey}
	n, err := inst.Count(ctx, p.Prefix+"/", rev)
	if err != nil {
		return nil, err
	}
	p.Keys = n
	for _, part := range []string{"logs/", "logs-deleted/", "cleaning/", "marking/", "readers/"} {
		_, err := inst.Scan(ctx, p.Prefix+"/"+part, rev, func(page []instance.KV) error {
			for _, kv := range page {
				if err := s.add(kv); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]Log, 0, len(s.logs))
	for _, l := range s.logs {
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Log) int { return strings.Compare(a.Name, b.Name) })
	p.Logs = len(out)
	return out, nil
}

func (s *prefixScan) add(kv instance.KV) error {
	k, ok := models.ParseWPKey(s.p.Prefix, kv.Key)
	if !ok || !k.Kind.PerLog() {
		return nil
	}
	if k.Kind.ByLogID() {
		l := s.byID[k.LogID]
		if l == nil {
			s.p.Orphans++
			return nil
		}
		return s.attribute(l, k, kv)
	}
	l := s.log(k.Log)
	switch k.Kind {
	case models.WPLog:
		m, err := models.DecodeWPLogMeta(kv.Value)
		if err != nil {
			l.Undecodable++
			break
		}
		l.HasMeta, l.ID = true, m.LogID
		l.TruncatedSegment, l.TruncatedEntry = m.TruncatedSegment, m.TruncatedEntry
		s.byID[m.LogID] = l
	case models.WPLogLock:
		l.Locked = true
	case models.WPSegment:
		l.Segments++
		if l.FirstSegment < 0 || k.Segment < l.FirstSegment {
			l.FirstSegment = k.Segment
		}
		l.LastSegment = max(l.LastSegment, k.Segment)
		if m, err := models.DecodeWPSegmentMeta(kv.Value); err != nil {
			l.Undecodable++
		} else {
			l.SegmentBytes += m.Size
		}
	case models.WPLogDeleted:
		if m, err := models.DecodeWPLogMeta(kv.Value); err != nil {
			l.Undecodable++
		} else {
			l.ParkedIDs = append(l.ParkedIDs, m.LogID)
			if s.byID[m.LogID] == nil {
				s.byID[m.LogID] = l
			}
		}
	}
	return s.attribute(l, k, kv)
}

// InstancePChannels are the instance's pchannels at rev: the pchannel list
// and the pchannels of the streamingnode's WAL keys (woodpecker exists only
// on streaming instances, which have both).
func InstancePChannels(ctx context.Context, inst *instance.Instance, rev int64) (map[string]bool, error) {
	out := map[string]bool{}
	_, err := inst.Walk(ctx, rev, []string{models.PChannelPrefix, models.WALPrefix}, func(e instance.Entry) error {
		switch e.Kind {
		case models.KindPChannel, models.KindConsumeCheckpoint, models.KindSegmentAssign:
			if e.PChannel != "" && !strings.Contains(e.PChannel, "/") {
				out[e.PChannel] = true
			}
		}
		return nil
	})
	return out, err
}
