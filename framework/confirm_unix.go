//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import (
	"context"
	"io"
	"os"

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

// pollingReader returns a reader of the terminal behind in that polls, so
// that an interrupt (ctx done) leaves no read behind that would take the
// next keystrokes from the REPL: a Read then fails with ctx's error. ok is
// false when in is not a file (then the caller reads as it can).
func pollingReader(ctx context.Context, in io.Reader) (r io.Reader, ok bool) {
	f, isFile := in.(*os.File)
	if !isFile {
		return nil, false
	}
	return pollReader{ctx: ctx, fd: int(f.Fd())}, true
}

type pollReader struct {
	ctx context.Context
	fd  int
}

func (p pollReader) Read(b []byte) (int, error) {
	for {
		if err := p.ctx.Err(); err != nil {
			return 0, err
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}, 200)
		if err == unix.EINTR || (err == nil && n == 0) {
			continue
		}
		if err != nil {
			return 0, err
		}
		m, err := unix.Read(p.fd, b)
		if err == nil && m == 0 {
			return 0, io.EOF
		}
		return max(m, 0), err
	}
}
