//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package framework

import "io"

func lineMode(io.Reader) (restore func()) { return func() {} }
