//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import (
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
