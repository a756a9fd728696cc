package cli

import (
	osexec "os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startWithDefaultSlice starts cmd from a thread put back to the kernel's
// default slice. The tests run apply in this process, whose threads take
// latencySlice (shortenSlices), and a child inherits its forking thread's:
// Chromium, started so, segfaulted now and then on a busy machine, and
// never with the default. Go forks from the calling goroutine's thread, so
// locking it makes the child inherit this one's.
func startWithDefaultSlice(cmd *osexec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cur, err := unix.SchedGetAttr(0, 0); err == nil && cur.Policy == unix.SCHED_NORMAL && cur.Runtime != 0 {
		_ = unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Nice: cur.Nice}, 0)
	}
	return cmd.Start()
}
