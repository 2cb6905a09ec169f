package models

import (
	"strconv"
	"strings"
)

// Generation is which line of Milvus wrote an instance's metadata, as far as
// its keys tell.
type Generation string

const (
	// GenerationStreaming is Milvus 2.6 and later: a streaming node keeps a
	// consume checkpoint per pchannel (streamingnode-meta/) and the streaming
	// coordinator the pchannel list (streamingcoord-meta/).
	GenerationStreaming Generation = "streaming (2.6 or later)"
	// GenerationPreStreaming is Milvus 2.5 and older: datacoord positions
	// and channel watches but no streaming keys. Its datanodes seek from
	// channelwatch/{node}/{vchannel} positions, its msgstream seeks are
	// exclusive (a seek to offset 0 skips offset 0) and it has no woodpecker
	// MQ (validateMQType refuses mq.type=woodpecker at start): a 2.6 reset
	// does not model it.
	GenerationPreStreaming Generation = "pre-streaming (2.5 or older)"
	// GenerationEmpty: neither streaming keys nor datacoord positions.
	GenerationEmpty Generation = "unknown (no streaming keys and no datacoord positions)"
)

// StreamingMarkers are the prefixes (relative to the meta root) only a
// streaming (2.6+) instance writes.
var StreamingMarkers = []string{"streamingnode-meta/", "streamingcoord-meta/"}

// DatacoordMarkers are the prefixes (relative to the meta root) of
// datacoord positions every generation writes once it has a collection.
var DatacoordMarkers = []string{ChannelCPPrefix, SegmentPrefix, ChannelWatchPrefix}

// GenerationOf is the generation of an instance from how many keys it has
// under each prefix of StreamingMarkers and DatacoordMarkers (missing
// prefixes count 0). Streaming keys decide: a 2.6 instance keeps its
// datacoord positions too.
func GenerationOf(counts map[string]int64) Generation {
	for _, p := range StreamingMarkers {
		if counts[p] > 0 {
			return GenerationStreaming
		}
	}
	for _, p := range DatacoordMarkers {
		if counts[p] > 0 {
			return GenerationPreStreaming
		}
	}
	return GenerationEmpty
}

// PreStreamingWhy is why a 2.6 rewrite must not touch a pre-streaming
// instance, for messages.
const PreStreamingWhy = "Milvus 2.5 and older keep no consume checkpoints, their datanodes seek from channelwatch positions, their msgstream seeks are exclusive, and they have no woodpecker MQ (Milvus 2.5 refuses mq.type=woodpecker at start): heron's writes model Milvus 2.6 and later only"

// DescribeCounts renders marker counts as "channelwatch/ (3 keys), ...",
// skipping prefixes with none, in the order of prefixes.
func DescribeCounts(prefixes []string, counts map[string]int64) string {
	var parts []string
	for _, p := range prefixes {
		if n := counts[p]; n > 0 {
			parts = append(parts, p+" ("+strconv.FormatInt(n, 10)+" keys)")
		}
	}
	return strings.Join(parts, ", ")
}
