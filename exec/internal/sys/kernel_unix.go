//go:build linux || darwin || freebsd || netbsd || openbsd

package sys

import "golang.org/x/sys/unix"

// KernelVersion is uname's system name and release, e.g. "Linux 6.8.0".
func KernelVersion() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
}
