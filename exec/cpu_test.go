//go:build unix

package exec

import "syscall"

// processCPU is the process's user + system CPU time so far, in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
