package cli

import (
	"os"
	osexec "os/exec"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

var sliceLine = regexp.MustCompile(`(?m)^se\.slice\s*:\s*(\d+)`)

// threadSlice reads a thread's time slice from /proc (ns), or -1 where the
// kernel does not show it.
func threadSlice(t *testing.T, path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := sliceLine.FindSubmatch(b)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// TestEveryThreadGetsTheShortSlice: after prepareProcess, the threads
// running now and those the runtime makes afterwards (here, for goroutines
// locked to threads of their own) all have latencySlice.
func TestEveryThreadGetsTheShortSlice(t *testing.T) {
	shortenSlices()
	if s := threadSlice(t, "/proc/thread-self/sched"); s != latencySlice {
		t.Skipf("this kernel does not take a slice of one's own (se.slice %d): Linux 6.12 or later does", s)
	}
	const n = 8
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	slices := make([]int64, n)
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			slices[i] = threadSlice(t, "/proc/thread-self/sched")
			ready.Done()
			<-release // keep the thread, so the next goroutine needs another
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
	for i, s := range slices {
		if s != latencySlice {
			t.Errorf("goroutine %d's thread has slice %d ns, want %d", i, s, latencySlice)
		}
	}
}

// A child started by startWithDefaultSlice has the kernel's default slice,
// one started plainly has tressi's short one (which is why Chromium is
// started so).
func TestChildrenStartWithTheDefaultSlice(t *testing.T) {
	shortenSlices()
	if s := threadSlice(t, "/proc/thread-self/sched"); s != latencySlice {
		t.Skipf("this kernel does not take a slice of one's own (se.slice %d)", s)
	}
	child := func(start func(*osexec.Cmd) error) int64 {
		cmd := osexec.Command("sleep", "5")
		if err := start(cmd); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		return threadSlice(t, "/proc/"+strconv.Itoa(cmd.Process.Pid)+"/sched")
	}
	if s := child(startWithDefaultSlice); s == latencySlice || s <= 0 {
		t.Errorf("started with the default slice, the child has %d ns", s)
	}
	runtime.LockOSThread() // so the plain start forks from a thread known to be short
	defer runtime.UnlockOSThread()
	shortenSlices()
	if s := child((*osexec.Cmd).Start); s != latencySlice {
		t.Errorf("started plainly, the child has %d ns, want tressi's %d", s, latencySlice)
	}
}
