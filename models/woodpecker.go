package models

import (
	"strconv"
	"strings"
)

// Woodpecker keeps its own metadata in etcd. Milvus 2.6.2x puts it under
// {root}/wp (pkg/v2@v2.6.23 streaming/walimpls/impls/wp/builder.go:
// Meta.Prefix = rootPath + "/wp"); older woodpecker releases used the fixed
// top-level prefix "woodpecker" (woodpecker v0.1.13 meta/constant.go). Under
// either, logs/{logName}/segments/{segmentID} are the segments of a log
// (BuildSegmentInstanceKey); Milvus names its logs after pchannels.
const (
	woodpeckerRootPart     = "wp/"
	WoodpeckerLegacyPrefix = "woodpecker/"
	woodpeckerLogsPart     = "logs/"
	woodpeckerSegmentsPart = "/segments/"
)

// WoodpeckerPrefix is woodpecker's metadata prefix of this instance, absolute.
func (l Layout) WoodpeckerPrefix() string { return l.Root(woodpeckerRootPart) }

// WoodpeckerLogsPrefixes are the absolute prefixes of woodpecker's logs:
// the instance's own ({root}/wp/logs/) and the legacy top-level one
// (woodpecker/logs/).
func (l Layout) WoodpeckerLogsPrefixes() []string {
	return []string{l.WoodpeckerPrefix() + woodpeckerLogsPart, WoodpeckerLegacyPrefix + woodpeckerLogsPart}
}

// WoodpeckerKey is a key under a woodpecker logs prefix.
type WoodpeckerKey struct {
	// Prefix is the logs prefix the key is under (one of WoodpeckerLogsPrefixes).
	Prefix string
	Legacy bool
	Log    string
	// Segment: the key is logs/{Log}/segments/{SegmentID}.
	Segment   bool
	SegmentID int64
}

// ParseWoodpeckerKey parses an absolute key under one of the instance's
// woodpecker logs prefixes; ok is false for other keys.
func (l Layout) ParseWoodpeckerKey(abs string) (k WoodpeckerKey, ok bool) {
	for i, prefix := range l.WoodpeckerLogsPrefixes() {
		rest, found := strings.CutPrefix(abs, prefix)
		if !found {
			continue
		}
		log, tail, _ := strings.Cut(rest, "/")
		if log == "" {
			return k, false
		}
		k = WoodpeckerKey{Prefix: prefix, Legacy: i == 1, Log: log}
		if id, isSeg := strings.CutPrefix("/"+tail, woodpeckerSegmentsPart); isSeg && id != "" && !strings.Contains(id, "/") {
			k.Segment = true
			k.SegmentID, _ = strconv.ParseInt(id, 10, 64)
		}
		return k, true
	}
	return k, false
}
