package models

import (
	"strconv"
	"strings"
	"time"
)

// Datacoord's max-lag rule: CheckCheckPointsHealth (milvus-io/milvus
// internal/datacoord/util.go, 2.6 and master) fails with error 504
// "channel checkpoint exceed max lag" (pkg/v2@v2.6.23 util/merr/errors.go
// ErrChannelCPExceededMaxLag) when a channel checkpoint of a live collection
// lags wall clock by more than dataCoord.compaction.channelMaxCPLag seconds
// (pkg/v2@v2.6.23 util/paramtable/component_param.go: default 900).
// Channel checkpoints whose collection is gone are skipped there.
const (
	ChannelCPMaxLagParam     = "dataCoord.compaction.channelMaxCPLag"
	DefaultChannelCPMaxLag   = 900 * time.Second
	channelCPMaxLagFormatted = "datacoordcompactionchannelmaxcplag"
)

// ChannelCPMaxLag is the max lag an override in Milvus's etcd config source
// sets (keys relative to the root path, values by key): the effective
// override (EffectiveConfigKey), read as seconds as paramtable's
// GetAsDuration(time.Second) does. key is "" when the default applies; a
// value that does not parse leaves the default and is reported in bad.
func ChannelCPMaxLag(keys []string, value func(string) string) (lag time.Duration, key string, bad string) {
	key = EffectiveConfigKey(keys, channelCPMaxLagFormatted)
	if key == "" {
		return DefaultChannelCPMaxLag, "", ""
	}
	v := strings.TrimSpace(value(key))
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second)), key, ""
	}
	return DefaultChannelCPMaxLag, key, v
}

// TSOTime is the physical time of a Milvus hybrid timestamp (unix
// milliseconds << 18).
func TSOTime(ts uint64) time.Time { return time.UnixMilli(int64(ts >> 18)).UTC() }
