package exec

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
	"github.com/tressi/tressi/testserver"
)

const unsolicitedPlan = `
target "t" {
  url         = "http://%s"
  connections = 1
}
endpoint "home" {
  path = "/fault/unsolicited"
}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}
`

// afterUnsolicited is how long after the previous answer a request must
// go out for the server's unsolicited 503 (sent 1 ms after that answer)
// to be certainly waiting on the connection already. A request sent
// sooner (a generator catching up sends back to back) races the 503, and
// no HTTP/1.1 client can tell the two apart.
const afterUnsolicited = 20 * time.Millisecond

// A server that answers 200 and, 1 ms later, sends a 503 nobody asked for
// on the same connection never has a later request answered with that
// 503: a connection with bytes waiting when a request is to go out is
// dropped, and the request goes out on a fresh one, on both engines. With
// one connection the requests go out one after another, so each one's
// distance from the answer before it is known. fasthttp once read the 503
// as the next request's answer (5 to 26 of 40 rows).
func TestUnsolicitedAnswerIsNobodys(t *testing.T) {
	addr := startTarget(t, testserver.Options{})
	forEngines(t, func(t *testing.T, engine string) {
		s := compilePlan(t, fmt.Sprintf(unsolicitedPlan, addr), nil)
		out, rows := runPlan(t, s, Options{Engine: engine})
		checkOneRowPerSlot(t, rows, int(s.Count))
		sort.Slice(rows, func(i, j int) bool { return rows[i].Sent < rows[j].Sent })
		clear := 0
		for i, r := range rows {
			if r.Error != results.None {
				t.Fatalf("%s: row %+v failed", out.Engine, r)
			}
			if i == 0 {
				continue
			}
			prev := rows[i-1]
			if r.Sent-(prev.Scheduled+prev.Latency) < int64(afterUnsolicited) {
				continue // raced the 503
			}
			clear++
			if r.Status != 200 {
				t.Fatalf("%s: slot %d, sent %v after the answer before it, recorded the unsolicited %d",
					out.Engine, r.Slot, time.Duration(r.Sent-(prev.Scheduled+prev.Latency)), r.Status)
			}
		}
		if clear < len(rows)/2 {
			t.Fatalf("%s: only %d of %d requests went out %v after the answer before them: the generator was too late to tell",
				out.Engine, clear, len(rows), afterUnsolicited)
		}
	})
}
