package cli

import (
	osexec "os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startOnNormalThread starts cmd from a thread put back to SCHED_OTHER and
// the kernel's default slice. The tests run apply in this process, where a
// loop run's threads are SCHED_BATCH until it ends (yieldToLoops), and a
// child inherits its forking thread's policy and slice: Chromium, started
// from a thread with a short slice, segfaulted now and then on a busy
// machine, and never from a plain one. Go forks from the calling
// goroutine's thread, so locking it makes the child inherit this one's.
func startOnNormalThread(cmd *osexec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cur, err := unix.SchedGetAttr(0, 0); err == nil && (cur.Policy == unix.SCHED_BATCH || cur.Policy == unix.SCHED_IDLE || cur.Policy == unix.SCHED_NORMAL && cur.Runtime != 0) {
		_ = unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Nice: cur.Nice}, 0)
		defer func() { _ = unix.SchedSetAttr(0, cur, 0) }() // the thread is the run's again
	}
	return cmd.Start()
}
