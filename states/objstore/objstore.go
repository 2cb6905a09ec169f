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

// Delete deletes keys (batched by the client) and returns the first failure.
func (s *Store) Delete(ctx context.Context, keys []string) error {
	ch := make(chan minio.ObjectInfo)
	go func() {
		defer close(ch)
		for _, k := range keys {
			select {
			case ch <- minio.ObjectInfo{Key: k}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var first error
	n := 0
	for e := range s.client.RemoveObjects(ctx, s.cfg.Bucket, ch, minio.RemoveObjectsOptions{}) {
		n++
		if first == nil {
			first = fmt.Errorf("delete %s/%s: %w", s.cfg.Bucket, e.ObjectName, e.Err)
		}
	}
	if first != nil {
		return fmt.Errorf("%d of %d objects not deleted, first: %w", n, len(keys), first)
	}
	return ctx.Err()
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
