package dashboard

import (
	"fmt"
	"net"
	"strings"
)

// DefaultAddr is where a dashboard listens when given no address.
const DefaultAddr = "127.0.0.1:5665"

// Listen binds addr for a dashboard or a metrics endpoint. An address
// without a host (":0", ":5665") binds loopback: another interface is
// used only when named. warning is non-empty when it is not loopback.
func Listen(addr string) (ln net.Listener, warning string, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("address %q: want HOST:PORT, such as %s or :0 for a free port", addr, DefaultAddr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err = net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, "", fmt.Errorf("listening on %s: %w; pick another port, or :0 for a free one", addr, err)
	}
	if !isLoopback(host) {
		warning = fmt.Sprintf("%s is not a loopback address: anyone who reaches this machine's port %s sees the run", host, port)
	}
	return ln, warning, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the http URL of a listener's address.
func URL(ln net.Listener) string { return "http://" + ln.Addr().String() + "/" }
