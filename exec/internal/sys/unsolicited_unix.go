//go:build linux || darwin || freebsd || netbsd || openbsd

package sys

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// BytesWaiting says whether the socket under rc has something to read
// right now, or has ended: on an idle HTTP/1.1 connection either means it
// cannot carry another request. It peeks without blocking or consuming.
func BytesWaiting(rc syscall.RawConn) bool {
	waiting := false
	err := rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		// Bytes (err nil, n > 0), the peer's close (n 0) or a pending
		// error (a reset): anything but "nothing yet".
		waiting = err != unix.EAGAIN && err != unix.EINTR
		return true // never wait for readability
	})
	return err == nil && waiting
}
