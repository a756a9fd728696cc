//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sys

import "syscall"

// BytesWaiting cannot peek here: an idle connection is trusted.
func BytesWaiting(syscall.RawConn) bool { return false }
