package models

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/heron-shell/heron/models/wire"
)

// Cache is what Milvus holds in memory of a family of keys that a repair
// writes: the roles whose running process loads the keys at start and
// writes them back, so that a repair written under them is overwritten or
// never read. docs/repair.md gives the sources.
type Cache struct {
	// What names the keys ("channel checkpoints"), Keys their prefix.
	What, Keys string
	// Roles are the session roles (models.SessionRole) of the components
	// that cache them; 2.6's mixcoord runs the coordinators in one process.
	Roles []string
	// How says what each does with them, with the Milvus source read.
	How string
}

// The caches of what the repairs write (Milvus v2.6.23 and master; the
// files are milvus-io/milvus's).
var (
	// ChannelCheckpointCache: datacoord loads every channel-cp into
	// meta.channelCPs at start (internal/datacoord/meta.go reloadFromKV,
	// catalog.ListChannelCheckpoint) and answers seeks from memory; the
	// streaming node's flusher pushes its own position back through
	// UpdateChannelCheckpoint (internal/flushcommon/util
	// checkpoint_updater.go).
	ChannelCheckpointCache = Cache{What: "channel checkpoints", Keys: "datacoord-meta/channel-cp/",
		Roles: []string{"mixcoord", "datacoord", "streamingnode", "datanode"},
		How:   "datacoord (mixcoord) loads them at start and serves seeks from memory; the streaming node's flusher writes its position back"}
	// VChannelMetaCache: the streaming node's recovery storage reads every
	// vchannel meta and its schema timeline of a pchannel when it opens the
	// WAL (internal/streamingnode/server/wal/recovery
	// recovery_storage_impl.go, catalog ListVChannel) and persists its
	// in-memory copy back on every checkpoint.
	VChannelMetaCache = Cache{What: "vchannel metas and schemas", Keys: "streamingnode-meta/wal/{p}/vchannel/",
		Roles: []string{"streamingnode"},
		How:   "the streaming node reads them when it opens a pchannel's WAL and persists its in-memory copy back"}
	// BroadcastTaskCache: the streaming coordinator's broadcaster loads
	// every task at start (internal/streamingcoord/server/broadcaster
	// RecoverBroadcaster: catalog ListBroadcastTask, then
	// newBroadcastTaskManager), keeps it in memory and saves it on every ack.
	BroadcastTaskCache = Cache{What: "broadcast tasks", Keys: "streamingcoord-meta/broadcast-task/",
		Roles: []string{"mixcoord", "streamingcoord", "rootcoord"},
		How:   "the streaming coordinator (mixcoord) loads them at start, keeps them in memory and saves them on every ack"}
	// ReplicatePChannelCache: the streaming coordinator's replicate
	// service loads the replicating pchannels with the configuration at
	// start and rewrites them when the configuration changes
	// (internal/streamingcoord/server/balancer/channel manager.go).
	ReplicatePChannelCache = Cache{What: "replicating pchannels", Keys: "streamingcoord-meta/replicating-pchannel/",
		Roles: []string{"mixcoord", "streamingcoord"},
		How:   "the streaming coordinator (mixcoord) loads them with the replicate configuration at start and rewrites them when it changes"}
)

// BroadcastTaskKey is the key of broadcast task id.
func BroadcastTaskKey(id int64) string { return BroadcastTaskPrefix + itoa(id) }

// BroadcastTask fields (pkg/v2@v2.6.23 proto/streaming.proto BroadcastTask:
// message 1, state 2, acked_vchannel_bitmap 3 (deprecated), acked_checkpoints 4).
const (
	btBitmap protowire.Number = 3
)

// ResetBroadcastTask is a broadcast task made PENDING again with no vchannel
// acked, as its coordinator first stored it: the streaming coordinator then
// appends its message again to every vchannel of its broadcast header. The
// message and every other field keep their bytes; acked_checkpoints holds
// one empty entry per vchannel and the deprecated bitmap one zero byte per
// vchannel (what Milvus's broadcaster writes for a new task).
func ResetBroadcastTask(b []byte) ([]byte, error) {
	t, err := DecodeBroadcastTask(b)
	if err != nil {
		return nil, err
	}
	if t.MessageError != "" {
		return nil, fmt.Errorf("its message cannot be read (%s): heron cannot tell its vchannels", t.MessageError)
	}
	if len(t.VChannels) == 0 {
		return nil, fmt.Errorf("its message has no broadcast header: heron cannot tell its vchannels")
	}
	m, err := wire.Parse(b)
	if err != nil {
		return nil, err
	}
	m.SetVarint(btState, uint64(BroadcastPending))
	m.SetBytes(btBitmap, make([]byte, len(t.VChannels)))
	m.SetAll(btAckedCheckpoin, make([][]byte, len(t.VChannels)))
	return m.Bytes(), nil
}

// UnackedVChannels are the vchannels of a broadcast task's header that have
// not acked it: removing the task means they never see its message.
func (bt *BroadcastTask) UnackedVChannels() []string {
	var out []string
	for i, v := range bt.VChannels {
		if !bt.AckedVChannels[i] {
			out = append(out, v)
		}
	}
	return out
}
