package exec

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tressi/tressi/testserver"
)

// The recorder writes on a thread of its own at idle priority; when the
// run ends, that thread must end with it. Handed back to the runtime, it
// would run whatever goroutine landed on it next (a later run's loop, a
// TLS handshake, the report) at idle priority, starved by every other
// process: handshakes of a second run in one process then took 20 s on a
// machine with two busy processes, where the first took 1.6 s.
func TestRecorderLeavesNoIdleThread(t *testing.T) {
	_, addr, err := testserver.StartLoopback(t)
	if err != nil {
		t.Fatal(err)
	}
	s := compilePlan(t, fmt.Sprintf(`
target "t" {
  url = "http://%s"
}
endpoint "root" {
  path = "/"
}
load {
  stage {
    duration = "200ms"
    rate     = 100
  }
}
`, addr), nil)
	out, _ := runPlan(t, s, Options{})
	if out.Engine != EngineLoop {
		t.Skipf("engine %s: the recorder runs at idle priority beside the loop engine only", out.Engine)
	}
	// The thread ends just after the recorder's goroutine: give it time.
	var idle []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		idle = idleThreads(t)
		if len(idle) == 0 {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Fatalf("threads %v are still at idle priority (SCHED_IDLE) after the run", idle)
}

// idleThreads lists this process's threads whose policy is SCHED_IDLE, but
// the main thread: when the recorder happened to run on it, the runtime
// cannot end it and parks it for good instead (runtime.mexit), so it runs
// nothing again.
func idleThreads(t *testing.T) []string {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	main := strconv.Itoa(os.Getpid())
	var idle []string
	for _, task := range tasks {
		if task.Name() == main {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		// Fields after the command's closing parenthesis; policy is the
		// 41st field of the line, the 39th after it.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		if f := strings.Fields(rest); len(f) > 38 && f[38] == "5" { // SCHED_IDLE
			idle = append(idle, task.Name())
		}
	}
	return idle
}
