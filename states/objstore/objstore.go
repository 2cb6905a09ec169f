// Package objstore is heron's boundary to object storage (MinIO, S3 and
// compatible services): the one place that talks to a bucket, with
// minio-go v7.0.73 (the version Milvus and woodpecker pin). It lists and
// deletes the objects of woodpecker's logs; which keys belong to
// woodpecker's layout is decided in models (ClassifyWPObject).
package objstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/heron-shell/heron/models"
)

// Config is where Milvus keeps woodpecker's objects: Milvus's minio.address
// (host:port), minio.bucketName, minio.rootPath and credentials.
type Config struct {
	Address         string
	Bucket          string
	RootPath        string
	AccessKeyID     string
	SecretAccessKey string
	UseSSL          bool
}

// Describe names the location without credentials: "a-bucket/files/wp on
// host:9000".
func (c Config) Describe() string {
	return fmt.Sprintf("bucket %s, %s/ on %s", c.Bucket, models.WoodpeckerObjectBase(c.RootPath), c.Address)
}

// Store is a connected bucket.
type Store struct {
	cfg    Config
	client *minio.Client
}

// Object is one object: its key and size.
type Object struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
}

// Open connects to the bucket and checks that it exists: a bucket that does
// not exist is an error that names it (deleting nothing from a wrong bucket
// would otherwise look like success).
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Address == "" {
		return nil, errors.New("no object storage address")
	}
	if cfg.Bucket == "" {
		return nil, errors.New("no bucket")
	}
	if strings.Contains(cfg.Address, "://") {
		return nil, fmt.Errorf("object storage address %q: give host:port (use --minio-use-ssl for https)", cfg.Address)
	}
	client, err := minio.New(cfg.Address, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKeyID, cfg.SecretAccessKey, ""),
		Secure: cfg.UseSSL,
	})
	if err != nil {
		return nil, fmt.Errorf("object storage %s: %w", cfg.Address, err)
	}
	ok, err := client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("object storage %s: bucket %s: %w", cfg.Address, cfg.Bucket, err)
	}
	if !ok {
		return nil, fmt.Errorf("object storage %s: bucket %s does not exist (check --minio-bucket: Milvus's minio.bucketName)", cfg.Address, cfg.Bucket)
	}
	return &Store{cfg: cfg, client: client}, nil
}

// Config is the store's configuration.
func (s *Store) Config() Config { return s.cfg }

// List lists every object under prefix, sorted by key.
func (s *Store) List(ctx context.Context, prefix string) ([]Object, error) {
	var out []Object
	for info := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if info.Err != nil {
			return nil, fmt.Errorf("list %s/%s: %w", s.cfg.Bucket, prefix, info.Err)
		}
		out = append(out, Object{Key: info.Key, Size: info.Size})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// deleteBatch is the most keys one multi-object delete request carries
// (S3's limit).
const deleteBatch = 1000

// Delete deletes keys, a request of at most 1000 at a time, calling done
// with the number deleted after each request, and returns the first
// failure: the keys of the failing request that did go were deleted (and
// counted), no later request is sent.
func (s *Store) Delete(ctx context.Context, keys []string, done func(n int64)) error {
	for len(keys) > 0 {
		n := min(len(keys), deleteBatch)
		batch := keys[:n]
		keys = keys[n:]
		ch := make(chan minio.ObjectInfo, len(batch))
		for _, k := range batch {
			ch <- minio.ObjectInfo{Key: k}
		}
		close(ch)
		var first error
		failed := map[string]bool{}
		whole := false // the request failed: it deleted nothing
		for e := range s.client.RemoveObjects(ctx, s.cfg.Bucket, ch, minio.RemoveObjectsOptions{}) {
			failed[e.ObjectName] = true
			switch {
			case e.ObjectName == "":
				if !whole {
					first = fmt.Errorf("delete in bucket %s: %w", s.cfg.Bucket, e.Err)
				}
				whole = true
			case first == nil:
				first = fmt.Errorf("delete %s/%s: %w", s.cfg.Bucket, e.ObjectName, e.Err)
			}
		}
		deleted := n - len(failed)
		if whole {
			deleted = 0
		}
		if done != nil {
			done(int64(deleted))
		}
		if first != nil {
			return fmt.Errorf("%d of %d objects of a request not deleted, first: %w", n-deleted, n, first)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// LogObjects are the objects under one log's folder {root}/wp/{logId}/.
type LogObjects struct {
	Prefix string `json:"prefix"`
	// Layout are the objects of woodpecker's layout (deleted when the log is
	// emptied), Bytes their total size.
	Layout []Object `json:"-"`
	Count  int      `json:"count"`
	Bytes  int64    `json:"bytes"`
	// Foreign are the other objects found there: reported, never deleted.
	Foreign []Object `json:"foreign,omitempty"`
}

// Log lists the objects of the log with id logID and classifies them.
func (s *Store) Log(ctx context.Context, logID int64) (LogObjects, error) {
	prefix := models.WoodpeckerLogObjectPrefix(s.cfg.RootPath, logID)
	objs, err := s.List(ctx, prefix)
	if err != nil {
		return LogObjects{}, err
	}
	return Classify(prefix, objs), nil
}

// Classify splits the objects under a log's folder into woodpecker's layout
// and the rest.
func Classify(prefix string, objs []Object) LogObjects {
	lo := LogObjects{Prefix: prefix}
	for _, o := range objs {
		if kind, _ := models.ClassifyWPObject(prefix, o.Key); kind == models.WPObjectForeign {
			lo.Foreign = append(lo.Foreign, o)
			continue
		}
		lo.Layout = append(lo.Layout, o)
		lo.Count++
		lo.Bytes += o.Size
	}
	return lo
}
