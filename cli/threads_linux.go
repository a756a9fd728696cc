package cli

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// yieldToLoops makes every thread of the process SCHED_BATCH, keeping its
// nice value; threads made later inherit it from the thread that makes
// them. A batch thread never preempts the running task when it wakes: it
// waits for the core to come free. The loop engine's loops ask for
// SCHED_OTHER and a short slice on their own threads (exec's loop), so a
// loop whose burst is due takes its core at once, and nothing of tressi's
// own takes it back from a loop mid-burst: not Go's idle threads, which a
// loop wakes whenever it hands the recorder a buffer, nor the recorder's
// (idle priority) or the live views' threads. Traced on one core, such a
// wake-up preempted the loop, went back to sleep, and the kernel then ran
// the idle-priority recorder for 2 ms while the loop waited behind it. The
// share of the core (the nice value's) is unchanged. Best effort: where
// the kernel refuses, the threads stay as they are.
func yieldToLoops() { setPolicy(unix.SCHED_NORMAL, unix.SCHED_BATCH) }

// backToNormal undoes yieldToLoops once the run is over, for the threads
// there are then.
func backToNormal() { setPolicy(unix.SCHED_BATCH, unix.SCHED_NORMAL) }

// setPolicy moves every thread at policy from to policy to. Threads at
// another policy (the recorder's SCHED_IDLE one, a loop's own) are left
// as they are.
func setPolicy(from, to uint32) {
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
		if err != nil || cur.Policy != from {
			continue
		}
		_ = unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: to, Nice: cur.Nice}, 0)
	}
}
