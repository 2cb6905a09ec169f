// Package etcdtest starts an embedded etcd server for tests: one per call, in
// a temporary directory, on free loopback ports, stopped by t.Cleanup.
package etcdtest

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework/embedded"
)

// Start starts an embedded etcd and returns a client connected to it and its
// client endpoint ("127.0.0.1:PORT"). Server and client are closed when the
// test ends.
func Start(t testing.TB) (*clientv3.Client, string) {
	t.Helper()
	return StartWith(t, embedded.Options{})
}

// StartWith is Start with server options (a small quota).
func StartWith(t testing.TB, opt embedded.Options) (*clientv3.Client, string) {
	t.Helper()
	srv, err := embedded.StartWith(t.TempDir(), opt)
	if err != nil {
		t.Fatalf("etcdtest: %v", err)
	}
	endpoint := srv.Endpoint()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		srv.Close()
		t.Fatalf("etcdtest: client for %s: %v", endpoint, err)
	}
	t.Cleanup(func() {
		_ = cli.Close()
		srv.Close()
	})
	return cli, endpoint
}
