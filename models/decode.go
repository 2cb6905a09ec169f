package models

import (
	"strings"
)

// Key kinds named by DecodeAny, one per value layout heron knows.
const (
	KindNameConsumeCheckpoint = "consume-checkpoint"
	KindNameSegmentAssign     = "segment-assign"
	KindNameChannelCP         = "channel-cp"
	KindNameChannelRemoval    = "channel-removal"
	KindNameCollectionInfo    = "collection-info"
	KindNameSegment           = "segment"
	KindNameQueryTarget       = "query-target"
	KindNameChannelWatch      = "channel-watch"
	KindNameBroadcastTask     = "broadcast-task"
	KindNamePChannel          = "pchannel"
	KindNameSession           = "session"
	KindNameDatabase          = "database"
	KindNamePartition         = "partition"
	KindNameReplica           = "replica"
	KindNameFieldIndex        = "field-index"
	KindNameSegmentIndex      = "segment-index"
	KindNameConfig            = "config"
)

// Tombstone is the decoded view of a rootcoord tombstone value.
type Tombstone struct {
	Tombstone bool `json:"tombstone"`
}

// ConfigEntry is the decoded view of a key of Milvus's etcd config source.
type ConfigEntry struct {
	Key          string `json:"key"`
	FormattedKey string `json:"formatted_key"`
	Value        string `json:"value"`
	MQType       bool   `json:"mq_type_override"`
}

// DecodeAny decodes the value of an absolute key with the model of its key
// kind. kind is "" when heron does not know the key's kind; err is set when
// the kind is known but the value does not decode as it.
func DecodeAny(l Layout, abs string, value []byte, lease int64) (kind string, view any, err error) {
	if rel, ok := l.Rel(abs); ok {
		return decodeMeta(rel, value, lease)
	}
	if key, ok := strings.CutPrefix(abs, l.Root(ConfigPrefix)); ok {
		return KindNameConfig, &ConfigEntry{Key: key, FormattedKey: FormatConfigKey(key), Value: string(value), MQType: IsMQTypeConfigKey(ConfigPrefix + key)}, nil
	}
	return "", nil, nil
}

func decodeMeta(rel string, v []byte, lease int64) (string, any, error) {
	k := Classify(rel)
	switch k.Kind {
	case KindConsumeCheckpoint:
		return view(KindNameConsumeCheckpoint, v, DecodeWALCheckpoint)
	case KindSegmentAssign:
		return view(KindNameSegmentAssign, v, DecodeSegmentAssignmentMeta)
	case KindChannelCP:
		return view(KindNameChannelCP, v, DecodePosition)
	case KindChannelRemoval:
		return KindNameChannelRemoval, string(v), nil
	case KindCollectionInfo, KindLegacyCollection, KindSnapshotCollection:
		return tombstoned(KindNameCollectionInfo, v, DecodeCollectionInfo)
	case KindSegment:
		return view(KindNameSegment, v, DecodeSegmentInfo)
	case KindQueryTarget:
		return view(KindNameQueryTarget, v, DecodeCollectionTarget)
	case KindChannelWatch:
		if _, _, ok := ParseChannelWatchKey(rel); ok {
			return view(KindNameChannelWatch, v, DecodeChannelWatchInfo)
		}
	case KindBroadcastTask:
		return view(KindNameBroadcastTask, v, DecodeBroadcastTask)
	case KindPChannel:
		return view(KindNamePChannel, v, DecodePChannelMeta)
	case KindSession:
		if rel == SessionIDKey {
			return "", nil, nil
		}
		s, err := DecodeSession(rel, v, lease)
		return KindNameSession, s, err
	}
	if _, ok := ParseDatabaseKey(rel); ok {
		return tombstoned(KindNameDatabase, v, DecodeDatabaseInfo)
	}
	if _, _, ok := ParsePartitionKey(rel); ok {
		return tombstoned(KindNamePartition, v, DecodePartitionInfo)
	}
	if _, _, ok := ParseReplicaKey(rel); ok {
		return view(KindNameReplica, v, DecodeReplica)
	}
	if _, _, ok := ParseFieldIndexKey(rel); ok {
		return view(KindNameFieldIndex, v, DecodeFieldIndex)
	}
	if _, ok := ParseSegmentIndexKey(rel); ok {
		return view(KindNameSegmentIndex, v, DecodeSegmentIndex)
	}
	return "", nil, nil
}

// view runs a typed decoder; a failed decode yields no view (not a typed nil).
func view[T any](kind string, b []byte, decode func([]byte) (*T, error)) (string, any, error) {
	t, err := decode(b)
	if err != nil {
		return kind, nil, err
	}
	return kind, t, nil
}

// tombstoned is view for the rootcoord kinds whose dropped entries hold the
// tombstone value instead of protobuf.
func tombstoned[T any](kind string, b []byte, decode func([]byte) (*T, error)) (string, any, error) {
	if IsTombstone(b) {
		return kind, &Tombstone{Tombstone: true}, nil
	}
	return view(kind, b, decode)
}
