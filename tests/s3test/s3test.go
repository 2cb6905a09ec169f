// Package s3test starts an in-process S3 server (gofakes3, in-memory) for
// tests: one per call, on a free loopback port, stopped by t.Cleanup.
package s3test

import (
	"bytes"
	"io"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is a running fake S3 server.
type Server struct {
	// Address is host:port, what --minio-address takes.
	Address string
	backend *s3mem.Backend
	t       testing.TB
}

// Start starts a server with the given buckets.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		if err := backend.CreateBucket(b); err != nil {
			t.Fatalf("s3test: create bucket %s: %v", b, err)
		}
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return &Server{Address: strings.TrimPrefix(srv.URL, "http://"), backend: backend, t: t}
}

// Put stores an object.
func (s *Server) Put(bucket, key string, data []byte) {
	s.t.Helper()
	if _, err := s.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		s.t.Fatalf("s3test: put %s/%s: %v", bucket, key, err)
	}
}

// Objects returns every object of bucket: key -> bytes.
func (s *Server) Objects(bucket string) map[string][]byte {
	s.t.Helper()
	list, err := s.backend.ListBucket(bucket, &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil {
		s.t.Fatalf("s3test: list %s: %v", bucket, err)
	}
	out := map[string][]byte{}
	for _, c := range list.Contents {
		obj, err := s.backend.GetObject(bucket, c.Key, nil)
		if err != nil {
			s.t.Fatalf("s3test: get %s/%s: %v", bucket, c.Key, err)
		}
		b, err := io.ReadAll(obj.Contents)
		obj.Contents.Close()
		if err != nil {
			s.t.Fatalf("s3test: read %s/%s: %v", bucket, c.Key, err)
		}
		out[c.Key] = b
	}
	return out
}

// Keys returns the sorted keys of bucket.
func (s *Server) Keys(bucket string) []string {
	var keys []string
	for k := range s.Objects(bucket) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
