//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import (
	"sync"

	"golang.org/x/sys/unix"
)

// saveTerminal records the terminal settings of fd. restore puts them back
// once, on the way out (whatever go-prompt leaves behind, raw mode after a
// panic or a signal, the shell's terminal comes back sane); cooked puts them
// back each time a command starts. go-prompt's own TearDown restores the raw
// settings (it saves the termios it then edits in place), so without cooked a
// command would run with ISIG off and Ctrl-C would be a byte in the input
// instead of a SIGINT.
func saveTerminal(fd int) (restore, cooked func()) {
	saved, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}, func() {}
	}
	cooked = func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, saved) }
	var once sync.Once
	return func() { once.Do(cooked) }, cooked
}
