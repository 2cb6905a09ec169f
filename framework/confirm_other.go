//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package framework

import (
	"context"
	"io"
)

func lineMode(io.Reader) (restore func()) { return func() {} }

func pollLine(context.Context, io.Reader) (string, bool, bool) { return "", false, false }
