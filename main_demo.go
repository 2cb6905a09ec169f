package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mattn/go-isatty"

	"github.com/heron-shell/heron/states/demo"
)

// demoMain runs `heron demo`: the shell on an embedded etcd seeded with a sample instance.
func demoMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return demo.Main(ctx, args, isatty.IsTerminal(os.Stdin.Fd()), os.Stdin, os.Stdout, os.Stderr)
}
