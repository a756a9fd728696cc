package loop

import (
	"net"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
	"github.com/tressi/tressi/exec/internal/sys"
	"github.com/tressi/tressi/plan"
	"golang.org/x/sys/unix"
)

// dialTarget is how a loop reaches a target, whatever its connections
// carry (HTTP/1.1, HTTP/2, WebSocket): the address, the local addresses
// connections are bound to in turn, the connect timeout and the transport.
// Each loop has its own: Connect writes into the address, and the
// source-address cursor is the loop's to move.
type dialTarget struct {
	sa      unix.Sockaddr
	family  int
	sources []unix.Sockaddr
	next    int
	connect int64 // ns, counted from the dial; covers a TLS handshake
	// transport makes a new connection's transport; nil: the socket
	// itself (plain HTTP, ws://).
	transport run.TransportFactory
}

// dialTargetFor is target t at addr. upgrade: its connections carry
// WebSocket upgrades, which are HTTP/1.1, so a TLS handshake offers no
// ALPN.
func dialTargetFor(ex *run.Executor, t *compile.Target, addr *net.TCPAddr, upgrade bool) (dialTarget, error) {
	sa, family := sockaddr(addr)
	d := dialTarget{sa: sa, family: family, connect: int64(t.ConnectTimeout), transport: transportFor(ex, t, upgrade)}
	if d.connect <= 0 {
		d.connect = int64(plan.DefaultConnectTimeout)
	}
	var err error
	d.sources, err = sourceSockaddrs(t, family)
	return d, err
}

// sourceSockaddrs is t's source_addresses as bind takes them.
func sourceSockaddrs(t *compile.Target, family int) ([]unix.Sockaddr, error) {
	var out []unix.Sockaddr
	for _, src := range t.SourceAddresses {
		sa, fam := sockaddr(&net.TCPAddr{IP: net.ParseIP(src)})
		if fam != family {
			return nil, sourceFamilyError(t, src)
		}
		out = append(out, sa)
	}
	return out, nil
}

// socket opens a non-blocking socket (with the kernel's receive stamps
// when stamps is set), binds it to d's next source address and starts its
// connect. An error leaves nothing open.
func (d *dialTarget) socket(stamps bool) (int, error) {
	fd, err := sys.NewSocket(d.family, stamps)
	if err != nil {
		return -1, err
	}
	if len(d.sources) > 0 {
		src := d.sources[d.next%len(d.sources)]
		d.next++
		if err := sys.BindSource(fd, src); err != nil {
			sys.CloseFD(fd)
			return -1, err
		}
	}
	if err := sys.Connect(fd, d.sa); err != nil {
		sys.CloseFD(fd)
		return -1, err
	}
	return fd, nil
}
