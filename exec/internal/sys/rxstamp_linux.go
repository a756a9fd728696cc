package sys

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RxStamps reads sockets with the kernel's receive stamps (SO_TIMESTAMPING,
// software, wall clock), so a loop may sleep through replies and read them
// later in one go without adding that wait to their latency. wallBase
// converts the wall-clock stamps to run time; set it from the same reading
// of the clock as the loop's now (see setBase).
type RxStamps struct {
	On       bool
	keeper   int // a socket that keeps the kernel stamping from before the first dial; -1: none
	wallBase int64
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

// Now reads the clock as run time, and keeps the wall clock's offset.
func (r *RxStamps) Now(c *Clock) int64 {
	t := time.Now()
	now := int64(t.Sub(c.Base))
	r.wallBase = t.UnixNano() - now
	return now
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
