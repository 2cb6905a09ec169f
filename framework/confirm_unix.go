//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import (
	"context"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// lineMode puts the terminal behind in in line mode with echo (go-prompt
// leaves it raw while a command runs), so that the answer to a question is
// seen as it is typed; restore puts the previous mode back.
func lineMode(in io.Reader) (restore func()) {
	f, ok := in.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	saved, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	line := *saved
	line.Lflag |= unix.ICANON | unix.ECHO | unix.ISIG
	line.Iflag |= unix.ICRNL
	line.Oflag |= unix.OPOST
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &line); err != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, saved) }
}

// pollLine reads one line from a terminal a byte at a time, polling so that
// an interrupt (ctx done) leaves no read behind that would take the next
// keystrokes from the REPL. ok is false when in is not a file (then the
// caller reads as it can).
func pollLine(ctx context.Context, in io.Reader) (line string, done, ok bool) {
	f, isFile := in.(*os.File)
	if !isFile {
		return "", false, false
	}
	fd := int(f.Fd())
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		if ctx.Err() != nil {
			return b.String(), true, true
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 200)
		if err == unix.EINTR || (err == nil && n == 0) {
			continue
		}
		if err != nil {
			return b.String(), false, true
		}
		m, err := unix.Read(fd, buf)
		if m == 1 {
			if buf[0] == '\n' || buf[0] == '\r' {
				return b.String(), false, true
			}
			b.WriteByte(buf[0])
		}
		if err != nil || m == 0 {
			return b.String(), false, true
		}
	}
}
