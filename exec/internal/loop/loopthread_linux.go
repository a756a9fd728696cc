package loop

// loopSlice is the time slice a loop's thread asks the kernel for while it
// runs (sys.LatencySlice: SCHED_OTHER, sched_runtime, Linux 6.12 and
// later). A waking thread with a shorter slice than the running task's
// preempts it, so a loop whose burst is due takes its core at once
// instead of waiting out a neighbour's slice (1.4 ms by default) or a
// 4 ms tick. The loop's goroutine is locked to the thread for the run:
// the slice is the thread's, and the Go scheduler would otherwise move the
// loop between threads. tressi's CLI puts the process's other threads at
// SCHED_BATCH for a loop run (SCHED_IDLE for an open one on one CPU:
// cli/threads_linux.go), so that they do not
// preempt the loop in turn.
const loopSlice = 100_000 // ns, the least the kernel takes
