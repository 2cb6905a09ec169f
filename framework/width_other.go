//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package framework

func terminalColumns(int) (int, bool) { return 0, false }
