//go:build !linux

package chaos

import "os/exec"

// dieWithParent: only Linux has a parent-death signal.
func dieWithParent(*exec.Cmd) {}
