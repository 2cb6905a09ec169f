// Package etcdtest starts an embedded etcd server for tests: one per call, in
// a temporary directory, on free loopback ports, stopped by t.Cleanup.
package etcdtest

import (
	"net"
	"net/url"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Start starts an embedded etcd and returns a client connected to it and its
// client endpoint ("127.0.0.1:PORT"). Server and client are closed when the
// test ends.
func Start(t testing.TB) (*clientv3.Client, string) {
	t.Helper()
	var (
		e   *embed.Etcd
		err error
	)
	// A free port found by listening can be taken by someone else before
	// etcd binds it: retry a few times.
	for attempt := 0; attempt < 5; attempt++ {
		e, err = startOnce(t)
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("etcdtest: start embedded etcd: %v", err)
	}
	endpoint := e.Clients[0].Addr().String()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{endpoint},
		DialTimeout: 5 * time.Second,
	})
	if err != nil {
		e.Close()
		t.Fatalf("etcdtest: client for %s: %v", endpoint, err)
	}
	t.Cleanup(func() {
		_ = cli.Close()
		e.Close()
	})
	return cli, endpoint
}

func startOnce(t testing.TB) (*embed.Etcd, error) {
	clientURL, err := freeURL()
	if err != nil {
		return nil, err
	}
	peerURL, err := freeURL()
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.Name = "etcdtest"
	cfg.LogLevel = "error"
	cfg.Logger = "zap"
	// Even at level error, a closing server logs its listeners' errors:
	// keep test output clean (start failures come back from StartEtcd).
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.Name + "=" + peerURL.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, err
	case <-time.After(30 * time.Second):
		e.Server.Stop()
		e.Close()
		return nil, errTimeout
	}
}

type timeoutError struct{}

func (timeoutError) Error() string { return "embedded etcd not ready after 30s" }

var errTimeout error = timeoutError{}

func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	return &url.URL{Scheme: "http", Host: addr}, nil
}
