package sys

import (
	"os"
	"regexp"
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

var sliceLine = regexp.MustCompile(`(?m)^se\.slice\s*:\s*(\d+)`)

// threadSlice is the calling thread's time slice as /proc shows it (ns),
// or -1 where the kernel does not show it.
func threadSlice(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/thread-self/sched")
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

func policy(t *testing.T) uint32 {
	a, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return a.Policy
}

// A loop's thread is SCHED_OTHER with the slice it asks for while it runs,
// whatever the CLI made the process's threads (SCHED_BATCH), and goes back
// to what it was after.
func TestLatencySliceFromBatch(t *testing.T) {
	runtime.LockOSThread() // never unlocked: the thread ends with the test's goroutine
	if err := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_BATCH}, 0); err != nil {
		t.Skipf("this kernel refuses SCHED_BATCH: %v", err)
	}
	before := threadSlice(t)
	restore := LatencySlice(100_000)
	if p := policy(t); p != unix.SCHED_NORMAL {
		t.Errorf("policy %d while the loop runs, want SCHED_OTHER (%d)", p, unix.SCHED_NORMAL)
	}
	if s := threadSlice(t); s != 100_000 {
		if s != -1 && s != before {
			t.Errorf("slice %d ns while the loop runs, want 100000", s)
		}
		t.Logf("this kernel does not take a slice of one's own (se.slice %d): Linux 6.12 or later does", s)
	}
	restore()
	if p := policy(t); p != unix.SCHED_BATCH {
		t.Errorf("policy %d after the loop, want SCHED_BATCH (%d) back", p, unix.SCHED_BATCH)
	}
	if s := threadSlice(t); s != before {
		t.Errorf("slice %d ns after the loop, want %d back", s, before)
	}
}
