package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/framework/apply"
	"github.com/heron-shell/heron/framework/embedded"
	"github.com/heron-shell/heron/models"
	"github.com/heron-shell/heron/states"
	"github.com/heron-shell/heron/states/instance"
)

// Seed fills a fresh embedded etcd through inst and returns what it put
// there, for the start message ("seeded 42 keys of ...").
type Seed func(ctx context.Context, inst *instance.Instance) (string, error)

// StartSeeded starts an embedded etcd in a new temporary folder, seeds it
// and returns a shell connected to it under rootPath (with
// ConnectedCommands), with the function that closes the shell's state, stops
// etcd and removes its folder; it may be called more than once. name
// ("demo", "load-backup") names the folder and the messages. A SIGINT,
// SIGTERM or SIGHUP while seeding stops the seed, and the folder is removed.
func StartSeeded(ctx context.Context, name, rootPath string, seed Seed, stdout, stderr io.Writer) (*framework.Shell, func(), error) {
	return startIn(ctx, "", name, rootPath, seed, stdout, stderr)
}

// startIn is StartSeeded in the folder dir ("": a new one).
func startIn(ctx context.Context, dir, name, rootPath string, seed Seed, stdout, stderr io.Writer) (*framework.Shell, func(), error) {
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "heron-"+name+"-"); err != nil {
			return nil, nil, fmt.Errorf("%s folder: %w", name, err)
		}
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
	layout := models.NewLayout(rootPath, configs.DefaultMetaPath)
	inst, err := instance.Dial(ctx, instance.DialConfig{Endpoints: []string{srv.Endpoint()}, GRPC: apply.DialOptions()}, layout)
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("connect to embedded etcd: %w", err)
	}
	seedCtx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	what, err := seed(seedCtx, inst)
	if err != nil && seedCtx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w (interrupted by a signal)", err)
	}
	stopSignals()
	if err != nil {
		_ = inst.Close()
		stop()
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "%s: embedded etcd at %s (folder %s, removed on exit), %s\n", name, srv.Endpoint(), dir, what)
	sh := framework.NewShell(states.NewConnected(inst, states.ConnectedCommands(inst)), stdout, stderr)
	var once sync.Once
	return sh, func() {
		once.Do(func() {
			_ = sh.Close()
			stop()
		})
	}, nil
}

// RunShell runs sh until it ends or a stop signal (see stopSignals) ends it
// (see serve), then calls cleanup, and returns the exit code.
func RunShell(ctx context.Context, name string, sh *framework.Shell, cleanup func(), interactive bool, stdin io.Reader, stderr io.Writer) int {
	defer cleanup()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals(interactive)...)
	defer signal.Stop(sigs)
	return serve(ctx, name, sh, sigs, interactive, stdin, stderr)
}
