package apply

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// requestCodec is grpc's proto codec but for the requests etcd's client
// sends, which are gogo-protobuf messages that marshal themselves: grpc's
// codec reaches them through protobuf-go's legacy wrapper, which marshals
// the whole request once to learn its size and again into a pooled buffer
// that it clears whole first (1 MiB for any request over 32 KiB: every
// write transaction). requestCodec marshals such a request once, to the
// same bytes (the wrapper calls the same Marshal). Answers are read by
// grpc's codec.
type requestCodec struct{ encoding.CodecV2 }

// selfMarshaler is a gogo-protobuf message (every etcdserverpb request).
type selfMarshaler interface{ Marshal() ([]byte, error) }

func (c requestCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(selfMarshaler)
	if !ok {
		return c.CodecV2.Marshal(v)
	}
	b, err := m.Marshal()
	if err != nil {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

// forceRequestCodec is the call option of every call heron makes to etcd
// (DialOptions).
func forceRequestCodec() grpc.CallOption {
	return grpc.ForceCodecV2(requestCodec{encoding.GetCodecV2(proto.Name)})
}
