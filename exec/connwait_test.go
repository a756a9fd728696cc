package exec

import (
	"fmt"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

const connWaitPlan = `
target "t" {
  url         = "http://%s"
  connections = 1
  timeout     = "1s"
}
endpoint "slow" {
  path = "/delay/600"
}
load {
  stage {
    duration = "300ms"
    rate     = 20
  }
}
`

// The timeout covers the wait for a connection: with one connection and
// answers taking 600 ms, the requests due behind the first wait for it,
// and each ends within 1 s of its due instant, a timeout, never a late
// answer, on both engines. fasthttp once started each request's timeout
// when a connection came free: every request was answered, the second
// 1.18 s after it was due and each later one later still.
func TestTimeoutCoversConnectionWait(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	forEngines(t, func(t *testing.T, engine string) {
		s := compilePlan(t, fmt.Sprintf(connWaitPlan, addr), nil)
		timeout := s.Targets[0].Timeout
		out, rows := runPlan(t, s, Options{Engine: engine})
		checkOneRowPerSlot(t, rows, int(s.Count))
		kinds := countErrors(rows)
		for _, r := range rows {
			if r.Error == results.None && time.Duration(r.Latency) > timeout {
				t.Fatalf("%s: slot %d answered %v after it was due, past its %v timeout (errors %v)",
					out.Engine, r.Slot, time.Duration(r.Latency), timeout, kinds)
			}
		}
		if kinds[results.None] < 1 || kinds[results.Timeout] < len(rows)-2 {
			t.Fatalf("%s: errors %v: want the first answered and the requests behind it timed out", out.Engine, kinds)
		}
	})
}
