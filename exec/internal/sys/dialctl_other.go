//go:build !linux

package sys

import "syscall"

// BindNoPort: the option is Linux's; elsewhere bind takes a port.
func BindNoPort(_, _ string, _ syscall.RawConn) error { return nil }
