package models

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// Woodpecker keeps its own metadata in etcd, under one prefix P
// (woodpecker v0.1.35 and v0.1.37 meta/constant.go KeyBuilder):
//
//	P/instance, P/version, P/logidgen, P/quorumidgen, P/conditionwrite   kept
//	P/logs/{log}                     LogMeta                           per log
//	P/logs/{log}/lock[/{lease}]      the writer's lock (an etcd mutex
//	                                 under BuildLogLockKey: one key per
//	                                 lease, empty value)               per log
//	P/logs/{log}/segments/{seg}      SegmentMetadata                   per log
//	P/readers/{logId}/{reader}       reader positions                  per log (by id)
//	P/cleaning/{logId}/{seg}         segment clean-up state            per log (by id)
//	P/marking/{logId}/{seg}          compacted-mark state (v0.1.37)    per log (by id)
//	P/logs-deleted/{log}-{ts}[/segments/{seg}]   copies parked by DeleteLog   per log
//	P/quorums/{id}, P/logstores/{node}                                 kept
//
// Milvus names its logs after pchannels (pkg/v2 v2.6.23
// streaming/walimpls/impls/wp/opener.go). Emptying a log deletes its per-log
// keys; everything else is kept: logidgen above all, because log ids name
// the objects of a log's data and a reused id collides with leftovers.
//
// Which P a woodpecker client uses (detectEffectiveMetadataPrefix,
// meta/metadata_etcd.go @v0.1.35): the legacy top-level "woodpecker" when
// any legacy key exists there (WoodpeckerLegacyKeys, WoodpeckerLegacyPrefixes),
// else path.Join(etcd.rootPath, woodpecker.meta.prefix) (default prefix
// "woodpecker"). Woodpecker before v0.1.30 (Milvus 2.6 up to about 2.6.2x)
// always used the legacy prefix. No release writes {rootPath}/wp, which heron
// once assumed: it is still read (WoodpeckerHeronWPPrefix), harmlessly.
const (
	// WoodpeckerLegacyRoot is woodpecker's historical fixed prefix
	// (LegacyServicePrefix), outside every instance's root path and shared
	// by every Milvus instance on the etcd.
	WoodpeckerLegacyRoot = "woodpecker"
	// WoodpeckerDefaultMetaPrefix is woodpecker.meta.prefix's default
	// (pkg/v2 v2.6.23 util/paramtable/service_param.go).
	WoodpeckerDefaultMetaPrefix = "woodpecker"
	// woodpeckerMetaPrefixFormatted is formatKey("woodpecker.meta.prefix"):
	// the name of its override in Milvus's etcd config source.
	woodpeckerMetaPrefixFormatted = "woodpeckermetaprefix"
	woodpeckerHeronWPPart         = "wp"
)

// WoodpeckerConfiguredPrefix is the prefix woodpecker v0.1.30+ uses when no
// legacy key exists: path.Join(rootPath, metaPrefix), or the legacy root when
// that is empty or "." (NewKeyBuilder). metaPrefix "" means the default.
func (l Layout) WoodpeckerConfiguredPrefix(metaPrefix string) string {
	if metaPrefix == "" {
		metaPrefix = WoodpeckerDefaultMetaPrefix
	}
	p := path.Join(l.RootPath, metaPrefix)
	if p == "" || p == "." {
		return WoodpeckerLegacyRoot
	}
	return p
}

// WoodpeckerHeronWPPrefix is {rootPath}/wp: Milvus 2.6.23 sets it as
// woodpecker's Meta.Prefix (impls/wp/builder.go:83), but no woodpecker
// release reads that setting. heron looks there too, for metadata written by
// tools that believed it.
func (l Layout) WoodpeckerHeronWPPrefix() string { return l.Root(woodpeckerHeronWPPart) }

// WoodpeckerLegacyKeys are the keys whose presence makes woodpecker keep
// the legacy prefix (hasLegacyMetadata, meta/metadata_etcd.go @v0.1.35).
func WoodpeckerLegacyKeys() []string {
	r := WoodpeckerLegacyRoot + "/"
	return []string{r + "instance", r + "version", r + "logidgen", r + "quorumidgen", r + "conditionwrite"}
}

// WoodpeckerLegacyPrefixes are the prefixes under which any key makes
// woodpecker keep the legacy prefix (hasLegacyMetadata). logs-deleted/ and
// marking/ are not among them.
func WoodpeckerLegacyPrefixes() []string {
	r := WoodpeckerLegacyRoot + "/"
	return []string{r + "logs/", r + "quorums/", r + "logstores/", r + "readers/", r + "cleaning/"}
}

// IsWoodpeckerMetaPrefixConfigKey reports whether a key relative to the root
// path overrides woodpecker.meta.prefix in Milvus's etcd config source (the
// rule of IsMQTypeConfigKey: formatKey of the name under config/).
func IsWoodpeckerMetaPrefixConfigKey(rel string) bool {
	return IsConfigKeyFor(rel, woodpeckerMetaPrefixFormatted)
}

// EffectiveWoodpeckerMetaPrefixKey is, among woodpecker.meta.prefix
// overrides (keys relative to the root path), the one Milvus uses: the
// greatest (see EffectiveConfigKey). "" when keys holds none.
func EffectiveWoodpeckerMetaPrefixKey(keys []string) string {
	return EffectiveConfigKey(keys, woodpeckerMetaPrefixFormatted)
}

// WPKeyKind is what a key under a woodpecker prefix is.
type WPKeyKind int

const (
	WPUnknown         WPKeyKind = iota
	WPInstance                  // P/instance
	WPVersion                   // P/version
	WPLogIDGen                  // P/logidgen
	WPQuorumIDGen               // P/quorumidgen
	WPConditionWrite            // P/conditionwrite
	WPQuorum                    // P/quorums/...
	WPLogStore                  // P/logstores/...
	WPLog                       // P/logs/{log}: LogMeta
	WPLogLock                   // P/logs/{log}/lock and P/logs/{log}/lock/{lease}
	WPSegment                   // P/logs/{log}/segments/{seg}: SegmentMetadata
	WPLogOther                  // P/logs/{log}/ anything else
	WPReader                    // P/readers/{logId}/...
	WPCleaning                  // P/cleaning/{logId}/...
	WPMarking                   // P/marking/{logId}/...
	WPLogDeleted                // P/logs-deleted/{log}-{ts}: a parked LogMeta
	WPLogDeletedOther           // P/logs-deleted/{log}-{ts}/... (parked segments)
)

// PerLog reports whether a key of this kind belongs to one log: emptying
// the log deletes it. Every other kind is kept.
func (k WPKeyKind) PerLog() bool { return k >= WPLog }

// ByLogID reports whether the key names its log by id, not by name.
func (k WPKeyKind) ByLogID() bool { return k == WPReader || k == WPCleaning || k == WPMarking }

// WPKey is a key under a woodpecker prefix, parsed.
type WPKey struct {
	Kind WPKeyKind
	// Log is the log's name (WPLog, WPLogLock, WPSegment, WPLogOther,
	// WPLogDeleted*).
	Log string
	// LogID is the log's id of WPReader, WPCleaning and WPMarking keys.
	LogID int64
	// Segment is the segment number of a WPSegment key.
	Segment int64
	// DeletedAt is the {ts} of a parked copy (WPLogDeleted*).
	DeletedAt int64
}

// ParseWPKey classifies an absolute key under the woodpecker prefix p (no
// trailing slash); ok is false for keys outside p. Keys under p that match
// no known layout are WPUnknown (kept).
func ParseWPKey(p, abs string) (k WPKey, ok bool) {
	rest, found := strings.CutPrefix(abs, p+"/")
	if !found {
		return k, false
	}
	switch rest {
	case "instance":
		return WPKey{Kind: WPInstance}, true
	case "version":
		return WPKey{Kind: WPVersion}, true
	case "logidgen":
		return WPKey{Kind: WPLogIDGen}, true
	case "quorumidgen":
		return WPKey{Kind: WPQuorumIDGen}, true
	case "conditionwrite":
		return WPKey{Kind: WPConditionWrite}, true
	}
	top, tail, _ := strings.Cut(rest, "/")
	switch top {
	case "quorums":
		return WPKey{Kind: WPQuorum}, true
	case "logstores":
		return WPKey{Kind: WPLogStore}, true
	case "logs":
		return parseWPLogKey(tail), true
	case "logs-deleted":
		name, sub, hasSub := strings.Cut(tail, "/")
		log, ts, ok := splitParkedName(name)
		if !ok {
			return WPKey{}, true
		}
		k := WPKey{Kind: WPLogDeleted, Log: log, DeletedAt: ts}
		if hasSub {
			k.Kind = WPLogDeletedOther
			if seg, isSeg := parseSegmentTail(sub); isSeg {
				k.Segment = seg
			}
		}
		return k, true
	case "readers", "cleaning", "marking":
		idText, _, _ := strings.Cut(tail, "/")
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || idText == "" || strconv.FormatInt(id, 10) != idText {
			return WPKey{}, true
		}
		kind := map[string]WPKeyKind{"readers": WPReader, "cleaning": WPCleaning, "marking": WPMarking}[top]
		return WPKey{Kind: kind, LogID: id}, true
	}
	return WPKey{}, true
}

func parseWPLogKey(tail string) WPKey {
	log, sub, hasSub := strings.Cut(tail, "/")
	if log == "" {
		return WPKey{}
	}
	if !hasSub {
		return WPKey{Kind: WPLog, Log: log}
	}
	if sub == "lock" || strings.HasPrefix(sub, "lock/") {
		return WPKey{Kind: WPLogLock, Log: log}
	}
	if seg, ok := parseSegmentTail(sub); ok {
		return WPKey{Kind: WPSegment, Log: log, Segment: seg}
	}
	return WPKey{Kind: WPLogOther, Log: log}
}

// parseSegmentTail parses "segments/{seg}" (BuildSegmentInstanceKey formats
// seg with %d).
func parseSegmentTail(sub string) (int64, bool) {
	idText, ok := strings.CutPrefix(sub, "segments/")
	if !ok || idText == "" || strings.Contains(idText, "/") {
		return 0, false
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	return id, err == nil
}

// splitParkedName splits "{log}-{ts}" (BuildLogDeletedKey: "%s-%d") at its
// last '-': ts is digits only, so a log "x_1" never claims "x_10-5".
func splitParkedName(name string) (log string, ts int64, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return "", 0, false
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	ts, err := strconv.ParseInt(name[i+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return name[:i], ts, true
}

// LogMeta field numbers (proto/meta.proto, woodpecker v0.1.35 and v0.1.37:
// the same in both).
const (
	lmLogID              protowire.Number = 1
	lmCreationTimestamp  protowire.Number = 6 // fixed64, seconds
	lmModificationTime   protowire.Number = 7 // fixed64, seconds
	lmTruncatedSegmentID protowire.Number = 8
	lmTruncatedEntryID   protowire.Number = 9
)

// WPLogMeta is woodpecker's LogMeta, the value of P/logs/{log}.
type WPLogMeta struct {
	LogID int64
	// TruncatedSegment and TruncatedEntry are the truncation point
	// (inclusive); -1 is none (a fresh log, CreateLog in
	// meta/metadata_etcd.go @v0.1.35 writes -1, -1). A proto3 0 is not
	// written, so an absent field reads as 0: a real truncation at 0.
	TruncatedSegment int64
	TruncatedEntry   int64
	Created          uint64
	Modified         uint64
}

// DecodeWPLogMeta decodes a LogMeta at the wire level.
func DecodeWPLogMeta(b []byte) (WPLogMeta, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return WPLogMeta{}, fmt.Errorf("woodpecker LogMeta: %w", err)
	}
	for _, n := range []protowire.Number{lmLogID, lmTruncatedSegmentID, lmTruncatedEntryID} {
		if f, ok := m.Get(n); ok && f.Type != protowire.VarintType {
			return WPLogMeta{}, fmt.Errorf("woodpecker LogMeta: field %d has wire type %d, want varint", n, f.Type)
		}
	}
	out := WPLogMeta{
		LogID:            int64(m.Varint(lmLogID)),
		TruncatedSegment: int64(m.Varint(lmTruncatedSegmentID)),
		TruncatedEntry:   int64(m.Varint(lmTruncatedEntryID)),
	}
	out.Created = fixed64(m, lmCreationTimestamp)
	out.Modified = fixed64(m, lmModificationTime)
	return out, nil
}

// LooksLikeWPLogMeta reports whether b is a LogMeta as woodpecker writes it:
// a varint log id and the fixed64 creation time CreateLog always sets
// (meta/metadata_etcd.go @v0.1.35). It tells a log's key under a prefix
// heron was not told of from any other value at a key of the same shape.
func LooksLikeWPLogMeta(b []byte) bool {
	m, err := wire.Parse(b)
	if err != nil {
		return false
	}
	if _, err := DecodeWPLogMeta(b); err != nil {
		return false
	}
	id, okID := m.Get(lmLogID)
	created, okCreated := m.Get(lmCreationTimestamp)
	return okID && id.Type == protowire.VarintType && okCreated && created.Type == protowire.Fixed64Type
}

// WPLogKey is the key of log's LogMeta under prefix P (absolute, no
// trailing slash): P/logs/{log}.
func WPLogKey(prefix, log string) string { return prefix + "/logs/" + log }

func fixed64(m *wire.Message, n protowire.Number) uint64 {
	f, ok := m.Get(n)
	if !ok || f.Type != protowire.Fixed64Type {
		return 0
	}
	v, _ := protowire.ConsumeFixed64(f.Payload)
	return v
}

// SegmentMetadata field numbers (proto/meta.proto, woodpecker v0.1.35 and
// v0.1.37).
const (
	smSegNo       protowire.Number = 1
	smState       protowire.Number = 4
	smLastEntryID protowire.Number = 6
	smSize        protowire.Number = 7
)

// WPSegmentState is woodpecker's SegmentState.
type WPSegmentState int32

// WPSegmentMeta is woodpecker's SegmentMetadata, the value of
// P/logs/{log}/segments/{seg}.
type WPSegmentMeta struct {
	SegNo       int64
	State       WPSegmentState
	LastEntryID int64
	Size        int64
}

// DecodeWPSegmentMeta decodes a SegmentMetadata at the wire level.
func DecodeWPSegmentMeta(b []byte) (WPSegmentMeta, error) {
	m, err := wire.Parse(b)
	if err != nil {
		return WPSegmentMeta{}, fmt.Errorf("woodpecker SegmentMetadata: %w", err)
	}
	for _, n := range []protowire.Number{smSegNo, smState, smLastEntryID, smSize} {
		if f, ok := m.Get(n); ok && f.Type != protowire.VarintType {
			return WPSegmentMeta{}, fmt.Errorf("woodpecker SegmentMetadata: field %d has wire type %d, want varint", n, f.Type)
		}
	}
	return WPSegmentMeta{
		SegNo:       int64(m.Varint(smSegNo)),
		State:       WPSegmentState(int32(m.Varint(smState))),
		LastEntryID: int64(m.Varint(smLastEntryID)),
		Size:        int64(m.Varint(smSize)),
	}, nil
}
