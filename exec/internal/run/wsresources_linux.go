package run

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tressi/tressi/compile"
)

// fdReserve is what the process needs besides its connections: the
// results files, epoll sets, the runtime's own.
const fdReserve = 64

// checkWSResources reports, before the run, a shortage a WebSocket run
// would otherwise discover half-way: more connections than descriptors, or
// than ephemeral ports × source addresses towards one server. A target's
// connections is the most sessions it holds open at once (fewer when the
// shard has fewer sessions).
func checkWSResources(s *compile.Schedule, sessions int64) error {
	// The soft limit as the process has it: raising it is the caller's
	// (Go does at start-up; tressi's CLI again, see FileLimitWarning).
	var lim unix.Rlimit
	_ = unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	lo, hi, portsErr := ephemeralPorts()
	total := int64(0)
	for _, t := range s.Targets {
		need := min(int64(t.Connections), sessions)
		total += need
		if portsErr != nil {
			continue
		}
		ports := int64(hi - lo + 1)
		addrs := int64(max(len(t.SourceAddresses), 1))
		if need > ports*addrs {
			hint := "add source_addresses (such as [\"127.0.0.2\", \"127.0.0.3\"] on loopback), each with its own ports"
			if len(t.SourceAddresses) > 0 {
				hint = "add more source_addresses"
			}
			return fmt.Errorf("target %q may hold %d connections at once, but %d ephemeral ports (net.ipv4.ip_local_port_range %d-%d) × %d source address(es) give %d towards one server: %s, widen the port range, or lower connections",
				t.Name, need, ports, lo, hi, addrs, ports*addrs, hint)
		}
	}
	if lim.Cur > 0 && uint64(total)+fdReserve > lim.Cur {
		return fmt.Errorf("the targets may hold %d connections at once, but this process may open %d descriptors (ulimit -n; hard limit %d) and needs %d besides: lower connections to %d, raise the limit, or split the run into shards (--shard i/n) on several processes or machines",
			total, lim.Cur, lim.Max, fdReserve, int64(lim.Cur)-fdReserve)
	}
	return nil
}

func ephemeralPorts() (lo, hi int, err error) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("ip_local_port_range: %q", b)
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || hi < lo {
		return 0, 0, fmt.Errorf("ip_local_port_range: %q", b)
	}
	return lo, hi, nil
}
