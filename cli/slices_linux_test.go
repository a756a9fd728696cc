package cli

import (
	"os"
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
