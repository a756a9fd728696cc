package background

import (
	"testing"

	"golang.org/x/sys/unix"
)

// nice is the calling thread's nice value.
func nice(t *testing.T) int {
	t.Helper()
	// getpriority returns 20 - nice on Linux.
	p, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

// A goroutine that calls Thread runs at nice 19 from then on, on its own
// thread; the other threads keep their priority.
func TestThreadLowersOnlyItsOwn(t *testing.T) {
	before := nice(t)
	if before == 19 {
		t.Skip("the test already runs at nice 19: nothing to tell apart")
	}
	got := make(chan [2]int)
	go func() {
		Thread()
		first := nice(t)
		for range 100 { // a goroutine locked to its thread stays on it
			_ = make([]byte, 1<<10)
		}
		got <- [2]int{first, nice(t)}
	}()
	g := <-got
	if g[0] != 19 || g[1] != 19 {
		t.Errorf("the background goroutine's thread at nice %d, then %d; want 19", g[0], g[1])
	}
	if n := nice(t); n != before {
		t.Errorf("the test's thread went from nice %d to %d", before, n)
	}
}
