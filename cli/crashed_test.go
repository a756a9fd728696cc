package cli

import (
	"errors"
	osexec "os/exec"
	"syscall"
)

// crashed says whether err is a process killed by a signal.
func crashed(err error) bool {
	var ee *osexec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}
