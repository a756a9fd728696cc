//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sys

// KernelVersion is unknown where uname does not exist.
func KernelVersion() string { return "" }
