package states

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states/instance"
)

// ConnectParams are the flags of connect (birdwatcher's names). The defaults
// repeat configs' (a struct tag cannot name a constant):
// TestConnectDefaultsMatchConfigs checks that they are equal. Each flag not
// given is taken from its HERON_* environment variable when set, so that a
// Kubernetes Job passes the connection (and the password, from a Secret)
// without a command line; the password also from $ETCD_PASSWORD, etcd's own
// name for it.
type ConnectParams struct {
	framework.ParamBase `use:"connect" desc:"connect to the etcd of a Milvus instance" example:"connect --etcd 127.0.0.1:2379 --rootPath by-dev"`
	Etcd                []string `name:"etcd" default:"127.0.0.1:2379" placeholder:"HOST:PORT" env:"HERON_ETCD" desc:"etcd address(es)"`
	RootPath            string   `name:"rootPath" default:"by-dev" placeholder:"ROOT" env:"HERON_ROOT_PATH" desc:"Milvus etcd.rootPath"`
	MetaPath            string   `name:"metaPath" default:"meta" placeholder:"META" env:"HERON_META_PATH" desc:"Milvus etcd.metaSubPath"`
	Force               bool     `name:"force" desc:"connect even if the root path holds no Milvus metadata"`
	EnableTLS           bool     `name:"enableTLS" env:"HERON_ETCD_TLS" desc:"connect with TLS"`
	RootCAPem           string   `name:"rootCAPem" placeholder:"FILE" env:"HERON_ETCD_CA" desc:"CA certificate file (PEM) to verify etcd with"`
	EtcdCert            string   `name:"etcdCert" placeholder:"FILE" env:"HERON_ETCD_CERT" desc:"client certificate file (PEM)"`
	EtcdKey             string   `name:"etcdKey" placeholder:"FILE" env:"HERON_ETCD_KEY" desc:"client key file (PEM)"`
	UserName            string   `name:"etcdUserName" placeholder:"USER" env:"HERON_ETCD_USER" desc:"etcd user"`
	Password            string   `name:"etcdPassword" placeholder:"PASSWORD" secret:"true" env:"HERON_ETCD_PASSWORD" desc:"etcd password, also from $ETCD_PASSWORD (the environment does not show in the process list; a flag does)"`
	framework.Output
}

// Validate rejects flag combinations that cannot work. No message repeats
// the password.
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
	for _, e := range eps {
		if err := instance.CheckEndpoint(e); err != nil {
			return framework.Usagef("connect: %v", err)
		}
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
	if p.Password == "" {
		p.Password = os.Getenv(passwordEnv)
	}
	if p.UserName != "" && p.Password == "" {
		return framework.Usagef("connect: no password: set $HERON_ETCD_PASSWORD or $%s (or give --etcdPassword)", passwordEnv)
	}
	return nil
}

// passwordEnv is etcd's own variable for the password (etcdctl reads it too),
// read when neither --etcdPassword nor $HERON_ETCD_PASSWORD gives one.
const passwordEnv = "ETCD_PASSWORD"

func (p *ConnectParams) dialConfig() instance.DialConfig {
	return instance.DialConfig{
		GRPC:      apply.DialOptions(),
		Endpoints: p.Etcd,
		Timeout:   configs.Load().DialTimeout,
		TLS:       p.EnableTLS, RootCAFile: p.RootCAPem, CertFile: p.EtcdCert, KeyFile: p.EtcdKey,
		UserName: p.UserName, Password: p.Password,
	}
}

// connectResult is the result of connect: a transition to Connected.
type connectResult struct {
	Endpoints []string `json:"endpoints"`
	RootPath  string   `json:"root_path"`
	MetaPath  string   `json:"meta_path"`
	MetaRoot  string   `json:"meta_root"`
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

// runConnect dials, checks that the root path holds metadata (else lists
// the root paths that do, unless --force) and moves to the connected state
// with the offline state's command set.
func runConnect(ctx context.Context, o *Offline, p *ConnectParams, out framework.IO) (framework.Result, error) {
	layout := models.NewLayout(p.RootPath, p.MetaPath)
	inst, err := instance.Dial(ctx, p.dialConfig(), layout)
	if err != nil {
		return nil, err
	}
	inst.SetNotice(out.Stderr)
	cctx, cancel := context.WithTimeout(ctx, configs.DefaultDialTimeout)
	defer cancel()
	ok, err := inst.HasMeta(cctx)
	if err != nil {
		_ = inst.Close()
		return nil, fmt.Errorf("connect: read %s on etcd %s: %w", layout.MetaRoot(), strings.Join(p.Etcd, ","), err)
	}
	if !ok && !p.Force {
		defer inst.Close()
		return nil, inst.NoMetaError(cctx)
	}
	if !ok {
		fmt.Fprintf(out.Stderr, "warning: root path %s holds no Milvus metadata (nothing under %s); connected anyway (--force)\n", layout.RootPath, layout.MetaRoot())
	}
	r := &connectResult{
		Endpoints: p.Etcd, RootPath: layout.RootPath, MetaPath: layout.MetaPath, MetaRoot: layout.MetaRoot(),
		Forced: !ok, next: o.connected(inst),
	}
	fmt.Fprintln(out.Stderr, r.message())
	if ok {
		if hint := splitHint(cctx, inst); hint != "" {
			fmt.Fprintf(out.Stderr, "warning: %s\n", hint)
		}
	}
	return r, nil
}
