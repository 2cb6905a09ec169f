//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package framework

import (
	"context"
	"errors"
)

func saveTerminal(int) (restore, cooked func()) { return func() {}, func() {} }

func flushInput(int) {}

func readTerminalLine(context.Context, int) (string, error) {
	return "", errors.New("no terminal on this system")
}
