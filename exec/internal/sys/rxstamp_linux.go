package sys

import (
	"math"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RxStamps reads sockets with the kernel's receive stamps (SO_TIMESTAMPING,
// software, wall clock), so a loop may sleep through replies and read them
// later in one go without adding that wait to their latency. wallBase
// converts the wall-clock stamps to run time (see Now).
type RxStamps struct {
	On       bool
	keeper   int // a socket that keeps the kernel stamping from before the first dial; -1: none
	wallBase int64
	baseAt   int64 // the run time wallBase was read at; 0: never
	msg      unix.Msghdr
	iov      unix.Iovec
	oob      [64]byte
}

// Start turns stamping on. The kernel turns it on lazily, after the first
// socket asks: asking now, on a socket kept for the run, stamps the first
// replies too. Without it (it failed) reads are stamped with the clock.
func (r *RxStamps) Start() {
	r.keeper = -1
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return
	}
	if stampSocket(fd) != nil {
		CloseFD(fd)
		return
	}
	r.keeper, r.On = fd, true
}

func (r *RxStamps) Stop() {
	if r.On && r.keeper >= 0 { // on: start made the keeper (a zero rxStamps has none)
		CloseFD(r.keeper)
		r.keeper = -1
	}
}

// Now reads the clock as run time, and every baseEvery the wall clock's
// offset from it.
func (r *RxStamps) Now(c *Clock) int64 {
	now := c.Now()
	if r.baseAt == 0 || now-r.baseAt >= baseEvery {
		r.readBase(c, now)
	}
	return now
}

// The offset moves only as fast as NTP slews the wall clock (at most
// 0.5 ms a second). It is read between two readings of run time and kept
// only where they are at most baseSpread apart: a thread held between
// two clock reads (300 µs and more on a busy VM) would shift every stamp
// by as long, and date answers before their requests.
const (
	baseEvery  = int64(50 * time.Millisecond)
	baseSpread = int64(20 * time.Microsecond)
	baseTries  = 4
)

// readBase sets wallBase from the tightest of a few tries. When every try
// was spread, the offset read before stays (and is read again at the
// next Now); the first one takes the tightest try.
func (r *RxStamps) readBase(c *Clock, now int64) {
	best, bestSpread := int64(0), int64(math.MaxInt64)
	for range baseTries {
		before := c.Now()
		wall := time.Now().UnixNano()
		after := c.Now()
		if spread := after - before; spread < bestSpread {
			best, bestSpread = wall-(before+after)/2, spread
		}
		if bestSpread <= baseSpread {
			break
		}
	}
	if bestSpread <= baseSpread || r.baseAt == 0 {
		r.wallBase, r.baseAt = best, max(now, 1)
	}
}

// Read reads fd into b; at is when the kernel received the last of those
// bytes, in run time, or -1 without a stamp.
func (r *RxStamps) Read(fd int, b []byte) (n int, at int64, errno syscall.Errno) {
	if !r.On {
		n, errno = RawRead(fd, b)
		return n, -1, errno
	}
	r.iov.Base = &b[0]
	r.iov.SetLen(len(b))
	r.msg.Iov = &r.iov
	r.msg.Iovlen = 1
	r.msg.Control = &r.oob[0]
	r.msg.SetControllen(len(r.oob))
	v, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&r.msg)), 0)
	if e != 0 || v == 0 {
		return int(v), -1, e
	}
	// One control message is asked for: SCM_TIMESTAMPING, whose first
	// timespec is the software receive stamp.
	const hdr = unix.SizeofCmsghdr
	at = -1
	if int(r.msg.Controllen) >= hdr+int(unsafe.Sizeof(unix.Timespec{})) {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&r.oob[0]))
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPING {
			ts := (*unix.Timespec)(unsafe.Pointer(&r.oob[hdr]))
			if t := ts.Nano() - r.wallBase; t > 0 {
				at = t
			}
		}
	}
	return int(v), at, 0
}
