//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import (
	"context"
	"errors"
	"io"
	"strings"
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

// readTerminalLine reads one line typed on the terminal fd, which is in its
// normal (canonical) mode while a command runs, and gives up when ctx ends
// (Ctrl-C). It polls, so no reader is left behind to eat the next line.
func readTerminalLine(ctx context.Context, fd int) (string, error) {
	buf := make([]byte, 4096)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 100)
		switch {
		case errors.Is(err, unix.EINTR) || (err == nil && n == 0):
			continue
		case err != nil:
			return "", err
		}
		m, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return "", err
		case m == 0:
			return "", io.EOF
		}
		return strings.TrimRight(string(buf[:m]), "\r\n"), nil
	}
}
