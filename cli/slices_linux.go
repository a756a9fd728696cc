package cli

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// latencySlice is the time slice each of tressi's threads asks the kernel
// for (sched_attr's sched_runtime for SCHED_OTHER, Linux 6.12 and later).
// With the default slice (here 1.4 ms) a task the scheduler has just
// picked keeps its core until its slice or the next tick ends, even when
// a loop whose burst is due wakes up behind it: that was most of the open
// model's send-lag tail on a core shared with anything else. A thread
// asking for a shorter slice than the running task's preempts it on
// wake-up. The share of the core is unchanged (that is the nice value's);
// only who runs first on a wake-up is.
const latencySlice = 100_000 // ns, the least the kernel takes

// shortenSlices gives every thread of the process latencySlice. Threads
// made later inherit it from the thread that makes them. Those at another
// policy (the recorder's SCHED_IDLE thread, were it running) are left as
// they are. Best effort: older kernels ignore or refuse it, and then the
// default slice stays.
func shortenSlices() {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		cur, err := unix.SchedGetAttr(tid, 0)
		if err != nil || cur.Policy != unix.SCHED_NORMAL {
			continue
		}
		_ = unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL,
			Nice: cur.Nice, Runtime: latencySlice}, 0)
	}
}
