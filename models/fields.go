package models

import (
	"fmt"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v3/msgpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/heron-shell/heron/models/wire"
)

// KeyValue is a commonpb.KeyValuePair (properties, index and type params).
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// keyValues decodes every occurrence of the repeated commonpb.KeyValuePair field num.
func keyValues(m *wire.Message, num protowire.Number, what string) ([]KeyValue, error) {
	out := []KeyValue{}
	for _, f := range m.All(num) {
		if f.Type != protowire.BytesType {
			return nil, fmt.Errorf("%s: wire type %d, want a message", what, f.Type)
		}
		var kv commonpb.KeyValuePair
		if err := proto.Unmarshal(f.Payload, &kv); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, KeyValue{Key: kv.GetKey(), Value: kv.GetValue()})
	}
	return out, nil
}

// int64s decodes the repeated int64 field num, packed (as proto3 writes it)
// or not (as a proto2 writer or an older encoder may).
func int64s(m *wire.Message, num protowire.Number, what string) ([]int64, error) {
	out := []int64{}
	for _, f := range m.All(num) {
		switch f.Type {
		case protowire.VarintType:
			out = append(out, int64(f.Varint))
		case protowire.BytesType:
			for b := f.Payload; len(b) > 0; {
				v, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return nil, fmt.Errorf("%s: bad packed varint: %w", what, protowire.ParseError(n))
				}
				out = append(out, int64(v))
				b = b[n:]
			}
		default:
			return nil, fmt.Errorf("%s: wire type %d, want varints", what, f.Type)
		}
	}
	return out, nil
}

// sub parses the message field num; nil when absent.
func sub(m *wire.Message, num protowire.Number, what string) (*wire.Message, error) {
	s, err := m.Sub(num)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return s, nil
}

// position decodes the msgpb.MsgPosition field num of m; nil when absent.
func position(m *wire.Message, num protowire.Number, what string) (*msgpb.MsgPosition, error) {
	f, ok := m.Get(num)
	if !ok {
		return nil, nil
	}
	if f.Type != protowire.BytesType {
		return nil, fmt.Errorf("%s: wire type %d, want a message", what, f.Type)
	}
	p, err := DecodePosition(f.Payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return p, nil
}
