package sys

import (
	"fmt"
	"os"

	"github.com/tressi/tressi/internal/uring"
	"golang.org/x/sys/unix"
)

// The poller's io_uring half. A connection attached to the ring leaves the
// epoll set: one multishot receive for its life fills buffers the poller
// provides, and its sends are submissions, each entered at once (Send), so
// a request costs one io_uring_enter for its send and one completion, and
// a wake-up one io_uring_enter that waits for the next completion: no
// read, no epoll_wait. The epoll set stays for everything else (connects,
// TLS, HTTP/2, WebSocket, the wake-up eventfd): a multishot poll of the epoll
// descriptor in the ring says when it has events, and only then does Wait
// ask it.

// Completion is an attached connection's finished I/O, in Poller.Done
// after a Wait.
type Completion struct {
	ID   int32
	Send bool  // a send's completion, else a receive's
	Res  int32 // bytes, 0 (a receive: the peer's close), or -errno
	// Data is a receive's bytes, valid until the next Wait.
	Data []byte
}

// Kinds of submissions, in their user data's top bits; the low 32 bits
// are the connection's id, the 30 between its attachment's generation, so
// a completion of a connection closed since is known and dropped.
const (
	udRecv uint64 = iota << 62
	udSend
	udPoll
	udCancel
	udKind = 3 << 62
)

func userData(kind uint64, id int32, gen uint32) uint64 {
	return kind | uint64(gen&(1<<30-1))<<32 | uint64(uint32(id))
}

const (
	bufGroup = 1
	// recvBuf is a provided buffer's size: a response of a few hundred
	// bytes takes one, a larger one a completion per buffer.
	recvBuf = 2 << 10
)

// ringConn is what the poller keeps of an attached connection.
type ringConn struct {
	fd  int32
	gen uint32
	on  bool
}

type ringPoller struct {
	r     *uring.Ring
	bufs  *uring.BufRing
	conns []ringConn // by connection id
	given []uint16   // buffers the last Done held, given back at the next Wait
	// epollDue: the epoll set had events at the last look, so Wait asks it
	// again (level-triggered readiness left over wakes no poll).
	epollDue bool
}

// StartRing sets up the poller's io_uring for about conns connections,
// on the thread that will wait on it for its whole life (the ring takes
// submissions from one thread only). After it, Attach moves connections
// to the ring. An error leaves the poller on epoll alone.
func (p *Poller) StartRing(conns int) error {
	entries := uint32(64)
	for entries < uint32(2*conns) && entries < 4096 {
		entries *= 2
	}
	r, err := uring.New(entries, 4*entries)
	if err != nil {
		return err
	}
	if !r.ExtArg() {
		r.Close()
		return fmt.Errorf("io_uring: waits with a timeout need Linux 5.11")
	}
	nbuf := 64
	for nbuf < 2*conns && nbuf < 1<<15 {
		nbuf *= 2
	}
	bufs, err := uring.NewBufRing(r, bufGroup, nbuf, recvBuf)
	if err != nil {
		r.Close()
		return err
	}
	if err := r.PollMultishot(p.epfd, unix.POLLIN, userData(udPoll, 0, 0)); err != nil {
		bufs.Close()
		r.Close()
		return err
	}
	p.ring = &ringPoller{r: r, bufs: bufs, epollDue: true}
	return nil
}

// Ring says connections may be attached.
func (p *Poller) Ring() bool { return p.ring != nil }

// Attach moves connection id's socket fd from the epoll set to the ring:
// its receives come as completions from now on, and it sends with Send.
// The socket turns blocking for the ring (which never blocks on it), so
// nothing may read or write it directly any more.
func (p *Poller) Attach(fd int, id int32) error {
	rp := p.ring
	if err := p.Remove(fd); err != nil {
		return err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	for int(id) >= len(rp.conns) {
		rp.conns = append(rp.conns, ringConn{})
	}
	c := &rp.conns[id]
	c.fd, c.on = int32(fd), true
	return rp.r.RecvMultishot(fd, bufGroup, userData(udRecv, id, c.gen))
}

// Send submits b for attached connection id's socket at once; b must stay
// as it is until the send's completion, which says how much went or why
// none did. At once, not with the next wait: held back for the wait, a
// wake-up's requests reached the server together after the loop had
// handled every completion, and the server sat idle meanwhile (closed
// model, 50 users, against the built-in Go target: 20-30 % fewer requests
// a second, and no less CPU per request; bench/README.md).
func (p *Poller) Send(id int32, b []byte) error {
	rp := p.ring
	c := &rp.conns[id]
	if err := rp.r.Send(int(c.fd), b, userData(udSend, id, c.gen)); err != nil {
		return err
	}
	return rp.r.Enter(0, 0)
}

// Detach forgets attached connection id before its socket closes: what
// it had submitted is cancelled (the ring holds the socket open until
// then), and its completions still to come are dropped.
func (p *Poller) Detach(id int32) {
	rp := p.ring
	c := &rp.conns[id]
	if !c.on {
		return
	}
	// A cancel's failure (nothing left to cancel) comes back, and is
	// dropped with the other udCancel completions.
	_ = rp.r.Cancel(userData(udRecv, id, c.gen), udCancel)
	_ = rp.r.Cancel(userData(udSend, id, c.gen), udCancel)
	c.gen++
	c.on = false
}

// waitRing is Wait with the ring: submit, wait for a completion (or the
// epoll set's poll), then reap into Done, and read the epoll set when it
// has events.
func (p *Poller) waitRing(timeout int64) (int, error) {
	rp := p.ring
	for _, b := range rp.given {
		rp.bufs.Give(b)
	}
	rp.given = rp.given[:0]
	rp.bufs.Publish()
	p.Done = p.Done[:0]
	least := uint32(1)
	if rp.epollDue || timeout <= 0 {
		least = 0
	}
	if err := rp.r.Enter(least, timeout); err != nil {
		return 0, err
	}
	if err := p.reap(); err != nil {
		return 0, err
	}
	if !rp.epollDue {
		return 0, nil
	}
	n, err := p.waitEpoll(0)
	rp.epollDue = n > 0
	return n, err
}

// reap takes the ring's completions: the attached connections' into Done,
// the epoll poll's as epollDue; a multishot submission the kernel ended
// (its buffers ran out, say) goes in again.
func (p *Poller) reap() error {
	rp := p.ring
	head, tail := rp.r.Completions()
	for ; head != tail; head++ {
		e := rp.r.At(head)
		kind, id := e.UserData&udKind, int32(uint32(e.UserData))
		gen := uint32(e.UserData>>32) & (1<<30 - 1)
		switch kind {
		case udCancel:
			continue
		case udPoll:
			rp.epollDue = true
			if !e.More() {
				if err := rp.r.PollMultishot(p.epfd, unix.POLLIN, userData(udPoll, 0, 0)); err != nil {
					return err
				}
			}
			continue
		}
		bid, hasBuf := e.Buffer()
		if hasBuf {
			rp.given = append(rp.given, bid)
		}
		c := &rp.conns[id]
		if !c.on || c.gen&(1<<30-1) != gen {
			continue // a connection closed since
		}
		if kind == udSend {
			p.Done = append(p.Done, Completion{ID: id, Send: true, Res: e.Res})
			continue
		}
		ended := !e.More()
		if ended && (e.Res > 0 || e.Res == -int32(unix.ENOBUFS)) {
			// Armed again, it runs once the buffers read are back.
			if err := rp.r.RecvMultishot(int(c.fd), bufGroup, userData(udRecv, id, c.gen)); err != nil {
				return err
			}
		}
		if e.Res == -int32(unix.ENOBUFS) {
			continue
		}
		d := Completion{ID: id, Res: e.Res}
		if hasBuf && e.Res > 0 {
			d.Data = rp.bufs.Bytes(bid, int(e.Res))
		}
		p.Done = append(p.Done, d)
	}
	rp.r.Reaped(tail)
	return nil
}

func (rp *ringPoller) close() {
	rp.bufs.Close()
	rp.r.Close()
}
