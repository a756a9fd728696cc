package sys

import (
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Poller is a loop's epoll set and the raw system calls the loop makes:
// the only file that speaks to the kernel. Every failure comes back as an
// *os.SyscallError naming the call, and is handled by kind where it
// happens: EAGAIN (nothing to do now), EINTR (ask again), the rest (the
// connection, or the loop, is broken).
//
// Its waits, reads and writes are raw syscalls on non-blocking sockets: the
// runtime's bookkeeping for a call that cannot block is pure cost, and
// told of a blocking call the runtime's monitor takes the P away after
// 20 µs and hands it to another thread, so the loop pays two context
// switches and a futex to get it back, about once per wait.
type Poller struct {
	epfd int
	Evs  []unix.EpollEvent
	// wakefd is an eventfd in the set: other goroutines (a transport
	// finishing a handshake, say) write it to wake the loop, after putting
	// what they want done in the mailbox.
	wakefd  int
	mu      sync.Mutex
	mailbox []int32 // connection ids to look at again
	taken   []int32 // the mailbox's other buffer, the loop's
	// ring is the io_uring half (uring_linux.go), nil until StartRing;
	// Done holds its completions after each Wait, beside Evs's events.
	ring *ringPoller
	Done []Completion
}

// WakeID is the epoll data of the wake-up eventfd: no connection has it.
const WakeID = -1

// WSBit marks the ids of a loop's WebSocket sessions, beside its HTTP
// connections' ids in the same set and mailbox. Their sockets are watched
// edge-triggered (EPOLLET): a socket is reported once per arrival, not
// again at every wait until it is read dry, so the session must read until
// EAGAIN or a short read, and look at its socket again after changing its
// interest. With level triggering every session read at one wake-up was
// polled again at the next: a cold socket's lines fetched for nothing,
// once per frame.
const WSBit int32 = 1 << 30

func NewPoller(events int) (*Poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("eventfd", err)
	}
	p := &Poller{epfd: epfd, wakefd: wfd, Evs: make([]unix.EpollEvent, events)}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: WakeID}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wfd, &ev); err != nil {
		p.Close()
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return p, nil
}

func (p *Poller) Close() {
	if p.ring != nil {
		p.ring.close()
		p.ring = nil
	}
	unix.Close(p.wakefd)
	unix.Close(p.epfd)
}

// interest is what a connection waits for: always input and the peer's
// close, output only while it has bytes the socket would not take.
func interest(id int32, out bool) uint32 {
	ev := uint32(unix.EPOLLIN | unix.EPOLLRDHUP)
	if out {
		ev |= unix.EPOLLOUT
	}
	if id&WSBit != 0 {
		ev |= unix.EPOLLET
	}
	return ev
}

// Add puts fd in the set under id.
func (p *Poller) Add(fd int, id int32, out bool) error {
	ev := unix.EpollEvent{Events: interest(id, out), Fd: id}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// Modify changes what fd waits for.
func (p *Poller) Modify(fd int, id int32, out bool) error {
	ev := unix.EpollEvent{Events: interest(id, out), Fd: id}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// Remove takes fd out of the set.
func (p *Poller) Remove(fd int) error {
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// Wait is epoll_pwait2: its timeout has ns resolution, where epoll_wait's
// counts whole milliseconds. It is raw even though it blocks (see poller);
// there is always a spare P for the rest of the process (see
// chooseEngine). The runtime's monitor interrupts a wait longer than 10 ms
// with a signal: EINTR is an empty wait. Any other error means the set is
// unusable (EBADF, EINVAL, EFAULT: a bug), and the loop must stop.
// With the ring started, Wait is io_uring_enter, and epoll_pwait2 only
// once the set has events (waitRing); the ring's completions are in Done.
func (p *Poller) Wait(timeout int64) (int, error) {
	if p.ring != nil {
		return p.waitRing(timeout)
	}
	return p.waitEpoll(timeout)
}

func (p *Poller) waitEpoll(timeout int64) (int, error) {
	ts := unix.NsecToTimespec(timeout)
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(p.epfd), uintptr(unsafe.Pointer(&p.Evs[0])),
		uintptr(len(p.Evs)), uintptr(unsafe.Pointer(&ts)), 0, 0)
	switch e {
	case 0:
		return int(r), nil
	case unix.EINTR:
		return 0, nil
	}
	return 0, os.NewSyscallError("epoll_pwait2", e)
}

// Wake asks the loop to look at connection id again: safe from any
// goroutine. The eventfd's counter saturates nowhere near in practice; a
// write that would block (EAGAIN) means a wake-up is already pending.
func (p *Poller) Wake(id int32) {
	p.mu.Lock()
	p.mailbox = append(p.mailbox, id)
	p.mu.Unlock()
	one := uint64(1)
	for {
		_, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(p.wakefd), uintptr(unsafe.Pointer(&one)), 8)
		if e != unix.EINTR {
			return
		}
	}
}

// Woken empties the eventfd and returns the ids posted since the last
// call; the slice is the loop's until the next call.
func (p *Poller) Woken() []int32 {
	var n uint64
	for {
		_, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(p.wakefd), uintptr(unsafe.Pointer(&n)), 8)
		if e != unix.EINTR {
			break
		}
	}
	p.mu.Lock()
	p.taken, p.mailbox = p.mailbox, p.taken[:0]
	p.mu.Unlock()
	return p.taken
}

// NewSocket opens a non-blocking TCP socket with Nagle off, and with the
// kernel's receive stamps when stamps is set.
func NewSocket(family int, stamps bool) (int, error) {
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("setsockopt TCP_NODELAY", err)
	}
	if stamps {
		if err := stampSocket(fd); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// BindSource binds socket fd to the local address src, leaving the port
// to connect (IP_BIND_ADDRESS_NO_PORT), which picks it for the whole
// 4-tuple: bind alone would take one of the address's ports for every
// server, and none a closed connection still holds in TIME_WAIT.
func BindSource(fd int, src unix.Sockaddr) error {
	_ = bindNoPortFD(fd) // without it (an old kernel), bind picks the port
	if err := unix.Bind(fd, src); err != nil {
		return os.NewSyscallError("bind", err)
	}
	return nil
}

func bindNoPortFD(fd int) error {
	return unix.SetsockoptInt(fd, unix.SOL_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
}

// TimerSlack sets the calling thread's timer slack to ns and returns what
// puts the default back; the thread must be locked (LockOSThread).
func TimerSlack(ns int) (restore func()) {
	if unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(ns), 0, 0, 0) != nil {
		return func() {}
	}
	return func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0) }
}

// LatencySlice makes the calling thread SCHED_OTHER (whatever policy it
// had, SCHED_BATCH included) with a time slice of ns (sched_attr's
// sched_runtime, Linux 6.12 and later; 0: the default), keeping its nice
// value, and returns what puts its old policy and slice back; the thread
// must be locked (LockOSThread). Best effort: where the kernel refuses,
// the thread stays as it was.
func LatencySlice(ns uint64) (restore func()) {
	cur, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return func() {}
	}
	if unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Nice: cur.Nice, Runtime: ns}, 0) != nil {
		return func() {}
	}
	return func() { _ = unix.SchedSetAttr(0, cur, 0) }
}

// stampSocket asks the kernel to stamp what fd receives.
func stampSocket(fd int) error {
	err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPING,
		unix.SOF_TIMESTAMPING_RX_SOFTWARE|unix.SOF_TIMESTAMPING_SOFTWARE)
	return os.NewSyscallError("setsockopt SO_TIMESTAMPING", err)
}

// Connect starts a non-blocking connect: EINPROGRESS is the usual answer
// and no error.
func Connect(fd int, sa unix.Sockaddr) error {
	if err := unix.Connect(fd, sa); err != nil && err != unix.EINPROGRESS {
		return os.NewSyscallError("connect", err)
	}
	return nil
}

// ConnectResult is how a non-blocking connect ended: nil once connected.
func ConnectResult(fd int) error {
	errno, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt SO_ERROR", err)
	}
	if errno != 0 {
		return os.NewSyscallError("connect", syscall.Errno(errno))
	}
	return nil
}

// CloseFD closes a socket, which also takes it out of the epoll set. The
// only error close reports on a socket is EBADF (a bug: it was closed
// already) or EINTR, after which Linux has closed it anyway; neither
// leaves anything to do.
func CloseFD(fd int) {
	_ = unix.Close(fd)
}

func RawWrite(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e
}

// RawSend is rawWrite for a socket, through send(2): it skips write(2)'s
// file layer (the file position's lock, the permission and fsnotify
// checks on the socket's inode), cache misses that add up when a loop
// writes to many connections each seldom (WebSocket sessions).
// MSG_NOSIGNAL: a peer gone is EPIPE, not a SIGPIPE for the runtime to
// swallow.
func RawSend(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
		unix.MSG_NOSIGNAL, 0, 0)
	return int(r), e
}

func RawRead(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e
}

// RawSleep sleeps d ns without watching the sockets.
func RawSleep(d int64) {
	ts := unix.NsecToTimespec(d)
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// Yield gives the calling thread's core to another thread that is ready
// to run on it, if one is (sched_yield); else it returns at once.
func Yield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// LowerThreadPriority puts the calling thread in SCHED_IDLE: it runs only
// when nothing else on its core wants to. Best effort: without it the
// recorder only competes for the spare P.
func LowerThreadPriority() {
	_ = unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_IDLE}, 0)
}
