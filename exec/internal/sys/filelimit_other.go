//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sys

// RaiseFileLimit knows no limit on this system.
func RaiseFileLimit() (uint64, bool) { return 0, false }
