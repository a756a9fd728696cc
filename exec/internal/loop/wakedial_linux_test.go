package loop

import (
	"net"
	"testing"
	"time"

	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"golang.org/x/sys/unix"
)

// helloTransport is a handshake that has its first bytes for the socket
// at once, as crypto/tls's goroutine has its ClientHello, and never ends.
type helloTransport struct{ hello []byte }

func (h *helloTransport) Feed([]byte) error           { return nil }
func (h *helloTransport) Read([]byte) (int, error)    { return 0, nil }
func (h *helloTransport) Write(p []byte) (int, error) { return len(p), nil }
func (h *helloTransport) Pending() []byte             { return h.hello }
func (h *helloTransport) Sent(n int)                  { h.hello = h.hello[n:] }
func (h *helloTransport) Ready() bool                 { return false }
func (h *helloTransport) Err() error                  { return nil }
func (h *helloTransport) EOF()                        {}
func (h *helloTransport) Close()                      {}

// connectingTo is a loopback listener's address as the loop dials it, and
// a poller for the loop under test.
func connectingTo(t *testing.T) (*sys.Poller, unix.Sockaddr, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p, err := sys.NewPoller(16)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	sa, family := sockaddr(ln.Addr().(*net.TCPAddr))
	return p, sa, family
}

// connectedUnseen waits until the kernel connected fd, without the loop's
// poller seeing it.
func connectedUnseen(t *testing.T, fd int) {
	t.Helper()
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	if n, err := unix.Poll(pfd, 5000); n != 1 || err != nil {
		t.Fatalf("the connect did not finish: %d, %v", n, err)
	}
}

// awaitOut waits, up to 2 s, for p to report EPOLLOUT for id, and returns
// its events; false when it never did. A wait ends early when the
// runtime's monitor signals the thread: it waits again.
func awaitOut(t *testing.T, p *sys.Poller, id int32) (uint32, bool) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		n, err := p.Wait(int64(100 * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range p.Evs[:n] {
			if ev.Fd == id && ev.Events&unix.EPOLLOUT != 0 {
				return ev.Events, true
			}
		}
	}
	return 0, false
}

// A handshake's wake can reach the loop after the kernel finished the
// connect but before the loop's wait reported it. Pumping the connection
// then must leave the connect's EPOLLOUT to come: the connection learns it
// is connected and starts its handshake, instead of waiting for its
// timeout in connDialing (which TestH2AutoFallsBackAndH2Refuses hit, now
// and then, on a busy machine).
func TestWakeDuringConnectKeepsTheConnect(t *testing.T) {
	p, sa, family := connectingTo(t)
	ex := &run.Executor{}
	ex.Clock.Base = time.Now()
	l := &evloop{ex: ex, p: p}
	tr := &helloTransport{hello: []byte("client hello")}
	tg := &ltarget{maxConns: 1, timerAt: -1, dialTarget: dialTarget{sa: sa, family: family, connect: int64(5 * time.Second),
		transport: func(func()) (run.Transport, error) { return tr, nil }}}
	c, err := l.openConn(tg)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(c.fd)
	connectedUnseen(t, c.fd)
	l.pump(c) // the handshake's wake
	ev, ok := awaitOut(t, p, c.id)
	if !ok {
		t.Fatal("the loop never learned the socket connected: the wake took its EPOLLOUT")
	}
	l.event(c, ev)
	if c.state != connHandshaking || len(tr.hello) != 0 {
		t.Fatalf("after the connect: state %d, %q unsent", c.state, tr.hello)
	}
}

// The same order for a wss:// session: a wake while it connects leaves
// the connect's EPOLLOUT to come.
func TestWSWakeDuringConnectKeepsTheConnect(t *testing.T) {
	p, sa, family := connectingTo(t)
	ex := &run.Executor{}
	ex.Clock.Base = time.Now()
	host := &evloop{ex: ex, p: p}
	l := &wsLoop{host: host, ex: ex, p: p, rxs: &host.rx}
	tr := &helloTransport{hello: []byte("client hello")}
	tg := &ltarget{maxConns: 1, timerAt: -1, dialTarget: dialTarget{sa: sa, family: family, connect: int64(5 * time.Second),
		upgrade: func(func()) (run.Transport, error) { return tr, nil }}}
	s := l.newSession()
	if err := l.dial(s, tg); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(s.fd)
	connectedUnseen(t, s.fd)
	l.pump(s) // the handshake's wake
	if _, ok := awaitOut(t, p, s.id|sys.WSBit); !ok {
		t.Fatal("the loop never learned the session's socket connected: the wake took its EPOLLOUT")
	}
	if s.state != wsDialing || len(tr.hello) == 0 {
		t.Fatalf("before the loop saw the connect: state %d, %q unsent", s.state, tr.hello)
	}
}
