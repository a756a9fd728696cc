package sys

import (
	"syscall"
)

// BindNoPort lets a socket bound to a source address take its port at
// connect, for the whole 4-tuple (as the loop's dials do): bind alone
// would take one of the address's ports for every server, and none that a
// closed connection still holds in TIME_WAIT.
func BindNoPort(_, _ string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) { err = bindNoPortFD(int(fd)) }); cerr != nil {
		return cerr
	}
	return err
}
