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
// connections are bound to in turn (one cursor for every kind), the
// connect timeout and the transports. Each loop has its own: Connect
// writes into the address, and the source-address cursor is the loop's to
// move.
type dialTarget struct {
	sa      unix.Sockaddr
	family  int
	sources []unix.Sockaddr
	next    int
	connect int64 // ns, counted from the dial; covers a TLS handshake
	// transport makes a new HTTP connection's transport, offering the
	// target's protocols by ALPN; upgrade a WebSocket connection's, which
	// offers none (an upgrade is HTTP/1.1). nil: the socket itself (plain
	// HTTP, ws://; upgrade also in a plan without WebSocket scenarios).
	transport, upgrade run.TransportFactory
}

// dialTargetFor is target t at addr; ws: WebSocket sessions dial it too.
func dialTargetFor(ex *run.Executor, t *compile.Target, addr *net.TCPAddr, ws bool) (dialTarget, error) {
	sa, family := sockaddr(addr)
	d := dialTarget{sa: sa, family: family, connect: int64(t.ConnectTimeout), transport: transportFor(ex, t, false)}
	if ws {
		d.upgrade = transportFor(ex, t, true)
	}
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
