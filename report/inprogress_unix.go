//go:build unix

package report

import (
	"errors"
	"syscall"
)

// processAlive says whether a process with this id exists (one of another
// user's answers EPERM: it exists too).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
