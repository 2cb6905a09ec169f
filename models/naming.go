package models

import "strings"

// StartPositionPChannel is the pchannel of a CollectionInfo.start_positions
// key: the key itself when it names a pchannel, else the pchannel of the
// vchannel it names (some writers key the pairs by vchannel). The two cannot
// be told apart by syntax alone, so a key ending in Milvus's vchannel suffix
// "_{collectionID}v{shard}" is taken as a vchannel.
func StartPositionPChannel(key string) string {
	if IsVChannelName(key) {
		return key[:strings.LastIndexByte(key, '_')]
	}
	return key
}

// IsVChannelName reports whether name ends in Milvus's vchannel suffix
// "_{collectionID}v{shard}" ({pchannel}_{collectionID}v{shard}).
func IsVChannelName(name string) bool {
	i := strings.LastIndexByte(name, '_')
	if i <= 0 {
		return false
	}
	tail := name[i+1:]
	v := strings.IndexByte(tail, 'v')
	return v > 0 && isDigits(tail[:v]) && isDigits(tail[v+1:])
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
