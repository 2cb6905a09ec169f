//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package framework

func saveTerminal(int) (restore, cooked func()) { return func() {}, func() {} }

func flushInput(int) {}
