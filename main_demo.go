package main

import (
	"context"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/heron-shell/heron/states/demo"
)

// demoMain runs `heron demo`: the shell on an embedded etcd seeded with a
// sample instance. demo.Main handles the signals: it removes its folder on
// SIGINT (in script mode), SIGTERM and SIGHUP.
func demoMain(args []string) int {
	return demo.Main(context.Background(), args, isatty.IsTerminal(os.Stdin.Fd()), os.Stdin, os.Stdout, os.Stderr)
}
