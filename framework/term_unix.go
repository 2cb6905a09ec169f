//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import (
	"sync"

	"golang.org/x/sys/unix"
)

// saveTerminal records the terminal settings of fd and returns a function
// that puts them back (idempotent): whatever go-prompt leaves behind (raw
// mode after a panic or a signal), the shell's terminal comes back sane.
func saveTerminal(fd int) func() {
	saved, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = unix.IoctlSetTermios(fd, ioctlSetTermios, saved)
		})
	}
}
