// Package s3test starts an in-process S3 server (gofakes3, in-memory) for
// tests: one per call, on a free loopback port, stopped by t.Cleanup.
package s3test

import (
	"bytes"
	"io"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is a running fake S3 server.
type Server struct {
	// Address is host:port, what --minio-address takes.
	Address string
	backend *backend
	t       testing.TB
}

// backend is the in-memory backend whose multi-object deletes of keys
// under failPrefix fail (FailDeletes), the others going through.
type backend struct {
	*s3mem.Backend
	mu         sync.Mutex
	failPrefix string
}

func (b *backend) split(objects []gofakes3.ObjectID) (ok []gofakes3.ObjectID, failed []gofakes3.ErrorResult) {
	b.mu.Lock()
	prefix := b.failPrefix
	b.mu.Unlock()
	for _, o := range objects {
		if prefix != "" && strings.HasPrefix(o.Key, prefix) {
			failed = append(failed, gofakes3.ErrorResult{Key: o.Key, Code: gofakes3.ErrInternal, Message: "the test fails deletes under " + prefix})
			continue
		}
		ok = append(ok, o)
	}
	return ok, failed
}

// DeleteMultiVersions is what gofakes3 calls for a multi-object delete.
func (b *backend) DeleteMultiVersions(bucket string, objects ...gofakes3.ObjectID) (gofakes3.MultiDeleteResult, error) {
	ok, failed := b.split(objects)
	res, err := b.Backend.DeleteMultiVersions(bucket, ok...)
	res.Error = append(res.Error, failed...)
	return res, err
}

// DeleteMulti is the same without versions.
func (b *backend) DeleteMulti(bucket string, objects ...string) (gofakes3.MultiDeleteResult, error) {
	ids := make([]gofakes3.ObjectID, len(objects))
	for i, o := range objects {
		ids[i] = gofakes3.ObjectID{Key: o}
	}
	return b.DeleteMultiVersions(bucket, ids...)
}

// Start starts a server with the given buckets.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	backend := &backend{Backend: s3mem.New()}
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

// FailDeletes makes every later multi-object delete of a key under prefix
// fail (the other keys of the request are deleted); "" ends it.
func (s *Server) FailDeletes(prefix string) {
	s.backend.mu.Lock()
	defer s.backend.mu.Unlock()
	s.backend.failPrefix = prefix
}

// RemoveBucket removes bucket and everything in it (a bucket gone between
// a plan and its run).
func (s *Server) RemoveBucket(bucket string) {
	s.t.Helper()
	if err := s.backend.ForceDeleteBucket(bucket); err != nil {
		s.t.Fatalf("s3test: remove bucket %s: %v", bucket, err)
	}
}
