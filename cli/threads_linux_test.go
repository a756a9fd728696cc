package cli

import (
	osexec "os/exec"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

func policyOf(t *testing.T, tid int) uint32 {
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatal(err)
	}
	return a.Policy
}

// newThreadPolicies makes n threads (goroutines locked to threads of their
// own) and returns the policy each started with.
func newThreadPolicies(t *testing.T, n int) []uint32 {
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	got := make([]uint32, n)
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			got[i] = policyOf(t, 0)
			ready.Done()
			<-release // keep the thread, so the next goroutine needs another
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
	return got
}

// checkNewThreadsThenNormal checks, during a yielded run, that threads made
// now start at policy want (named name), then ends the run and checks that
// this thread and threads made afterwards are SCHED_OTHER.
func checkNewThreadsThenNormal(t *testing.T, want uint32, name string) {
	t.Helper()
	for i, p := range newThreadPolicies(t, 8) {
		if p != want {
			t.Errorf("during the run, new thread %d has policy %d, want %s", i, p, name)
		}
	}
	backToNormal()
	if p := policyOf(t, 0); p != unix.SCHED_NORMAL {
		t.Errorf("after the run this thread has policy %d, want SCHED_OTHER", p)
	}
	for i, p := range newThreadPolicies(t, 8) {
		if p != unix.SCHED_NORMAL {
			t.Errorf("after the run, new thread %d has policy %d, want SCHED_OTHER", i, p)
		}
	}
}

// TestThreadsYieldToLoopsAndComeBack: for a loop run every thread is
// SCHED_BATCH, those running then and those the runtime makes afterwards;
// after it, SCHED_OTHER again.
func TestThreadsYieldToLoopsAndComeBack(t *testing.T) {
	yieldToLoops(false)
	defer backToNormal()
	if p := policyOf(t, 0); p != unix.SCHED_BATCH {
		t.Skipf("this kernel keeps the threads at policy %d", p)
	}
	checkNewThreadsThenNormal(t, unix.SCHED_BATCH, "SCHED_BATCH")
}

// A child started by startOnNormalThread is SCHED_OTHER even during a loop
// run; one started plainly then inherits SCHED_BATCH (which is why
// Chromium is started so).
func TestChildrenStartOnNormalThreads(t *testing.T) {
	runtime.LockOSThread() // so the plain start forks from a thread known to be batch
	defer runtime.UnlockOSThread()
	yieldToLoops(false)
	defer backToNormal()
	if p := policyOf(t, 0); p != unix.SCHED_BATCH {
		t.Skipf("this kernel keeps the threads at policy %d", p)
	}
	child := func(start func(*osexec.Cmd) error) uint32 {
		cmd := osexec.Command("sleep", "5")
		if err := start(cmd); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		return policyOf(t, cmd.Process.Pid)
	}
	if p := child(startOnNormalThread); p != unix.SCHED_NORMAL {
		t.Errorf("started on a normal thread, the child has policy %d, want SCHED_OTHER", p)
	}
	if p := policyOf(t, 0); p != unix.SCHED_BATCH {
		t.Fatalf("this thread has policy %d", p)
	}
	if p := child((*osexec.Cmd).Start); p != unix.SCHED_BATCH {
		t.Errorf("started plainly, the child has policy %d, want the run's SCHED_BATCH", p)
	}
}

// TestThreadsIdleForLoopsAndComeBack: an open run on one CPU puts every
// thread at SCHED_IDLE, those made afterwards too, and all of them back at
// SCHED_OTHER after it, where the kernel allows the way back.
func TestThreadsIdleForLoopsAndComeBack(t *testing.T) {
	if !idleReversible() {
		t.Skip("this process cannot leave SCHED_IDLE (no CAP_SYS_NICE, RLIMIT_NICE below 20): runs stay at SCHED_BATCH")
	}
	yieldToLoops(true)
	defer backToNormal()
	if p := policyOf(t, 0); p != unix.SCHED_IDLE {
		t.Fatalf("during the run this thread has policy %d, want SCHED_IDLE", p)
	}
	checkNewThreadsThenNormal(t, unix.SCHED_IDLE, "SCHED_IDLE")
}

// TestIdleForLoopsWhen: idle priority only for an open run with no live
// view, on one CPU.
func TestIdleForLoopsWhen(t *testing.T) {
	runtime.LockOSThread() // the affinity below is this thread's
	defer runtime.UnlockOSThread()
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unix.SchedSetaffinity(0, &all) }()
	var one unix.CPUSet
	for cpu := range 1024 {
		if all.IsSet(cpu) {
			one.Set(cpu)
			break
		}
	}
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Fatal(err)
	}
	rev := idleReversible()
	for _, c := range []struct {
		open, watched, want bool
	}{{true, false, rev}, {true, true, false}, {false, false, false}, {false, true, false}} {
		if got := idleForLoops(c.open, c.watched); got != c.want {
			t.Errorf("one CPU, open %v, live view %v: idle %v, want %v", c.open, c.watched, got, c.want)
		}
	}
	if all.Count() > 1 {
		if err := unix.SchedSetaffinity(0, &all); err != nil {
			t.Fatal(err)
		}
		if idleForLoops(true, false) {
			t.Errorf("on %d CPUs an open run without a live view went idle, want batch", all.Count())
		}
	}
}
