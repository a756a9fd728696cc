package cli

import (
	"os"
	"runtime"
	"strconv"
	"sync"

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
//
// With idle, the threads go to SCHED_IDLE instead (see idleForLoops).
func yieldToLoops(idle bool) {
	if idle {
		setPolicy(unix.SCHED_NORMAL, unix.SCHED_IDLE)
		return
	}
	setPolicy(unix.SCHED_NORMAL, unix.SCHED_BATCH)
}

// backToNormal undoes yieldToLoops once the run is over, for the threads
// there are then. An idle thread left is a yielded one, or the recorder's
// of a run that is over (its thread ends with it).
func backToNormal() {
	setPolicy(unix.SCHED_BATCH, unix.SCHED_NORMAL)
	if idleReversible() {
		setPolicy(unix.SCHED_IDLE, unix.SCHED_NORMAL)
	}
}

// idleForLoops says whether an open-model run's other threads go to
// SCHED_IDLE rather than SCHED_BATCH: when the process has one CPU, nothing
// of it serves a live view, and the kernel lets a thread leave SCHED_IDLE
// again. A batch thread that got the core while the loop slept between
// bursts keeps it when the loop wakes, for up to a tick (2.8 ms traced at
// 55k req/s on one core), and hundreds of sends fall late behind it; the
// kernel preempts an idle-policy thread for the loop at once, and at
// 55k req/s such runs had a fifth of the late sends (bench/README.md,
// "Session 15"). Not with a live view: past the knee the loop keeps its
// core, and an idle thread would get almost none of it. Not with more
// CPUs than one: measured on one core only, and the loops' other threads
// (the tests' in-process servers among them) have other cores there.
func idleForLoops(open, watched bool) bool {
	return open && !watched && oneCPU() && idleReversible()
}

// oneCPU says whether the process may run on one CPU only (taskset -c N).
func oneCPU() bool {
	var set unix.CPUSet
	return unix.SchedGetaffinity(0, &set) == nil && set.Count() == 1
}

// idleReversible says whether a thread put at SCHED_IDLE can be put back:
// leaving it needs CAP_SYS_NICE or an RLIMIT_NICE of 20 (the kernel's
// can_nice). Tried once, on a thread of its own that ends with the try
// when the way back is refused, so no thread stays idle.
var idleReversible = sync.OnceValue(func() bool {
	ok := make(chan bool)
	go func() {
		runtime.LockOSThread()
		cur, err := unix.SchedGetAttr(0, 0)
		if err != nil || unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0) != nil {
			runtime.UnlockOSThread()
			ok <- false
			return
		}
		back := unix.SchedSetAttr(0, cur, 0) == nil
		if back {
			runtime.UnlockOSThread()
		} // else: the goroutine ends locked, and the idle thread with it
		ok <- back
	}()
	return <-ok
})

// setPolicy moves every thread at policy from to policy to. Threads at
// another policy (the recorder's SCHED_IDLE one, a loop's own) are left
// as they are. A thread the runtime makes while a pass reads the list
// inherits from, from the thread that made it, and the next pass finds
// it: the passes go on until one moves nothing (CI once caught a thread
// left SCHED_BATCH after a run, and the threads made from it after).
func setPolicy(from, to uint32) {
	for range 8 {
		if movePolicy(from, to) == 0 {
			return
		}
	}
}

// movePolicy is one pass of setPolicy: the number of threads it moved.
func movePolicy(from, to uint32) int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	moved := 0
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		cur, err := unix.SchedGetAttr(tid, 0)
		if err != nil || cur.Policy != from {
			continue
		}
		if unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: to, Nice: cur.Nice}, 0) == nil {
			moved++
		}
	}
	return moved
}
