package instance

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/tests/etcdtest"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startEtcd starts an embedded etcd whose --max-request-bytes is maxRequest
// (0: etcd's default, 1.5 MiB).
func startEtcd(t *testing.T, maxRequest uint) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.Name = "big"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client, _ := url.Parse("http://" + freeAddr(t))
	peer, _ := url.Parse("http://" + freeAddr(t))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	if maxRequest > 0 {
		cfg.MaxRequestBytes = maxRequest
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		t.Fatal("etcd not ready")
	}
	return client.Host
}

func kvs(pairs ...string) func(yield func(string, []byte) bool) {
	return func(yield func(string, []byte) bool) {
		for i := 0; i+1 < len(pairs); i += 2 {
			if !yield(pairs[i], []byte(pairs[i+1])) {
				return
			}
		}
	}
}

func TestLoadBatches(t *testing.T) {
	cli, ep := etcdtest.Start(t)
	ctx := context.Background()
	in := New(cli, models.NewLayout("by-dev", "meta"), []string{ep})
	before, err := in.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for i := range 300 {
		pairs = append(pairs, fmt.Sprintf("by-dev/meta/k/%04d", i), fmt.Sprint(i))
	}
	rev, err := in.Load(ctx, kvs(pairs...))
	if err != nil {
		t.Fatal(err)
	}
	// One revision per transaction: 300 puts in batches of at most 128.
	if rev-before != 3 {
		t.Fatalf("300 keys took %d transactions, want 3 (at most %d puts each)", rev-before, LoadBatchOps)
	}
	resp, err := cli.Get(ctx, "by-dev/meta/k/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 300 {
		t.Fatalf("count %v, %v", resp, err)
	}
	// Values of 700 KiB: a batch closes before it passes 1 MiB (etcd's
	// default request limit is 1.5 MiB).
	big := strings.Repeat("v", 700<<10)
	rev2, err := in.Load(ctx, kvs("by-dev/meta/b/1", big, "by-dev/meta/b/2", big, "by-dev/meta/b/3", big))
	if err != nil {
		t.Fatal(err)
	}
	if rev2-rev != 3 {
		t.Fatalf("3 values of 700 KiB took %d transactions, want 3", rev2-rev)
	}
	if r, err := in.Load(ctx, kvs()); err != nil || r != 0 {
		t.Fatalf("empty load: %d, %v", r, err)
	}
}

// TestDialSendLimitFitsLargeValues: issue 9 item 4. clientv3's default send
// limit (2 MiB) refused a 5 MiB value that an etcd started with
// --max-request-bytes 16777216 accepts; the dialed client sends it, and
// against etcd's default limit the refusal is the server's.
func TestDialSendLimitFitsLargeValues(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	layout := models.NewLayout("by-dev", "meta")
	value := strings.Repeat("x", 5<<20)
	key := layout.Meta("datacoord-meta/s/1/2/3")

	in, err := Dial(ctx, DialConfig{Endpoints: []string{startEtcd(t, 16<<20)}}, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Load(ctx, kvs(key, value)); err != nil {
		t.Fatalf("a 5 MiB value under a 16 MiB server limit: %v", err)
	}
	kv, ok, err := in.Get(ctx, key, 0)
	if err != nil || !ok || len(kv.Value) != len(value) {
		t.Fatalf("read back: ok=%v len=%d err=%v", ok, len(kv.Value), err)
	}

	small, err := Dial(ctx, DialConfig{Endpoints: []string{startEtcd(t, 0)}}, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	_, err = small.Load(ctx, kvs(key, value))
	// The server refuses in its gRPC layer (its limit is --max-request-bytes
	// plus 512 KiB) or in etcdserver; the client would say "trying to send".
	if err == nil || !(strings.Contains(err.Error(), "received message larger than max") ||
		strings.Contains(err.Error(), "etcdserver: request is too large")) || strings.Contains(err.Error(), "trying to send") {
		t.Fatalf("want the server's refusal, got %v", err)
	}
	if !strings.Contains(err.Error(), key) {
		t.Fatalf("the error names the key: %v", err)
	}
}
