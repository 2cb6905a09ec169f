// Package targetcheck asks the target WAL's own servers whether the topics a
// reset points Milvus at are fresh: Kafka through its protocol (franz-go,
// pure Go) and Pulsar through one admin REST call. It is the only place
// heron talks to Kafka or Pulsar; it reads nothing from etcd and writes
// nowhere (no topic is created: metadata requests do not auto-create).
package targetcheck

import (
	"fmt"
	"time"
)

// DefaultTimeout bounds a whole Kafka check (dial, authentication, every
// request) and each Pulsar request: an unreachable broker or admin endpoint
// fails within it.
const DefaultTimeout = 5 * time.Second

// dialTimeout bounds one TCP (and TLS) connection attempt.
const dialTimeout = 3 * time.Second

// States of a target topic.
const (
	// Absent: the topic does not exist; Milvus creates it fresh.
	Absent = "absent"
	// Empty: the topic exists and holds no record to replay.
	Empty = "empty"
	// NotEmpty: the topic holds records Milvus would replay from the
	// earliest position a reset writes.
	NotEmpty = "not empty"
)

// Topic is the state of one pchannel's topic on the target.
type Topic struct {
	PChannel string `json:"pchannel"`
	// Topic is the topic's full name: the pchannel for Kafka,
	// persistent://{tenant}/{namespace}/{pchannel} for Pulsar.
	Topic string `json:"topic"`
	State string `json:"state"`
	// Kafka: partition 0's low and high watermarks (records low..high-1
	// remain; low > 0 when retention deleted the first ones) and the
	// partition count (Milvus writes partition 0 only).
	LowWatermark  *int64 `json:"low_watermark,omitempty"`
	HighWatermark *int64 `json:"high_watermark,omitempty"`
	Partitions    int32  `json:"partitions,omitempty"`
	// Pulsar: the topic's numberOfEntries (internalStats), summed over its
	// partitions when it is partitioned (Partitions > 0).
	Entries *int64 `json:"entries,omitempty"`
	// PublicDefault is the same pchannel's topic under public/default, checked
	// as well when a release of the instance writes there whatever
	// pulsar.tenant/namespace say (or the release is unknown); Why says so.
	PublicDefault *Topic `json:"public_default,omitempty"`
	Why           string `json:"why,omitempty"`
}

// Fresh reports whether the topic, and its public/default twin when
// checked, hold nothing to replay.
func (t Topic) Fresh() bool {
	return t.State != NotEmpty && (t.PublicDefault == nil || t.PublicDefault.Fresh())
}

// Describe is the topic and its state in words, for gates and tables, with
// its public/default twin's.
func (t Topic) Describe() string {
	if t.PublicDefault != nil {
		return t.describe() + "; " + t.PublicDefault.describe()
	}
	return t.describe()
}

func (t Topic) describe() string {
	switch {
	case t.LowWatermark != nil && t.HighWatermark != nil:
		s := fmt.Sprintf("%s: %s (partition 0 watermarks low %d, high %d", t.Topic, t.State, *t.LowWatermark, *t.HighWatermark)
		if t.Partitions > 1 {
			s += fmt.Sprintf("; %d partitions", t.Partitions)
		}
		return s + ")"
	case t.Entries != nil && t.Partitions > 0:
		return fmt.Sprintf("%s: %s (partitioned: %d entries in %d partitions)", t.Topic, t.State, *t.Entries, t.Partitions)
	case t.Entries != nil:
		return fmt.Sprintf("%s: %s (%d entries)", t.Topic, t.State, *t.Entries)
	}
	return t.Topic + ": " + t.State
}

// Short is the state alone, with its numbers, for a table cell, and the
// public/default twin's when checked.
func (t Topic) Short() string {
	if t.PublicDefault != nil {
		return t.short() + "; public/default: " + t.PublicDefault.short()
	}
	return t.short()
}

func (t Topic) short() string {
	switch {
	case t.LowWatermark != nil && t.HighWatermark != nil:
		s := fmt.Sprintf("%s (low %d, high %d", t.State, *t.LowWatermark, *t.HighWatermark)
		if t.Partitions > 1 {
			s += fmt.Sprintf(", %d partitions", t.Partitions)
		}
		return s + ")"
	case t.Entries != nil && t.Partitions > 0:
		return fmt.Sprintf("%s (%d entries, %d partitions)", t.State, *t.Entries, t.Partitions)
	case t.Entries != nil:
		return fmt.Sprintf("%s (%d entries)", t.State, *t.Entries)
	}
	return t.State
}

func ptr(v int64) *int64 { return &v }
