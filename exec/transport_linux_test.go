package exec

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/results"
)

// relayTransport is a transport that changes no byte but does what a TLS
// layer does to the loop: a handshake finished on another goroutine that
// wakes the loop, and every byte each way passing through its buffers.
type relayTransport struct {
	wake          func()
	ready         atomic.Bool
	in, out       []byte
	fed, written  *atomic.Int64
	handshakeWait time.Duration
}

func (r *relayTransport) Feed(b []byte) error {
	r.fed.Add(int64(len(b)))
	r.in = append(r.in, b...)
	return nil
}

func (r *relayTransport) Read(p []byte) (int, error) {
	n := copy(p, r.in)
	r.in = r.in[:copy(r.in, r.in[n:])]
	return n, nil
}

func (r *relayTransport) Write(p []byte) (int, error) {
	r.written.Add(int64(len(p)))
	r.out = append(r.out, p...)
	return len(p), nil
}

func (r *relayTransport) Pending() []byte { return r.out }
func (r *relayTransport) Sent(n int)      { r.out = r.out[:copy(r.out, r.out[n:])] }
func (r *relayTransport) Ready() bool     { return r.ready.Load() }
func (r *relayTransport) Close()          {}
func (r *relayTransport) Err() error      { return nil }
func (r *relayTransport) EOF()            {}

// Requests through a transport whose handshake ends off the loop: the
// loop waits for the wake-up, then every byte each way goes through the
// transport and every request is answered, on both models.
func TestLoopTransportSeam(t *testing.T) {
	srv := serve(t, ok)
	for _, model := range []compile.Model{compile.Open, compile.Closed} {
		var fed, written atomic.Int64
		var handshakes sync.WaitGroup
		factory := func(wake func()) (run.Transport, error) {
			r := &relayTransport{wake: wake, fed: &fed, written: &written, handshakeWait: 5 * time.Millisecond}
			handshakes.Go(func() {
				time.Sleep(r.handshakeWait)
				r.ready.Store(true)
				wake()
			})
			return r, nil
		}
		s := schedule(srv.addr, 40, 2*time.Millisecond)
		s.Targets[0].Connections = 4
		if model == compile.Closed {
			s.Model = compile.Closed
			s.Users = []compile.UserSpan{{Start: 0, Stop: int64(400 * time.Millisecond)}, {Start: 0, Stop: int64(400 * time.Millisecond)}}
		}
		out, rows := runPlan(t, s, Options{Engine: EngineLoop, transport: factory})
		handshakes.Wait()
		if out.Engine != EngineLoop {
			t.Fatalf("engine %q", out.Engine)
		}
		var in, sent int64
		for _, r := range rows {
			if r.Error != results.None || r.Status != 200 {
				t.Fatalf("%v: row %+v", model, r)
			}
			in += int64(r.BytesIn)
			sent += int64(r.BytesOut)
		}
		if len(rows) == 0 || fed.Load() != in || written.Load() != sent {
			t.Fatalf("%v: %d rows; transport fed %d bytes, rows read %d; transport took %d, rows sent %d",
				model, len(rows), fed.Load(), in, written.Load(), sent)
		}
	}
}
