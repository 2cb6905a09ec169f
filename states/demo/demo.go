// Package demo runs heron against an embedded etcd seeded with a sample
// Milvus instance, so a newcomer can try every command without a cluster.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v3/commonpb"
	"github.com/spf13/pflag"

	"github.com/heron-shell/heron/configs"
	"github.com/heron-shell/heron/framework"
	"github.com/heron-shell/heron/models/msgid"
	"github.com/heron-shell/heron/models/sample"
	"github.com/heron-shell/heron/states/instance"
)

// Main runs `heron demo [--wal W]`: it seeds a fresh embedded etcd, opens the
// shell connected to it (the REPL when interactive, else one command a line
// from stdin), and removes the etcd folder when the shell ends or a signal
// ends the demo (see serve).
func Main(ctx context.Context, args []string, interactive bool, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	walName := fs.String("wal", "pulsar", "`WAL` the sample's positions are encoded for: "+strings.Join(msgid.Names(), ", "))
	rootPath := fs.String("rootPath", configs.DefaultRootPath, "root path of the sample instance")
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
	return RunShell(ctx, "demo", sh, cleanup, interactive, stdin, stderr)
}

// stopGrace is how long, after a signal, the shell may take to stop its
// command before the demo stops etcd under it: the folder goes either way.
const stopGrace = 5 * time.Second

// serve runs the script until it ends or a signal (SIGINT, SIGTERM, SIGHUP)
// ends the demo. A signal cancels the shell's context; the demo returns (and
// its caller removes the folder) when the shell has stopped, or after
// stopGrace, or at a second signal.
func serve(ctx context.Context, name string, sh *framework.Shell, stdin io.Reader, stderr io.Writer) int {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(ch)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	done := make(chan int, 1)
	go func() { done <- sh.RunScript(ctx, stdin) }()
	select {
	case code := <-done:
		return code
	case sig := <-ch:
		fmt.Fprintf(stderr, "%s: %v: stopping and removing the %s folder\n", name, sig, name)
		cancel()
	}
	select {
	case code := <-done:
		if code == framework.ExitOK {
			code = framework.ExitFailed
		}
		return code
	case <-ch:
	case <-time.After(stopGrace):
	}
	return framework.ExitFailed
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

// Start starts the embedded etcd, seeds it with the sample instance and
// returns a shell connected to it (see StartSeeded).
func Start(ctx context.Context, wal commonpb.WALName, rootPath string, stdout, stderr io.Writer) (*framework.Shell, func(), error) {
	return StartSeeded(ctx, "demo", rootPath, func(ctx context.Context, inst *instance.Instance) (string, error) {
		in := sample.Build(inst.Layout, wal)
		if _, err := inst.Load(ctx, in.KeyValues()); err != nil {
			return "", fmt.Errorf("seed the demo: %w", err)
		}
		return fmt.Sprintf("seeded %d keys of a stopped Milvus instance on %s", len(in.KVs), msgid.Name(wal)), nil
	}, stdout, stderr)
}
