//go:build !linux

package exec

import "syscall"

// bindNoPort: the option is Linux's; elsewhere bind takes a port.
func bindNoPort(_, _ string, _ syscall.RawConn) error { return nil }
