package models

import "strings"

// ConfigPrefix is Milvus's etcd config source, relative to the root path.
const ConfigPrefix = "config/"

// MQTypeConfigKey is the key Milvus writes for mq.type (ProcessImmutableConfigs
// at first start and its online WAL switch) and the one a reset creates when
// no override exists; relative to the root path.
const MQTypeConfigKey = "config/mqtype"

// IsMQTypeConfigKey reports whether a key relative to the root path is an
// mq.type override, exactly as Milvus reads its etcd config source
// (pkg/v2@v2.6.23 config/etcd_source.go refreshConfigurationsWithOpts): it
// reads every key under {root}/config, strips "{root}/config/" and registers
// the rest under formatKey (config/config.go: lower-cased, "/", "_" and "."
// removed). So config/mqtype, config/mq.type, config/MQ_TYPE and even the
// nested config/mq/type all set mq.type.
func IsMQTypeConfigKey(rel string) bool {
	name, ok := strings.CutPrefix(rel, ConfigPrefix)
	return ok && formatConfigKey(name) == "mqtype"
}

// formatConfigKey is Milvus's formatKey. Keys under "knowhere." keep their case and punctuation.
func formatConfigKey(key string) string {
	if strings.HasPrefix(key, "knowhere.") {
		return key
	}
	return strings.NewReplacer("/", "", "_", "", ".", "").Replace(strings.ToLower(key))
}

// EffectiveMQTypeKey is, among mq.type overrides (keys relative to the root
// path), the one whose value Milvus uses: it fills its config map in the
// order etcd returns the keys (ascending), so the greatest key wins. "" when
// keys holds none.
func EffectiveMQTypeKey(keys []string) string {
	best := ""
	for _, k := range keys {
		if IsMQTypeConfigKey(k) && k > best {
			best = k
		}
	}
	return best
}
