//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package exec

// kernelVersion is unknown where uname does not exist.
func kernelVersion() string { return "" }
