package chaos

import (
	"os/exec"
	"syscall"
)

// dieWithParent: the etcd servers and heron processes a schedule starts
// get SIGKILL when the runner dies (a test's timeout, a killed make chaos),
// so that none is left behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
