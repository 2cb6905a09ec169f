package models

import "strings"

// ConfigPrefix is Milvus's etcd config source, relative to the root path
// ({rootPath}/config/; pkg/v2 v2.6.23 config/etcd_source.go reads
// path.Join(rootPath, "config") with a prefix get).
const ConfigPrefix = "config/"

// notFormatPrefix marks keys that Milvus registers as they are
// (pkg/v2 v2.6.23 config/config.go NotFormatPrefix).
const notFormatPrefix = "knowhere."

// FormatConfigKey is Milvus's formatKey (pkg/v2 v2.6.23 config/config.go):
// lower-cased, with '/', '_' and '.' removed, except for knowhere.* keys. The
// etcd source registers every key under config/ both as it is and under this
// form, and lookups use this form: "mq.type", "mq_type", "MQ/TYPE" all set mq.type.
//
// The same rule is written for reset by another engineer; the lead merges the two.
func FormatConfigKey(key string) string {
	if strings.HasPrefix(key, notFormatPrefix) {
		return key
	}
	return strings.NewReplacer("/", "", "_", "", ".", "").Replace(strings.ToLower(key))
}

// mqTypeFormatted is formatKey("mq.type").
const mqTypeFormatted = "mqtype"

// IsMQTypeConfigKey reports whether a key relative to config/ overrides
// mq.type when Milvus reads its etcd config source.
func IsMQTypeConfigKey(key string) bool { return FormatConfigKey(key) == mqTypeFormatted }
