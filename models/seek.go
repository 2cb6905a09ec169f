package models

import (
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
)

// SeekLevel names where datacoord takes a vchannel's seek position from.
type SeekLevel string

const (
	SeekChannelCP       SeekLevel = "channel-cp"
	SeekSegment         SeekLevel = "segment"
	SeekCollectionStart SeekLevel = "collection-start"
	SeekNone            SeekLevel = "none"
)

// Seek is the position datacoord would seek a vchannel to, and where it came from.
type Seek struct {
	VChannel   string
	PChannel   string
	Collection int64
	Level      SeekLevel
	// Source is the key (relative to the meta root) the position was read from.
	Source   string
	Position *msgpb.MsgPosition
}

type candidate struct {
	pos *msgpb.MsgPosition
	key string
}

// SeekResolver applies datacoord's three-level fallback while keys stream by:
// channel-cp, else the smallest-timestamp position of the vchannel's segments
// that are neither Dropped nor importing, else the collection's start position.
// It holds one entry per vchannel, never per segment.
type SeekResolver struct {
	channelCP   map[string]candidate
	segment     map[string]candidate
	collections map[string]collectionStart
	order       []string
	seen        map[string]bool
}

type collectionStart struct {
	collection int64
	key        string
	pos        *msgpb.MsgPosition
}

// NewSeekResolver returns an empty resolver.
func NewSeekResolver() *SeekResolver {
	return &SeekResolver{
		channelCP:   map[string]candidate{},
		segment:     map[string]candidate{},
		collections: map[string]collectionStart{},
		seen:        map[string]bool{},
	}
}

func (r *SeekResolver) note(v string) {
	if !r.seen[v] {
		r.seen[v] = true
		r.order = append(r.order, v)
	}
}

// AddCollection records the vchannels of a collection and their start positions.
func (r *SeekResolver) AddCollection(rel string, c *CollectionInfo) {
	for _, v := range c.VChannels {
		r.note(v)
		cs := collectionStart{collection: c.ID, key: rel}
		if sp, ok := c.StartPositionOf(v); ok {
			cs.pos = &msgpb.MsgPosition{ChannelName: v, MsgID: sp.Data, Timestamp: c.CreateTime}
		}
		if _, dup := r.collections[v]; !dup || cs.pos != nil {
			r.collections[v] = cs
		}
	}
}

// AddChannelCP records a vchannel's channel checkpoint.
func (r *SeekResolver) AddChannelCP(rel, vchannel string, p *msgpb.MsgPosition) {
	r.note(vchannel)
	r.channelCP[vchannel] = candidate{pos: p, key: rel}
}

// AddSegment records a segment's candidate position for its vchannel.
func (r *SeekResolver) AddSegment(rel string, s *SegmentInfo) {
	if s.InsertChannel == "" {
		return
	}
	r.note(s.InsertChannel)
	p, _ := s.SeekCandidate()
	if p == nil {
		return
	}
	if cur, ok := r.segment[s.InsertChannel]; !ok || p.GetTimestamp() < cur.pos.GetTimestamp() {
		r.segment[s.InsertChannel] = candidate{pos: p, key: rel}
	}
}

// Seeks returns the resolved seek position of every vchannel seen, in the
// order they were first seen.
func (r *SeekResolver) Seeks() []Seek {
	out := make([]Seek, 0, len(r.order))
	for _, v := range r.order {
		s := Seek{VChannel: v, PChannel: PChannelOf(v), Level: SeekNone}
		cs, hasColl := r.collections[v]
		if hasColl {
			s.Collection = cs.collection
		}
		if c, ok := r.channelCP[v]; ok {
			s.Level, s.Source, s.Position = SeekChannelCP, c.key, c.pos
		} else if c, ok := r.segment[v]; ok {
			s.Level, s.Source, s.Position = SeekSegment, c.key, c.pos
		} else if hasColl && cs.pos != nil {
			s.Level, s.Source, s.Position = SeekCollectionStart, cs.key, cs.pos
		}
		out = append(out, s)
	}
	return out
}
