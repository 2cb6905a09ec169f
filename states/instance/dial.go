package instance

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/models"
)

// MaxMessageBytes is the client's gRPC send and receive limit. etcd's own
// limits (--max-request-bytes, 1.5 MiB by default, plus gRPC's overhead) bound
// every request; a client limit below them (clientv3's default send limit is
// 2 MiB) would refuse an op of several MiB that the server accepts. Refusals
// of a too large op therefore come from the server, which names its limit.
const MaxMessageBytes = math.MaxInt32

// DialConfig is how to reach etcd; its fields mirror connect's flags, which
// errors name.
type DialConfig struct {
	// Endpoints are HOST:PORT or URLs (http://, https://, unix://).
	Endpoints []string
	// Timeout bounds the whole dial (0: configs.DefaultDialTimeout).
	Timeout time.Duration
	// TLS connects with TLS, verified with RootCAFile (else the system's
	// roots), presenting CertFile and KeyFile when set.
	TLS                           bool
	RootCAFile, CertFile, KeyFile string
	// UserName and Password authenticate with etcd's auth; no error repeats
	// the password.
	UserName, Password string
	// GRPC are extra options of the client's connection (the write kit's
	// watchdog hears every answer through one: apply.DialOptions).
	GRPC []grpc.DialOption
}

// Dial connects to etcd, proves the connection with a read under layout's
// meta root and returns the instance. Each failure says what answered (a
// refused port, an HTTP server, a TLS server, a certificate etcd refused)
// instead of waiting for the timeout when something answered. Errors name
// the addresses, never the password.
func Dial(ctx context.Context, cfg DialConfig, layout models.Layout) (*Instance, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("no etcd address")
	}
	for _, ep := range cfg.Endpoints {
		if err := CheckEndpoint(ep); err != nil {
			return nil, err
		}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = configs.DefaultDialTimeout
	}
	addrs := strings.Join(cfg.Endpoints, ",")
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ccfg := clientv3.Config{
		Endpoints:            cfg.Endpoints,
		DialTimeout:          timeout,
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 5 * time.Second,
		MaxCallSendMsgSize:   MaxMessageBytes,
		MaxCallRecvMsgSize:   MaxMessageBytes,
		Logger:               zap.NewNop(),
		DialOptions:          cfg.GRPC,
	}
	if cfg.TLS {
		tc, err := tlsConfig(cfg)
		if err != nil {
			return nil, err
		}
		ccfg.TLS = tc
	}
	if cfg.UserName != "" {
		ccfg.Username, ccfg.Password = cfg.UserName, cfg.Password
	}

	// A refused TCP connection fails at once instead of at the deadline.
	if err := probeTCP(ctx, cfg.Endpoints); err != nil {
		return nil, fmt.Errorf("cannot reach etcd at %s: %w", addrs, err)
	}
	if ccfg.TLS != nil {
		// So does a TLS handshake that fails (an untrusted CA, a client
		// certificate the server refuses): the gRPC client would only report
		// a deadline, without the reason.
		if err := probeTLS(ctx, cfg.Endpoints, ccfg.TLS); err != nil {
			var plain plainTextError
			if errors.As(err, &plain) {
				return nil, plain
			}
			return nil, fmt.Errorf("TLS handshake with etcd at %s failed: %w (check --rootCAPem, --etcdCert and --etcdKey)", addrs, err)
		}
	} else if err := probePlain(ctx, cfg.Endpoints); err != nil {
		// And a server that answered in another protocol (HTTP/1.x, TLS):
		// gRPC would retry it until the deadline.
		return nil, err
	}

	type made struct {
		cli *clientv3.Client
		err error
	}
	ch := make(chan made, 1)
	go func() {
		c, err := clientv3.New(ccfg)
		ch <- made{c, err}
	}()
	var cli *clientv3.Client
	select {
	case m := <-ch:
		if m.err != nil {
			return nil, dialError(addrs, timeout, cfg.UserName, m.err)
		}
		cli = m.cli
	case <-ctx.Done():
		go func() {
			if m := <-ch; m.cli != nil {
				m.cli.Close()
			}
		}()
		return nil, dialError(addrs, timeout, cfg.UserName, ctx.Err())
	}
	// The probe reads one key under the meta root: a user granted only the
	// root path's prefix (as Milvus's own etcd user often is) may read
	// nothing else.
	if _, err := cli.Get(ctx, layout.MetaRoot(), clientv3.WithKeysOnly(), clientv3.WithCountOnly()); err != nil {
		cli.Close()
		return nil, dialError(addrs, timeout, cfg.UserName, err)
	}
	inst := New(cli, layout, cfg.Endpoints)
	inst.User = cfg.UserName
	return inst, nil
}

// CheckEndpoint rejects an address etcd's client cannot dial as meant: a
// host without a port (the client would dial port 80 or 443, not etcd's).
func CheckEndpoint(ep string) error {
	hostport := ep
	if strings.Contains(ep, "://") {
		u, err := url.Parse(ep)
		if err != nil {
			return fmt.Errorf("etcd address %s is not a URL: %v", ep, err)
		}
		switch u.Scheme {
		case "unix", "unixs":
			return nil
		case "http", "https":
			hostport = u.Host
		default:
			return fmt.Errorf("etcd address %s: scheme %q is not http, https or unix", ep, u.Scheme)
		}
	}
	if _, port, err := net.SplitHostPort(hostport); err != nil || port == "" {
		if err != nil && !strings.Contains(err.Error(), "missing port") {
			return fmt.Errorf("etcd address %s is not HOST:PORT", ep)
		}
		return fmt.Errorf("etcd address %s: missing :PORT (etcd's default client port is %s)", ep, configs.DefaultEtcdPort)
	}
	return nil
}

func dialError(addrs string, timeout time.Duration, user string, err error) error {
	switch code := status.Code(err); {
	case errors.Is(err, context.DeadlineExceeded), code == codes.DeadlineExceeded, code == codes.Unavailable:
		return fmt.Errorf("cannot reach etcd at %s within %s: %v", addrs, timeout, err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("connect to etcd at %s: interrupted", addrs)
	case user != "":
		return fmt.Errorf("connect to etcd at %s as user %q: %v", addrs, user, err)
	default:
		return fmt.Errorf("connect to etcd at %s: %v", addrs, err)
	}
}

// probeTCP fails when no endpoint accepts a TCP connection. Endpoints it
// cannot parse count as reachable: the etcd client decides for them.
func probeTCP(ctx context.Context, endpoints []string) error {
	return anyEndpoint(endpoints, func(ep string) error {
		network, addr := endpointAddr(ep)
		if addr == "" {
			return nil
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			c.Close()
		}
		return err
	})
}

// Probe timings: a server that answers does so at once; one that stays
// silent is left to the etcd client and its deadline.
const (
	// tlsProbeRead is how long probeTLS waits after the handshake for the
	// server's verdict on the client certificate (TLS 1.3 sends it after
	// the client's handshake is done).
	tlsProbeRead = 300 * time.Millisecond
	// plainProbeRead is how long probePlain waits for the server's first
	// bytes.
	plainProbeRead = time.Second
	// plainProbeTLS bounds probePlain's TLS handshake.
	plainProbeTLS = time.Second
)

// probeTLS fails when no endpoint completes a TLS handshake with tc. TLS 1.3
// servers refuse a client certificate only after the client finished, with an
// alert that the first read returns; the read stops after tlsProbeRead on a
// server that accepted and waits for the request (etcd does).
func probeTLS(ctx context.Context, endpoints []string, tc *tls.Config) error {
	return anyEndpoint(endpoints, func(ep string) error {
		network, addr := endpointAddr(ep)
		if addr == "" || network != "tcp" {
			return nil
		}
		host, _, _ := net.SplitHostPort(addr)
		c := tc.Clone()
		if c.ServerName == "" {
			c.ServerName = host
		}
		d := tls.Dialer{Config: c}
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			if first, ferr := firstBytes(ctx, addr); ferr == nil && isSettingsFrame(first) {
				return plainTextError{addr}
			}
			return err
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(tlsProbeRead))
		var b [1]byte
		if _, err := conn.Read(b[:]); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil
			}
			return err
		}
		return nil
	})
}

// http2Preface is what an HTTP/2 client sends first (RFC 9113 §3.4): the
// connection preface and an empty SETTINGS frame. etcd's gRPC server answers
// with its own SETTINGS frame at once.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "\x00\x00\x00\x04\x00\x00\x00\x00\x00"

// tlsAlertRecord is the first byte of a TLS alert record (RFC 8446 §5.1),
// which some TLS servers answer plain text with.
const tlsAlertRecord = 0x15

// probePlain opens a plain-text connection to each endpoint and sends the
// HTTP/2 preface gRPC starts with. It fails when no endpoint may be etcd:
// each answered HTTP/1.x, TLS (an alert, or a close and then a TLS
// handshake) or another protocol. An endpoint that answers HTTP/2, stays
// silent or cannot be probed passes: the etcd client decides.
func probePlain(ctx context.Context, endpoints []string) error {
	return anyEndpoint(endpoints, func(ep string) error {
		network, addr := endpointAddr(ep)
		if addr == "" || network != "tcp" {
			return nil
		}
		first, err := firstBytes(ctx, addr)
		switch {
		case err != nil:
			return nil
		case bytes.HasPrefix(first, []byte("HTTP/1.")):
			return fmt.Errorf("%s answered, but not as etcd (HTTP/1.x)", addr)
		case isSettingsFrame(first):
			return nil // gRPC
		case len(first) >= 2 && first[0] == tlsAlertRecord && first[1] == 3,
			len(first) == 0 && speaksTLS(ctx, addr):
			return fmt.Errorf("%s: the server expects TLS: add --enableTLS", addr)
		case len(first) > 0 && answersHTTP1(ctx, addr):
			// Some HTTP/1 servers answer the preface without a status line
			// (Python's http.server sends an HTML page): ask in HTTP/1.1.
			return fmt.Errorf("%s answered, but not as etcd (HTTP/1.x)", addr)
		case len(first) > 0:
			return fmt.Errorf("%s answered, but not as etcd (not HTTP/2)", addr)
		}
		return nil
	})
}

// isSettingsFrame reports whether b starts with an HTTP/2 SETTINGS frame
// header (RFC 9113 §6.5: type 0x4), the first thing an HTTP/2 server sends.
func isSettingsFrame(b []byte) bool { return len(b) >= 9 && b[3] == 0x04 }

// plainTextError is a server that answered HTTP/2 in plain text to a client
// told to use TLS.
type plainTextError struct{ addr string }

func (e plainTextError) Error() string {
	return e.addr + ": the server does not use TLS: drop --enableTLS"
}

// firstBytes sends the HTTP/2 preface to addr and returns the first bytes of
// the answer: none when the server closed the connection. err is set when
// the server could not be asked or stayed silent.
func firstBytes(ctx context.Context, addr string) ([]byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	deadline := time.Now().Add(plainProbeRead)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	if _, err := io.WriteString(conn, http2Preface); err != nil {
		return nil, err
	}
	buf := make([]byte, 16)
	n, err := io.ReadAtLeast(conn, buf, 9)
	if n > 0 || errors.Is(err, io.EOF) || isReset(err) {
		return buf[:n], nil
	}
	return nil, err
}

// answersHTTP1 reports whether addr answers an HTTP/1.1 request with an
// HTTP/1.x status line.
func answersHTTP1(ctx context.Context, addr string) bool {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(plainProbeRead))
	if _, err := io.WriteString(conn, "HEAD / HTTP/1.1\r\nHost: "+addr+"\r\nConnection: close\r\n\r\n"); err != nil {
		return false
	}
	buf := make([]byte, 7)
	n, _ := io.ReadFull(conn, buf)
	return string(buf[:n]) == "HTTP/1."
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && !oe.Timeout()
}

// speaksTLS reports whether addr completes a TLS handshake (certificates
// unchecked: it only asks which protocol the server speaks), or refuses it
// with a TLS alert.
func speaksTLS(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, plainProbeTLS)
	defer cancel()
	// Unverified on purpose: the handshake only names the protocol, and the
	// connection closes before anything is sent.
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		conn.Close()
		return true
	}
	var alert tls.AlertError
	return errors.As(err, &alert)
}

// anyEndpoint runs probe on every endpoint at once; it succeeds when one
// does, else returns every endpoint's error.
func anyEndpoint(endpoints []string, probe func(ep string) error) error {
	errs := make(chan error, len(endpoints))
	for _, ep := range endpoints {
		go func() { errs <- probe(ep) }()
	}
	var all []error
	for range endpoints {
		err := <-errs
		if err == nil {
			return nil
		}
		all = append(all, err)
	}
	return errors.Join(all...)
}

func endpointAddr(ep string) (network, addr string) {
	if strings.Contains(ep, "://") {
		u, err := url.Parse(ep)
		if err != nil {
			return "", ""
		}
		switch u.Scheme {
		case "unix", "unixs":
			return "unix", u.Host + u.Path
		case "http", "https":
			ep = u.Host
		default:
			return "", ""
		}
	}
	if _, _, err := net.SplitHostPort(ep); err != nil {
		return "", ""
	}
	return "tcp", ep
}

func tlsConfig(cfg DialConfig) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.RootCAFile != "" {
		pem, err := os.ReadFile(cfg.RootCAFile)
		if err != nil {
			return nil, fmt.Errorf("connect: read --rootCAPem %s: %w", cfg.RootCAFile, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("connect: --rootCAPem %s holds no PEM certificate", cfg.RootCAFile)
		}
		tc.RootCAs = pool
	}
	if cfg.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("connect: load --etcdCert %s and --etcdKey %s: %w", cfg.CertFile, cfg.KeyFile, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}
