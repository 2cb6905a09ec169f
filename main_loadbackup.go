package main

import (
	"context"
	"io"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/heron-shell/heron/states/rehearse"
)

// loadBackupMain runs `heron load-backup FILE`: the shell on an embedded etcd
// loaded from a backup. rehearse.Main removes its folder on exit and signals.
func loadBackupMain(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	return rehearse.Main(context.Background(), args, isatty.IsTerminal(stdin.Fd()), stdin, stdout, stderr)
}
