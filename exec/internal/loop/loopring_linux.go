package loop

import (
	"os"
	"syscall"

	"github.com/tressi/tressi/exec/internal/sys"
)

// The loop's io_uring part: where the poller's ring is started, which
// connections move to it, and their sends and receives as completions
// (the ring itself is sys/uring_linux.go's). With TRESSI_POLLER=io_uring a
// closed-model loop without receive stamps starts the ring; its plain-TCP
// HTTP/1.1 connections move to the ring at their first request, everything
// else (connects, TLS, HTTP/2, WebSocket sessions, the open model, whose
// reads carry the kernel's receive stamps) stays on epoll. epoll is the
// default: in alternating rounds the ring did not beat it by a margin
// that held (docs/engines.md, "The poller").

// pollerEnv names the environment variable that picks the poller:
// "io_uring" puts what it can on the ring where the kernel allows it;
// unset, "epoll" or anything else keeps every connection on epoll.
const pollerEnv = "TRESSI_POLLER"

func ringWanted() bool { return os.Getenv(pollerEnv) == "io_uring" }

// startRing starts the poller's ring when this loop may use it; on the
// loop's own thread, which the ring is bound to. Where the kernel refuses
// (too old, or io_uring disabled), the loop stays on epoll.
func (l *evloop) startRing() {
	if l.rx.On || !ringWanted() {
		return
	}
	conns := 0
	for _, t := range l.targets {
		if t.proto == protoHTTP1 && t.transport == nil {
			conns += t.maxConns
		}
	}
	if conns > 0 {
		_ = l.p.StartRing(conns)
	}
}

// toRing moves c, plain HTTP/1.1 about to send, from epoll to the ring.
func (l *evloop) toRing(c *lconn) {
	if err := l.p.Attach(c.fd, c.id); err != nil {
		l.fail(c, err)
		return
	}
	c.ring = true
	l.ex.RingConns.Add(1)
	if c.wantOut {
		c.wantOut = false
		l.outs--
	}
}

// ringSend submits c's request to the ring; its bytes stay in c.pending
// until the send's completion (ringSent). The sent instant is the one
// stamped before: the send reaches the kernel at once.
func (l *evloop) ringSend(c *lconn) {
	if err := l.p.Send(c.id, c.pending); err != nil {
		l.fail(c, err)
	}
}

// completions hands the ring's completions to their connections.
func (l *evloop) completions() {
	for i := range l.p.Done {
		d := &l.p.Done[i]
		c := l.conns[d.ID]
		if c.fd < 0 || !c.ring {
			continue // closed while handling this batch
		}
		if d.Send {
			l.ringSent(c, d.Res)
		} else {
			l.ringRead(c, d)
		}
	}
}

// ringSent follows a send's completion: all of c.pending went (the ring
// sends with MSG_WAITALL), or the socket failed.
func (l *evloop) ringSent(c *lconn, res int32) {
	if c.pending == nil || c.state != connBusy {
		return
	}
	if res < 0 {
		l.fail(c, os.NewSyscallError("write", syscall.Errno(-res)))
		return
	}
	c.out += int64(res)
	if int(res) < len(c.pending) {
		c.pending = c.pending[res:]
		l.ringSend(c)
		return
	}
	c.pending = nil
}

// ringRead hands what a receive brought to c's codec, the way read does
// with what it reads: the bytes, the peer's close or the socket's error.
// An idle connection has nothing to say: any of them ends it.
func (l *evloop) ringRead(c *lconn, d *sys.Completion) {
	if c.state != connBusy {
		l.closeConn(c)
		l.refill(c.t)
		return
	}
	switch {
	case d.Res == 0:
		l.eof(c)
		return
	case d.Res < 0:
		l.fail(c, os.NewSyscallError("read", syscall.Errno(-d.Res)))
		return
	}
	data := d.Data
	c.rxAt = l.ex.Clock.Now()
	for len(data) > 0 {
		if c.fd < 0 || !c.ring {
			return
		}
		if c.state != connBusy {
			// Bytes beyond the response, left for a connection that is
			// idle now: as on epoll, they end it.
			l.closeConn(c)
			l.refill(c.t)
			return
		}
		buf := c.rbuf[c.rlen:]
		n := copy(buf, data)
		data = data[n:]
		c.in += int64(n)
		c.rlen += n
		l.decode(c, n == len(buf))
	}
}
