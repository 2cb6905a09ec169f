package models

import (
	"path"
	"strconv"
	"strings"
)

// Woodpecker's data with its `minio` storage type (Milvus's default) lies in
// object storage under {minio.rootPath}/wp: Milvus always appends "/wp" for
// woodpecker (streaming/walimpls/impls/wp/builder.go @pkg/v2 v2.6.23), and
// woodpecker names a segment's objects {base}/{logId}/{segId}/ then
// {N}.blk, m_{N}.blk, footer.blk and write.lock
// (server/storage/objectstorage/writer_impl.go getSegmentFileKey,
// getBlockKey, getMergedBlockKey, getFooterBlockKey, getSegmentLockKey
// @woodpecker v0.1.37; the same names in v0.1.35).
const woodpeckerObjectPart = "wp"

// WPObjectKind is what an object under a log's folder is.
type WPObjectKind int

const (
	WPObjectForeign WPObjectKind = iota // not of woodpecker's layout: reported, never deleted
	WPObjectBlock                       // {segId}/{N}.blk
	WPObjectMerged                      // {segId}/m_{N}.blk
	WPObjectFooter                      // {segId}/footer.blk
	WPObjectLock                        // {segId}/write.lock
)

// WoodpeckerObjectBase is the object folder of woodpecker's data for Milvus's
// minio.rootPath (no leading or trailing slash): {rootPath}/wp.
func WoodpeckerObjectBase(minioRootPath string) string {
	root := strings.Trim(minioRootPath, "/")
	if root == "" {
		return woodpeckerObjectPart
	}
	return path.Join(root, woodpeckerObjectPart)
}

// WoodpeckerLogObjectPrefix is the folder of one log's objects:
// {rootPath}/wp/{logId}/.
func WoodpeckerLogObjectPrefix(minioRootPath string, logID int64) string {
	return WoodpeckerObjectBase(minioRootPath) + "/" + strconv.FormatInt(logID, 10) + "/"
}

// ClassifyWPObject classifies an object key under a log's folder (logPrefix
// from WoodpeckerLogObjectPrefix): one of woodpecker's names under a segment
// folder {segId}/, or WPObjectForeign. seg is the segment id of a layout key.
func ClassifyWPObject(logPrefix, key string) (kind WPObjectKind, seg int64) {
	rest, ok := strings.CutPrefix(key, logPrefix)
	if !ok {
		return WPObjectForeign, 0
	}
	segText, name, ok := strings.Cut(rest, "/")
	if !ok || strings.Contains(name, "/") || !decimal(segText) {
		return WPObjectForeign, 0
	}
	seg, err := strconv.ParseInt(segText, 10, 64)
	if err != nil {
		return WPObjectForeign, 0
	}
	switch {
	case name == "footer.blk":
		return WPObjectFooter, seg
	case name == "write.lock":
		return WPObjectLock, seg
	}
	stem, ok := strings.CutSuffix(name, ".blk")
	if !ok {
		return WPObjectForeign, 0
	}
	if n, merged := strings.CutPrefix(stem, "m_"); merged {
		if decimal(n) {
			return WPObjectMerged, seg
		}
		return WPObjectForeign, 0
	}
	if decimal(stem) {
		return WPObjectBlock, seg
	}
	return WPObjectForeign, 0
}

// decimal reports whether s is a non-negative decimal as woodpecker's %d
// writes it (no sign, no leading zero but "0").
func decimal(s string) bool {
	if s == "" || len(s) > 19 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// woodpeckerStorageTypeFormatted is formatKey("woodpecker.storage.type"):
// the name of its override in Milvus's etcd config source.
const woodpeckerStorageTypeFormatted = "woodpeckerstoragetype"

// IsWoodpeckerStorageTypeConfigKey reports whether a key relative to the root
// path overrides woodpecker.storage.type in Milvus's etcd config source.
func IsWoodpeckerStorageTypeConfigKey(rel string) bool {
	return IsConfigKeyFor(rel, woodpeckerStorageTypeFormatted)
}

// EffectiveWoodpeckerStorageTypeKey is, among woodpecker.storage.type
// overrides (keys relative to the root path), the one Milvus uses: the
// greatest (see EffectiveConfigKey). "" when keys holds none.
func EffectiveWoodpeckerStorageTypeKey(keys []string) string {
	return EffectiveConfigKey(keys, woodpeckerStorageTypeFormatted)
}
