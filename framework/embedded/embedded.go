// Package embedded runs an etcd server inside the process, in a folder of its
// own, on free loopback ports: the demo's instance and the tests' etcd.
package embedded

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Server is a running embedded etcd.
type Server struct {
	etcd *embed.Etcd
}

// Options tune the server (the zero value: etcd's defaults).
type Options struct {
	// QuotaBackendBytes is etcd's --quota-backend-bytes: past it etcd raises
	// its NOSPACE alarm and refuses writes (0: 8 GiB, see startOnce).
	QuotaBackendBytes int64
	// MaxRequestBytes is etcd's --max-request-bytes: the largest request
	// (a transaction, measured as etcd's raft entry) it accepts (0: 1.5 MiB).
	MaxRequestBytes uint
}

// Start starts etcd with its data in dir. A free port found by listening can
// be taken before etcd binds it, so it retries a few times.
func Start(dir string) (*Server, error) { return StartWith(dir, Options{}) }

// StartWith is Start with options.
func StartWith(dir string, opt Options) (*Server, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var e *embed.Etcd
		if e, err = startOnce(dir, opt); err == nil {
			return &Server{etcd: e}, nil
		}
	}
	return nil, fmt.Errorf("start embedded etcd in %s: %w", dir, err)
}

// Endpoint is the client address, HOST:PORT.
func (s *Server) Endpoint() string { return s.etcd.Clients[0].Addr().String() }

// Close stops the server.
func (s *Server) Close() { s.etcd.Close() }

// Raft log and backend limits of the embedded member (see startOnce).
const (
	snapshotCount          = 100
	snapshotCatchUpEntries = 20
	quotaBackendBytes      = 8 << 30
)

func startOnce(dir string, opt Options) (*embed.Etcd, error) {
	clientURL, err := freeURL()
	if err != nil {
		return nil, err
	}
	peerURL, err := freeURL()
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Name = "heron-embedded"
	// The server's own log would interleave with the shell's output, and it
	// reports a normal shutdown as errors: heron reports failures itself.
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	// A single member has no follower to catch up: keep few raft entries in
	// memory. With etcd's defaults (a snapshot every 100,000 entries, 5,000
	// kept after it) a load-backup of 100k segments held the whole raft log
	// of its ~50 KiB transactions on the heap (hundreds of MiB).
	cfg.SnapshotCount = snapshotCount
	cfg.SnapshotCatchUpEntries = snapshotCatchUpEntries
	// A copy must hold what the original held: production quotas go to 8 GiB.
	cfg.QuotaBackendBytes = quotaBackendBytes
	if opt.QuotaBackendBytes > 0 {
		cfg.QuotaBackendBytes = opt.QuotaBackendBytes
	}
	if opt.MaxRequestBytes > 0 {
		cfg.MaxRequestBytes = opt.MaxRequestBytes
	}
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
		e.Close()
		return nil, errors.New("embedded etcd not ready after 30s")
	}
}

func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	return url.Parse("http://" + addr)
}
