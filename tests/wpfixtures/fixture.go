// Package main writes woodpecker metadata and data with the real woodpecker client
// (github.com/zilliztech/woodpecker, see go.mod) against an embedded etcd and an in-process
// S3 server, and dumps every etcd key and every object key as JSON test data for heron.
package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/zilliztech/woodpecker/common/config"
	"github.com/zilliztech/woodpecker/common/objectstorage"
	"github.com/zilliztech/woodpecker/woodpecker"
	wplog "github.com/zilliztech/woodpecker/woodpecker/log"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

// Bucket is the bucket every scenario writes to (Milvus's default minio.bucketName).
const Bucket = "a-bucket"

// Env is one embedded etcd plus one in-process S3 server.
type Env struct {
	Etcd     *embed.Etcd
	Client   *clientv3.Client
	S3       *httptest.Server
	S3Host   string
	S3Port   int
	Backend  *s3mem.Backend
	stopEtcd func()
}

// StartEnv starts an embedded etcd in dir and an in-memory S3 server with Bucket created.
func StartEnv(dir string) (*Env, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.LogLevel = "error"
	peer, err := freeURL()
	if err != nil {
		return nil, err
	}
	client, err := freeURL()
	if err != nil {
		return nil, err
	}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		return nil, fmt.Errorf("etcd not ready after 30s")
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{client.String()}, DialTimeout: 5 * time.Second})
	if err != nil {
		e.Close()
		return nil, err
	}
	backend := s3mem.New()
	if err := backend.CreateBucket(Bucket); err != nil {
		return nil, err
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	host, portStr, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	port, _ := strconv.Atoi(portStr)
	return &Env{Etcd: e, Client: cli, S3: srv, S3Host: host, S3Port: port, Backend: backend,
		stopEtcd: func() { cli.Close(); e.Close() }}, nil
}

// Close stops both servers.
func (e *Env) Close() {
	e.S3.Close()
	e.stopEtcd()
}

// EtcdEndpoint is the client URL of the embedded etcd.
func (e *Env) EtcdEndpoint() string { return e.Etcd.Clients[0].Addr().String() }

// Config is woodpecker's configuration as Milvus builds it (builder.go @pkg/v2 v2.6.23:
// Etcd.RootPath = etcd.rootPath, Minio.RootPath = minio.rootPath + "/wp", storage minio).
func (e *Env) Config(etcdRoot, minioRoot string) (*config.Configuration, error) {
	cfg, err := config.NewConfiguration()
	if err != nil {
		return nil, err
	}
	cfg.Etcd.Endpoints = []string{e.EtcdEndpoint()}
	cfg.Etcd.RootPath = etcdRoot
	cfg.Minio.Address = e.S3Host
	cfg.Minio.Port = e.S3Port
	cfg.Minio.BucketName = Bucket
	cfg.Minio.CreateBucket = false
	cfg.Minio.RootPath = minioRoot + "/wp"
	cfg.Minio.AccessKeyID = "minioadmin"
	cfg.Minio.SecretAccessKey = "minioadmin"
	cfg.Woodpecker.Storage.Type = "minio"
	cfg.Woodpecker.Logstore.FencePolicy.ConditionWrite = "disable"
	cfg.Log.Level = "warn"
	return cfg, nil
}

// Open returns an embedded woodpecker client (the one Milvus's streaming node uses).
func (e *Env) Open(ctx context.Context, cfg *config.Configuration) (woodpecker.Client, error) {
	return woodpecker.NewEmbedClient(ctx, cfg, e.Client, mustStorage(ctx, cfg), false)
}

// WriteEntries creates logName when missing and writes n entries in one writer session
// (one segment), leaving the writer open. It returns the id of the last entry.
func WriteEntries(ctx context.Context, c woodpecker.Client, logName string, n int, tag string) (*wplog.LogMessageId, error) {
	fmt.Fprintf(os.Stderr, "fixture: exists %s\n", logName)
	ok, err := c.LogExists(ctx, logName)
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := c.CreateLog(ctx, logName); err != nil {
			return nil, fmt.Errorf("create %s: %w", logName, err)
		}
	}
	fmt.Fprintf(os.Stderr, "fixture: write %d to %s\n", n, logName)
	h, err := c.OpenLog(ctx, logName)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", logName, err)
	}
	w, err := h.OpenLogWriter(ctx)
	if err != nil {
		return nil, fmt.Errorf("writer %s: %w", logName, err)
	}
	var last *wplog.LogMessageId
	for i := 0; i < n; i++ {
		r := w.Write(ctx, &wplog.WriteMessage{Payload: []byte(fmt.Sprintf("%s %s #%d", tag, logName, i)), Properties: map[string]string{"k": "v"}})
		if r.Err != nil {
			return nil, fmt.Errorf("write %s: %w", logName, r.Err)
		}
		last = r.LogMessageId
		fmt.Fprintf(os.Stderr, "fixture: wrote %s %d:%d\n", logName, last.SegmentId, last.EntryId)
	}
	// The writer stays open, as a streaming node stopped without a clean
	// shutdown leaves it: closing it with the fake S3 server blocks in the
	// segment's completion (fence) on this version.
	return last, nil
}

// ReadFirst opens a reader at the earliest id and returns the first entry's payload.
func ReadFirst(ctx context.Context, c woodpecker.Client, logName string) (string, error) {
	h, err := c.OpenLog(ctx, logName)
	if err != nil {
		return "", err
	}
	earliest := wplog.EarliestLogMessageID()
	r, err := h.OpenLogReader(ctx, &earliest, "heron-fixture-reader")
	if err != nil {
		return "", err
	}
	defer r.Close(ctx)
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	m, err := r.ReadNext(rctx)
	if err != nil {
		return "", err
	}
	return string(m.Payload), nil
}

// Dump is every etcd key (base64 value, mod revision) and every object of Bucket.
type Dump struct {
	Scenario string       `json:"scenario"`
	Notes    []string     `json:"notes"`
	Etcd     []EtcdKV     `json:"etcd"`
	Objects  []ObjectInfo `json:"objects"`
}

// EtcdKV is one etcd key.
type EtcdKV struct {
	Key   string `json:"key"`
	Value string `json:"value_base64"`
}

// ObjectInfo is one object of the bucket.
type ObjectInfo struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
	Data string `json:"data_base64,omitempty"`
}

// Snapshot reads every etcd key and every object (with its bytes, so tests can seed them).
func (e *Env) Snapshot(ctx context.Context) ([]EtcdKV, []ObjectInfo, error) {
	resp, err := e.Client.Get(ctx, "", clientv3.WithFromKey())
	if err != nil {
		return nil, nil, err
	}
	var kvs []EtcdKV
	for _, kv := range resp.Kvs {
		kvs = append(kvs, EtcdKV{Key: string(kv.Key), Value: base64.StdEncoding.EncodeToString(kv.Value)})
	}
	list, err := e.Backend.ListBucket(Bucket, &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil {
		return nil, nil, err
	}
	var objs []ObjectInfo
	for _, c := range list.Contents {
		obj, err := e.Backend.GetObject(Bucket, c.Key, nil)
		if err != nil {
			return nil, nil, err
		}
		buf := make([]byte, obj.Size)
		if _, err := io.ReadFull(obj.Contents, buf); err != nil {
			return nil, nil, err
		}
		obj.Contents.Close()
		objs = append(objs, ObjectInfo{Key: c.Key, Size: c.Size, Data: base64.StdEncoding.EncodeToString(buf)})
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
	return kvs, objs, nil
}

func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse("http://" + l.Addr().String())
}

func mustStorage(ctx context.Context, cfg *config.Configuration) objectstorage.ObjectStorage {
	s, err := objectstorage.NewObjectStorage(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "object storage:", err)
		os.Exit(1)
	}
	return s
}
