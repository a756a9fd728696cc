package background

import (
	"runtime"

	"golang.org/x/sys/unix"
)

func thread() {
	runtime.LockOSThread()
	// With a thread's id, setpriority sets that thread's nice value only.
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
}
