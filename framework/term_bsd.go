//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)

// flushInput discards what was typed but not read on the terminal fd (FREAD).
func flushInput(fd int) { _ = unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, 1) }
