//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package framework

import (
	"context"
	"io"
)

func lineMode(io.Reader) (restore func()) { return func() {} }

func pollingReader(context.Context, io.Reader) (io.Reader, bool) { return nil, false }
