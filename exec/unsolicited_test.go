package exec

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/tressi/tressi/results"
)

const unsolicitedPlan = `
target "t" {
  url         = "http://%s"
  connections = 1
}
endpoint "home" {
  path = "/"
}
load {
  stage {
    duration = "1s"
    rate     = 20
  }
}
`

// unsolicitedServer answers every request on a connection with a 200
// and, 1 ms later, a 503 nobody asked for, and remembers when it wrote
// each 503 (after the answer to the request before it). A busy machine
// may sleep far longer than 1 ms, so the test judges by these instants,
// not by the pause.
type unsolicitedServer struct {
	addr string
	mu   sync.Mutex
	sent []unsolicitedWrite
}

type unsolicitedWrite struct{ answered, unsolicited time.Time }

func startUnsolicitedServer(t *testing.T) *unsolicitedServer {
	t.Helper()
	us := &unsolicitedServer{}
	us.addr = rawServer(t, func(c net.Conn, req *http.Request) bool {
		io.Copy(io.Discard, req.Body)
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"); err != nil {
			return false
		}
		answered := time.Now()
		time.Sleep(time.Millisecond)
		_, err := io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 12\r\n\r\nunsolicited\n")
		us.mu.Lock() // kept when the write failed too: one entry per answer
		us.sent = append(us.sent, unsolicitedWrite{answered, time.Now()})
		us.mu.Unlock()
		return err == nil
	})
	return us
}

// writes is every 503 written so far, in the order of the answers before them.
func (us *unsolicitedServer) writes() []unsolicitedWrite {
	us.mu.Lock()
	defer us.mu.Unlock()
	w := slices.Clone(us.sent)
	sort.Slice(w, func(i, j int) bool { return w[i].answered.Before(w[j].answered) })
	return w
}

// afterUnsolicited is how long after the 503 was written a request must
// go out for the 503 to be certainly waiting on the connection when the
// client looked: the look comes just before the send, the sent stamp just
// after it. A request sent sooner races the 503, and no HTTP/1.1 client
// can tell the two apart.
const afterUnsolicited = 10 * time.Millisecond

// A server that answers 200 and, 1 ms later, sends a 503 nobody asked for
// on the same connection never has a later request answered with that
// 503: a connection with bytes waiting when a request is to go out is
// dropped, and the request goes out on a fresh one, on both engines. With
// one connection the requests go out one after another, so the 503 that
// followed the answer before each one is known, and when it was written.
// fasthttp once read the 503 as the next request's answer (5 to 26 of 40
// rows).
func TestUnsolicitedAnswerIsNobodys(t *testing.T) {
	us := startUnsolicitedServer(t)
	forEngines(t, func(t *testing.T, engine string) {
		s := compilePlan(t, fmt.Sprintf(unsolicitedPlan, us.addr), nil)
		dir := filepath.Join(t.TempDir(), "run")
		out, err := Run(t.Context(), s, Options{Engine: engine, OutDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		bySlot, meta := sessionRows(t, dir)
		var rows []results.Row
		for _, rs := range bySlot {
			for _, r := range rs {
				rows = append(rows, r.Row)
			}
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i].Slot < rows[j].Slot })
		checkOneRowPerSlot(t, rows, int(s.Count))
		sort.Slice(rows, func(i, j int) bool { return rows[i].Sent < rows[j].Sent })
		writes := us.writes()
		us.mu.Lock()
		us.sent = nil // the next engine's run starts afresh
		us.mu.Unlock()
		clear := 0
		for i, r := range rows {
			if r.Error != results.None {
				t.Fatalf("%s: row %+v failed", out.Engine, r)
			}
			if i == 0 || i-1 >= len(writes) {
				continue
			}
			written := writes[i-1].unsolicited.UnixNano() - meta.StartUnixNs
			if r.Sent-written < int64(afterUnsolicited) {
				continue // raced the 503
			}
			clear++
			if r.Status != 200 {
				t.Fatalf("%s: slot %d, sent %v after the 503 was written, recorded the unsolicited %d",
					out.Engine, r.Slot, time.Duration(r.Sent-written), r.Status)
			}
		}
		t.Logf("%s: %d of %d requests went out %v after the 503 before them", out.Engine, clear, len(rows), afterUnsolicited)
		if clear < len(rows)/4 {
			t.Fatalf("%s: only %d of %d requests went out %v after the 503 before them: the generator was too late to tell",
				out.Engine, clear, len(rows), afterUnsolicited)
		}
	})
}
