package cli

import (
	"runtime"
	"runtime/debug"

	"github.com/tressi/tressi/exec"
)

// prepareProcess makes the process-wide settings a run wants, which the
// exec library leaves to its caller: at least two Ps, even on one core
// (each of the loop engine's loops holds one, and the recorder needs its
// own, at idle priority); short time slices for every thread, so a loop
// waking for a due burst takes its core at once (slices_linux.go); and,
// once the run's set-up is done, the heap the plan's loading and compiling
// left behind returned to the OS, so the run's heap starts near its
// working size (a long run would otherwise peak at whatever the start-up
// left plus a run's worth of growth).
func prepareProcess(opt *exec.Options) {
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	shortenSlices()
	opt.SetUp = func() { debug.FreeOSMemory() }
}
