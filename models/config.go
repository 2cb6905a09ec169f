package models

import "strings"

// ConfigPrefix is Milvus's etcd config source, relative to the root path
// ({rootPath}/config/; pkg/v2 v2.6.23 config/etcd_source.go reads
// path.Join(rootPath, "config") with a prefix get).
const ConfigPrefix = "config/"

// MQTypeConfigKey is the key Milvus writes for mq.type (ProcessImmutableConfigs
// at first start and its online WAL switch) and the one a reset creates when
// no override exists; relative to the root path.
const MQTypeConfigKey = "config/mqtype"

// notFormatPrefix marks keys that Milvus registers as they are
// (pkg/v2 v2.6.23 config/config.go NotFormatPrefix).
const notFormatPrefix = "knowhere."

// Formatted names (formatKey) of the settings heron reads from the etcd
// config source.
const (
	mqTypeFormatted          = "mqtype"
	PulsarTenantFormatted    = "pulsartenant"    // pulsar.tenant
	PulsarNamespaceFormatted = "pulsarnamespace" // pulsar.namespace
)

// Pulsar's defaults for pulsar.tenant and pulsar.namespace
// (pkg/v2@v2.6.23 util/paramtable/service_param.go).
const (
	DefaultPulsarTenant    = "public"
	DefaultPulsarNamespace = "default"
)

// IsMQTypeConfigKey reports whether a key relative to the root path is an
// mq.type override, exactly as Milvus reads its etcd config source
// (pkg/v2@v2.6.23 config/etcd_source.go refreshConfigurationsWithOpts): it
// reads every key under {root}/config, strips "{root}/config/" and registers
// the rest under formatKey. So config/mqtype, config/mq.type, config/MQ_TYPE
// and even the nested config/mq/type all set mq.type.
func IsMQTypeConfigKey(rel string) bool { return IsConfigKeyFor(rel, mqTypeFormatted) }

// EffectiveMQTypeKey is, among keys relative to the root path, the mq.type
// override Milvus uses (EffectiveConfigKey); "" when none.
func EffectiveMQTypeKey(keys []string) string { return EffectiveConfigKey(keys, mqTypeFormatted) }

// IsConfigKeyFor reports whether a key relative to the root path overrides
// the setting whose formatKey is formatted (mqtype, pulsartenant), by the
// rule of IsMQTypeConfigKey.
func IsConfigKeyFor(rel, formatted string) bool {
	name, ok := strings.CutPrefix(rel, ConfigPrefix)
	return ok && FormatConfigKey(name) == formatted
}

// FormatConfigKey is Milvus's formatKey (pkg/v2 v2.6.23 config/config.go):
// lower-cased, with '/', '_' and '.' removed, except for knowhere.* keys. The
// etcd source registers every key under config/ both as it is and under this
// form, and lookups use this form: "mq.type", "mq_type", "MQ/TYPE" all set mq.type.
func FormatConfigKey(key string) string {
	if strings.HasPrefix(key, notFormatPrefix) {
		return key
	}
	return strings.NewReplacer("/", "", "_", "", ".", "").Replace(strings.ToLower(key))
}

// EffectiveConfigKey is, among keys relative to the root path, the override
// of the setting whose formatKey is formatted that Milvus uses: it fills its
// config map in the order etcd returns the keys (ascending), so the greatest
// key wins. "" when keys holds none.
func EffectiveConfigKey(keys []string, formatted string) string {
	best := ""
	for _, k := range keys {
		if IsConfigKeyFor(k, formatted) && k > best {
			best = k
		}
	}
	return best
}
