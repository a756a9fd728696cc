//go:build linux || darwin || freebsd || netbsd || openbsd

package sys

import "golang.org/x/sys/unix"

// RaiseFileLimit sets the soft RLIMIT_NOFILE to the hard one and returns
// the soft limit in force.
func RaiseFileLimit() (uint64, bool) {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) != nil {
		return 0, false
	}
	if r.Cur < r.Max {
		raised := unix.Rlimit{Cur: r.Max, Max: r.Max}
		if unix.Setrlimit(unix.RLIMIT_NOFILE, &raised) == nil {
			r.Cur = r.Max
		}
	}
	return uint64(r.Cur), true
}
