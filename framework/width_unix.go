//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package framework

import "golang.org/x/sys/unix"

// terminalColumns is the width of the terminal fd, and false when fd is not
// a terminal or has no width.
func terminalColumns(fd int) (int, bool) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0, false
	}
	return int(ws.Col), true
}
