// Package demo runs heron against an embedded etcd seeded with a sample
// Milvus instance, so a newcomer can try every command without a cluster.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/spf13/pflag"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/embedded"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states"
	"github.com/heron-shell/heron/states/instance"
)

// Main runs `heron demo [--wal W]`: it seeds a fresh embedded etcd, opens the
// shell connected to it (the REPL when interactive, else one command a line
// from stdin), and removes the etcd folder when the shell ends.
func Main(ctx context.Context, args []string, interactive bool, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	walName := fs.String("wal", "pulsar", "`WAL` the sample's positions are encoded for: "+strings.Join(msgid.Names(), ", "))
	rootPath := fs.String("rootPath", "by-dev", "root path of the sample instance")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			usage(stdout, fs)
			return framework.ExitOK
		}
		fmt.Fprintf(stderr, "error: demo: %v\n", err)
		usage(stderr, fs)
		return framework.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "error: demo takes no arguments, got %q\n", fs.Args())
		usage(stderr, fs)
		return framework.ExitUsage
	}
	wal, err := msgid.Parse(*walName)
	if err != nil {
		fmt.Fprintf(stderr, "error: --wal: %v\n", err)
		return framework.ExitUsage
	}
	sh, cleanup, err := Start(ctx, wal, *rootPath, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return framework.ExitFailed
	}
	defer cleanup()
	if interactive {
		return sh.RunREPL(context.WithoutCancel(ctx)) // the REPL handles SIGINT, SIGTERM and SIGHUP itself
	}
	return sh.RunScript(ctx, stdin)
}

func usage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `Usage:
  heron demo [--wal WAL] [--rootPath STRING]

Starts an embedded etcd in a temporary folder, seeds it with a sample stopped
Milvus instance and opens the shell connected to it (the REPL on a terminal,
else one command a line from stdin). The folder is removed on exit.

Flags:
%s`, framework.FlagUsages(fs))
}

// Start starts the embedded etcd, seeds it and returns a shell connected to
// it, with the function that stops etcd and removes its folder.
func Start(ctx context.Context, wal commonpb.WALName, rootPath string, stdout, stderr io.Writer) (*framework.Shell, func(), error) {
	dir, err := os.MkdirTemp("", "heron-demo-")
	if err != nil {
		return nil, nil, fmt.Errorf("demo folder: %w", err)
	}
	srv, err := embedded.Start(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	stop := func() {
		srv.Close()
		_ = os.RemoveAll(dir)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.Endpoint()}, DialTimeout: 10 * time.Second})
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("connect to embedded etcd: %w", err)
	}
	layout := models.NewLayout(rootPath, "meta")
	inst := sample.Build(layout, wal)
	if _, err := sample.Seed(ctx, cli, inst); err != nil {
		_ = cli.Close()
		stop()
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "demo: embedded etcd at %s (folder %s, removed on exit), seeded %d keys of a stopped Milvus instance on %s\n",
		srv.Endpoint(), dir, len(inst.KVs), msgid.Name(wal))
	conn := states.NewConnected(instance.New(cli, layout, []string{srv.Endpoint()}))
	sh := framework.NewShell(conn, stdout, stderr)
	return sh, func() {
		_ = sh.State().Close()
		stop()
	}, nil
}
