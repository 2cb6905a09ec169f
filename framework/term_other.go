//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package framework

func saveTerminal(int) func() { return func() {} }
