package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// loop is the bare event loop: connections in one epoll set, each with at
// most one request in flight, and a timerfd that paces the open model.
type loop struct {
	ep      int
	request []byte
	// respLen is the size of every response, learnt from the first one:
	// after that a response is complete when that many bytes have come.
	respLen int
	conns   []conn
	byFd    map[int32]*conn
	events  []unix.EpollEvent
	buf     []byte
	// noPwait2: the kernel has no epoll_pwait2 (open model's waits).
	noPwait2 bool
	done     int64
	late     int64
	busy     int // connections with a request in flight
}

type conn struct {
	fd   int
	got  int  // bytes of the current response read so far
	busy bool // a request is in flight
}

func newLoop(addr netip.AddrPort, request []byte, n int) (*loop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	l := &loop{ep: ep, request: request, byFd: map[int32]*conn{}, events: make([]unix.EpollEvent, 256),
		buf: make([]byte, 64<<10), conns: make([]conn, 0, n)}
	for range n {
		fd, err := dial(addr)
		if err != nil {
			l.close()
			return nil, err
		}
		l.conns = append(l.conns, conn{fd: fd})
		c := &l.conns[len(l.conns)-1]
		l.byFd[int32(fd)] = c
		if err := l.warm(c); err != nil {
			l.close()
			return nil, err
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			l.close()
			return nil, os.NewSyscallError("epoll_ctl", err)
		}
	}
	return l, nil
}

// dial opens a blocking TCP connection with Nagle off, then makes it
// non-blocking for the loop.
func dial(addr netip.AddrPort) (int, error) {
	family := unix.AF_INET
	var sa unix.Sockaddr = &unix.SockaddrInet4{Port: int(addr.Port()), Addr: addr.Addr().As4()}
	if addr.Addr().Is6() {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(addr.Port()), Addr: addr.Addr().As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("connecting to %s: %w (is the target running?)", addr, err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("setsockopt", err)
	}
	return fd, nil
}

// warm makes one exchange on a blocking connection, the only place a
// response is parsed: the first one gives the size of all of them.
func (l *loop) warm(c *conn) error {
	if _, err := unix.Write(c.fd, l.request); err != nil {
		return os.NewSyscallError("write", err)
	}
	var resp []byte
	for {
		n, err := unix.Read(c.fd, l.buf)
		if err != nil || n == 0 {
			return fmt.Errorf("the warm-up response was cut short after %d bytes (%v)", len(resp), err)
		}
		resp = append(resp, l.buf[:n]...)
		size, ok, err := responseSize(resp)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if len(resp) != size {
			return fmt.Errorf("the warm-up response is %d bytes, its headers say %d: a server that pipelines or streams is no floor target", len(resp), size)
		}
		if l.respLen != 0 && size != l.respLen {
			return fmt.Errorf("responses of %d and %d bytes: the floor needs a target whose responses are all one size", l.respLen, size)
		}
		l.respLen = size
		return unix.SetNonblock(c.fd, true)
	}
}

// responseSize is the size of a response with a Content-Length, once its
// headers are in.
func responseSize(b []byte) (int, bool, error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return 0, false, nil
	}
	for _, line := range bytes.Split(b[:end], []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("content-length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil {
				return 0, false, fmt.Errorf("Content-Length %q is not a number", value)
			}
			return end + 4 + n, true, nil
		}
	}
	return 0, false, errors.New("the target's response has no Content-Length: the floor needs fixed-size responses")
}

// The loop's syscalls are raw: a read or write on a non-blocking socket
// never blocks, and the waits block this loop's only thread, which has
// nothing else to run. Through syscall.Syscall the runtime would hand its
// P to another thread during every wait longer than 20 µs and take it back
// after: thread wake-ups no event loop needs, charged to every request.

func rawRead(fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// send writes the request on c; one write suffices on an idle connection.
func (l *loop) send(c *conn) error {
	n, err := rawWrite(c.fd, l.request)
	if err != nil || n != len(l.request) {
		return fmt.Errorf("write: %d of %d bytes (%v)", n, len(l.request), err)
	}
	c.busy, c.got = true, 0
	l.busy++
	return nil
}

// receive reads what c has; it reports whether a response completed.
func (l *loop) receive(c *conn) (bool, error) {
	for {
		n, err := rawRead(c.fd, l.buf)
		if err == unix.EAGAIN {
			return false, nil
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return false, fmt.Errorf("the target closed a connection (%v): give it keep-alive without a request limit", err)
		}
		c.got += n
		if c.got >= l.respLen {
			if c.got > l.respLen {
				return false, fmt.Errorf("%d bytes where a response is %d: responses are not all one size", c.got, l.respLen)
			}
			c.busy = false
			l.busy--
			l.done++
			return true, nil
		}
	}
}

// wait is one epoll_wait, EINTR retried.
func (l *loop) wait(timeoutMs int) (int, error) {
	for {
		n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])),
			uintptr(len(l.events)), uintptr(timeoutMs), 0, 0)
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		}
		return 0, os.NewSyscallError("epoll_wait", errno)
	}
}

// closed runs every connection back to back for d.
func (l *loop) closed(d time.Duration) error {
	for i := range l.conns {
		if err := l.send(&l.conns[i]); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(d)
	for {
		n, err := l.wait(100)
		if err != nil {
			return err
		}
		over := time.Now().After(deadline)
		for _, ev := range l.events[:n] {
			c := l.byFd[ev.Fd]
			complete, err := l.receive(c)
			if err != nil {
				return err
			}
			if complete && !over {
				if err := l.send(c); err != nil {
					return err
				}
			}
		}
		if over && l.busy == 0 {
			return nil
		}
	}
}

// open sends rate requests a second for d, request i due at i/rate, each
// on a free connection. The loop sleeps in epoll_pwait2 until the next due
// instant or a response, whichever comes first, so a request costs one
// write, one read and at most one wait: no timer of its own. A request that
// goes out over lateAfter past its due instant (every connection was busy)
// counts as late.
func (l *loop) open(rate float64, d time.Duration) error {
	total := int64(rate * d.Seconds())
	interval := float64(time.Second) / rate
	dueAt := func(i int64) time.Duration { return time.Duration(float64(i) * interval) }
	free := make([]*conn, 0, len(l.conns))
	for i := range l.conns {
		free = append(free, &l.conns[i])
	}
	start := time.Now()
	var sent int64
	for sent < total || l.busy > 0 {
		now := time.Since(start)
		for sent < total && len(free) > 0 && dueAt(sent) <= now {
			c := free[len(free)-1]
			free = free[:len(free)-1]
			if err := l.send(c); err != nil {
				return err
			}
			if now-dueAt(sent) > lateAfter {
				l.late++
			}
			sent++
		}
		timeout := time.Second
		if sent < total && len(free) > 0 {
			timeout = max(0, dueAt(sent)-time.Since(start))
		}
		n, err := l.waitFor(timeout)
		if err != nil {
			return err
		}
		for _, ev := range l.events[:n] {
			c := l.byFd[ev.Fd]
			complete, err := l.receive(c)
			if err != nil {
				return err
			}
			if complete {
				free = append(free, c)
			}
		}
	}
	return nil
}

// lateAfter is how far past its due instant a request may go out and still
// be on time: the bound on send lag the knee uses.
const lateAfter = time.Millisecond

// waitFor is one epoll_pwait2 with a timeout in ns, EINTR retried; where
// the kernel lacks it (before 5.11), epoll_wait rounded up to whole ms.
func (l *loop) waitFor(timeout time.Duration) (int, error) {
	for !l.noPwait2 {
		ts := unix.NsecToTimespec(int64(timeout))
		n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])),
			uintptr(len(l.events)), uintptr(unsafe.Pointer(&ts)), 0, 0)
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
			continue
		case unix.ENOSYS:
			l.noPwait2 = true
		default:
			return 0, os.NewSyscallError("epoll_pwait2", errno)
		}
	}
	return l.wait(int((timeout + time.Millisecond - 1) / time.Millisecond))
}

func (l *loop) close() {
	for _, c := range l.conns {
		unix.Close(c.fd)
	}
	unix.Close(l.ep)
}
