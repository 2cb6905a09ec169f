// Package states holds the states of the heron shell: offline, and connected
// to the etcd of one Milvus instance. The namespaces of the connected state
// (show, reset, restore, ...) live in the folders beside this file and are
// registered with Register.
package states

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// Version is heron's version, set at build time:
// -ldflags "-X github.com/heron-shell/heron/states.Version=v1.2.3".
var Version = "dev"

// goAPIModule is the module whose version `version` reports.
const goAPIModule = "github.com/milvus-io/milvus-proto/go-api/v3"

// maxRoots and maxRootScan bound the search for existing root paths.
const (
	maxRoots    = 50
	maxRootScan = 1000
)

// Offline is the state before connect.
type Offline struct{}

// NewOffline returns the offline state.
func NewOffline() framework.State { return &Offline{} }

func (*Offline) Prompt() string { return "Offline > " }

func (*Offline) Close() error { return nil }

func (o *Offline) Commands() []*framework.Command {
	return []*framework.Command{
		framework.Read(o, runConnect),
		versionCommand(),
	}
}

// ConnectParams are the flags of connect (birdwatcher's names).
type ConnectParams struct {
	framework.ParamBase `use:"connect" desc:"connect to the etcd of a Milvus instance"`
	Etcd                []string `name:"etcd" default:"127.0.0.1:2379" desc:"etcd address(es) HOST:PORT"`
	RootPath            string   `name:"rootPath" default:"by-dev" desc:"Milvus etcd.rootPath"`
	MetaPath            string   `name:"metaPath" default:"meta" desc:"Milvus etcd.metaSubPath"`
	Force               bool     `name:"force" desc:"connect even if the root path holds no Milvus metadata"`
	EnableTLS           bool     `name:"enableTLS" desc:"connect with TLS"`
	RootCAPem           string   `name:"rootCAPem" desc:"CA certificate file (PEM) to verify etcd with"`
	EtcdCert            string   `name:"etcdCert" desc:"client certificate file (PEM)"`
	EtcdKey             string   `name:"etcdKey" desc:"client key file (PEM)"`
	UserName            string   `name:"etcdUserName" desc:"etcd user"`
	Password            string   `name:"etcdPassword" secret:"true" env:"ETCD_PASSWORD" desc:"etcd password"`
	framework.Output
}

// Validate rejects flag combinations that cannot work.
func (p *ConnectParams) Validate() error {
	var eps []string
	for _, e := range p.Etcd {
		if e = strings.TrimSpace(e); e != "" {
			eps = append(eps, e)
		}
	}
	if len(eps) == 0 {
		return framework.Usagef("connect: --etcd needs at least one address")
	}
	p.Etcd = eps
	if strings.Trim(p.RootPath, "/") == "" {
		return framework.Usagef("connect: --rootPath must not be empty")
	}
	if strings.Trim(p.MetaPath, "/") == "" {
		return framework.Usagef("connect: --metaPath must not be empty")
	}
	if (p.EtcdCert == "") != (p.EtcdKey == "") {
		return framework.Usagef("connect: --etcdCert and --etcdKey go together")
	}
	if !p.EnableTLS {
		for flag, v := range map[string]string{"rootCAPem": p.RootCAPem, "etcdCert": p.EtcdCert, "etcdKey": p.EtcdKey} {
			if v != "" {
				return framework.Usagef("connect: --%s needs --enableTLS", flag)
			}
		}
	}
	return nil
}

// connectResult is the result of connect: a transition to Connected.
type connectResult struct {
	Endpoints []string `json:"endpoints"`
	RootPath  string   `json:"rootPath"`
	MetaPath  string   `json:"metaPath"`
	MetaRoot  string   `json:"metaRoot"`
	Forced    bool     `json:"forced,omitempty"`
	next      framework.State
}

func (r *connectResult) message() string {
	return fmt.Sprintf("connected to etcd %s, root path %s (metadata under %s)", strings.Join(r.Endpoints, ","), r.RootPath, r.MetaRoot)
}

func (r *connectResult) JSON() any {
	return struct {
		Message string `json:"message"`
		*connectResult
	}{r.message(), r}
}

// Table and Lines print nothing: the connect notice goes to stderr (see
// runConnect), so that a script "connect ..., show ... --format json" still
// prints exactly one JSON document on stdout.
func (r *connectResult) Table(io.Writer) error { return nil }

func (r *connectResult) Lines(io.Writer) error { return nil }

func (r *connectResult) NextState() framework.State { return r.next }

func runConnect(ctx context.Context, _ *Offline, p *ConnectParams) (framework.Result, error) {
	cli, err := dial(ctx, p, configs.Load().DialTimeout)
	if err != nil {
		return nil, err
	}
	layout := models.NewLayout(p.RootPath, p.MetaPath)
	cctx, cancel := context.WithTimeout(ctx, configs.DefaultDialTimeout)
	defer cancel()
	ok, err := hasMeta(cctx, cli, layout.RootPath, layout.MetaPath)
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("connect: read %s on etcd %s: %w", layout.MetaRoot(), strings.Join(p.Etcd, ","), err)
	}
	if !ok && !p.Force {
		defer cli.Close()
		return nil, noMetaError(cctx, cli, layout)
	}
	if !ok {
		fmt.Fprintf(framework.Stderr(ctx), "warning: root path %s holds no Milvus metadata (nothing under %s); connected anyway (--force)\n", layout.RootPath, layout.MetaRoot())
	}
	inst := instance.New(cli, layout, p.Etcd)
	r := &connectResult{
		Endpoints: p.Etcd, RootPath: layout.RootPath, MetaPath: layout.MetaPath, MetaRoot: layout.MetaRoot(),
		Forced: !ok, next: NewConnected(inst),
	}
	fmt.Fprintln(framework.Stderr(ctx), r.message())
	return r, nil
}

// dial connects to etcd and proves the connection with a read, all within
// timeout. Errors name the addresses, never the password.
func dial(ctx context.Context, p *ConnectParams, timeout time.Duration) (*clientv3.Client, error) {
	addrs := strings.Join(p.Etcd, ",")
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	cfg := clientv3.Config{
		Endpoints:            p.Etcd,
		DialTimeout:          timeout,
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 5 * time.Second,
		Logger:               zap.NewNop(),
	}
	if p.EnableTLS {
		tc, err := tlsConfig(p)
		if err != nil {
			return nil, err
		}
		cfg.TLS = tc
	}
	if p.UserName != "" {
		cfg.Username, cfg.Password = p.UserName, p.Password
	}

	// A refused TCP connection fails at once instead of at the deadline.
	if err := probeTCP(ctx, p.Etcd); err != nil {
		return nil, fmt.Errorf("cannot reach etcd at %s: %w", addrs, err)
	}
	// So does a TLS handshake that fails (an untrusted CA, a client
	// certificate the server refuses): the gRPC client would only report a
	// deadline, without the reason.
	if cfg.TLS != nil {
		if err := probeTLS(ctx, p.Etcd, cfg.TLS); err != nil {
			return nil, fmt.Errorf("TLS handshake with etcd at %s failed: %w (check --rootCAPem, --etcdCert and --etcdKey)", addrs, err)
		}
	}

	type made struct {
		cli *clientv3.Client
		err error
	}
	ch := make(chan made, 1)
	go func() {
		c, err := clientv3.New(cfg)
		ch <- made{c, err}
	}()
	var cli *clientv3.Client
	select {
	case m := <-ch:
		if m.err != nil {
			return nil, dialError(addrs, timeout, p.UserName, m.err)
		}
		cli = m.cli
	case <-ctx.Done():
		go func() {
			if m := <-ch; m.cli != nil {
				m.cli.Close()
			}
		}()
		return nil, dialError(addrs, timeout, p.UserName, ctx.Err())
	}
	// The probe reads one key under the meta root: a user granted only the
	// root path's prefix (as Milvus's own etcd user often is) may read
	// nothing else.
	probe := strings.Trim(p.RootPath, "/") + "/" + strings.Trim(p.MetaPath, "/") + "/"
	if _, err := cli.Get(ctx, probe, clientv3.WithKeysOnly(), clientv3.WithCountOnly()); err != nil {
		cli.Close()
		return nil, dialError(addrs, timeout, p.UserName, err)
	}
	return cli, nil
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

// tlsProbeRead is how long probeTLS waits after the handshake for the
// server's verdict on the client certificate (TLS 1.3 sends it after the
// client's handshake is done).
const tlsProbeRead = 300 * time.Millisecond

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

func tlsConfig(p *ConnectParams) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if p.RootCAPem != "" {
		pem, err := os.ReadFile(p.RootCAPem)
		if err != nil {
			return nil, fmt.Errorf("connect: read --rootCAPem %s: %w", p.RootCAPem, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("connect: --rootCAPem %s holds no PEM certificate", p.RootCAPem)
		}
		tc.RootCAs = pool
	}
	if p.EtcdCert != "" {
		cert, err := tls.LoadX509KeyPair(p.EtcdCert, p.EtcdKey)
		if err != nil {
			return nil, fmt.Errorf("connect: load --etcdCert %s and --etcdKey %s: %w", p.EtcdCert, p.EtcdKey, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// hasMeta reports whether any key lies under {root}/{meta}/.
func hasMeta(ctx context.Context, cli *clientv3.Client, root, meta string) (bool, error) {
	resp, err := cli.Get(ctx, root+"/"+meta+"/", clientv3.WithPrefix(), clientv3.WithLimit(1), clientv3.WithKeysOnly())
	if err != nil {
		return false, err
	}
	return len(resp.Kvs) > 0, nil
}

// noMetaError is the refusal of a root path without metadata: it lists the
// root paths that hold some.
func noMetaError(ctx context.Context, cli *clientv3.Client, layout models.Layout) error {
	msg := fmt.Sprintf("root path %q holds no Milvus metadata (no key under %s)", layout.RootPath, layout.MetaRoot())
	roots, complete, err := FindRoots(ctx, cli, layout.MetaPath, maxRoots, maxRootScan)
	switch {
	case err != nil:
		return fmt.Errorf("%s; listing the root paths failed: %v", msg, err)
	case len(roots) == 0 && complete:
		return fmt.Errorf("%s; no root path in this etcd holds metadata under */%s/ (use --force to connect anyway)", msg, layout.MetaPath)
	case len(roots) == 0:
		return fmt.Errorf("%s; none found in the first %d top-level prefixes (use --force to connect anyway)", msg, maxRootScan)
	}
	more := ""
	if !complete {
		more = ", ..."
	}
	return fmt.Errorf("%s; root paths with Milvus metadata: %s%s (pass one with --rootPath, or --force)", msg, strings.Join(roots, ", "), more)
}

// FindRoots lists, sorted, the first path segments X of the keyspace for which
// X/{meta}/ holds a key, without loading the keyspace: it reads one key,
// takes its first segment, then jumps past that segment's keys. complete is
// false when it stopped at maxRoots roots or after maxScan segments.
func FindRoots(ctx context.Context, cli *clientv3.Client, meta string, maxRoots, maxScan int) (roots []string, complete bool, err error) {
	from := "\x00"
	for scanned := 0; ; scanned++ {
		if len(roots) >= maxRoots || scanned >= maxScan {
			sort.Strings(roots)
			return roots, false, nil
		}
		resp, err := cli.Get(ctx, from, clientv3.WithFromKey(), clientv3.WithLimit(1), clientv3.WithKeysOnly())
		if err != nil {
			return roots, false, err
		}
		if len(resp.Kvs) == 0 {
			sort.Strings(roots)
			return roots, true, nil
		}
		key := string(resp.Kvs[0].Key)
		seg, _, hasSlash := strings.Cut(key, "/")
		if !hasSlash {
			// A key without '/': the next key may share its start ("x-y/...").
			from = key + "\x00"
			continue
		}
		from = clientv3.GetPrefixRangeEnd(seg + "/")
		if seg == "" {
			continue
		}
		found := strings.HasPrefix(key, seg+"/"+meta+"/")
		if !found {
			if found, err = hasMeta(ctx, cli, seg, meta); err != nil {
				return roots, false, err
			}
		}
		if found {
			roots = append(roots, seg)
		}
	}
}

// versionResult is what version prints.
type versionResult struct {
	Heron string `json:"heron"`
	Go    string `json:"go"`
	GoAPI string `json:"goApi"`
}

// VersionInfo returns heron's version, the Go version and go-api/v3's version.
func VersionInfo() framework.Result {
	v := &versionResult{Heron: Version, Go: runtime.Version(), GoAPI: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == goAPIModule {
				v.GoAPI = d.Version
				if d.Replace != nil && d.Replace.Version != "" {
					v.GoAPI = d.Replace.Version
				}
			}
		}
	}
	return v
}

func (v *versionResult) JSON() any { return v }

func (v *versionResult) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "heron\t%s\n", v.Heron)
	fmt.Fprintf(tw, "go\t%s\n", v.Go)
	fmt.Fprintf(tw, "go-api/v3\t%s\n", v.GoAPI)
	return tw.Flush()
}

func (v *versionResult) Lines(w io.Writer) error {
	return framework.WriteLine(w, "heron", v.Heron, "go", v.Go, "goApi", v.GoAPI)
}

// VersionParams are the flags of version.
type VersionParams struct {
	framework.ParamBase `use:"version" desc:"print the versions of heron, Go and go-api"`
	framework.Output
}

func versionCommand() *framework.Command {
	return framework.Read(struct{}{}, func(context.Context, struct{}, *VersionParams) (framework.Result, error) {
		return VersionInfo(), nil
	})
}
