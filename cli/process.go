package cli

import (
	"runtime"
	"runtime/debug"

	"github.com/tressi/tressi/exec"
)

// prepareProcess makes the process-wide settings a run wants, which the
// exec library leaves to its caller, and returns what undoes those that
// outlive the run: at least two Ps, even on one core (each of the loop
// engine's loops holds one, and the recorder needs its own, at idle
// priority); once the run's set-up is done, the heap the plan's loading
// and compiling left behind returned to the OS, so the run's heap starts
// near its working size (a long run would otherwise peak at whatever the
// start-up left plus a run's worth of growth), and in small pages
// (dropHugeHeap); and, when the loop engine
// is the one starting, every thread but the loops' own stepping back for
// them (threads_linux.go) until the run is over: at idle priority when
// the run is open and on one CPU with no live view (see idleForLoops).
func prepareProcess(opt *exec.Options, open bool) (restore func()) {
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	opt.SetUp = func(engine string) {
		debug.FreeOSMemory()
		dropHugeHeap()
		if engine == exec.EngineLoop {
			// Read now: the live views set Observe after prepareProcess.
			yieldToLoops(idleForLoops(open, opt.Observe != nil))
		}
	}
	return backToNormal
}
