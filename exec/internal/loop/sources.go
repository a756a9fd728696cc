package loop

import (
	"fmt"
	"net"

	"github.com/tressi/tressi/compile"
)

// CheckSources refuses source addresses that cannot reach their target:
// an IPv4 address beside an IPv6 target, or the reverse.
func CheckSources(s *compile.Schedule) error {
	for i := range s.Targets {
		t := &s.Targets[i]
		if len(t.SourceAddresses) == 0 {
			continue
		}
		a, err := net.ResolveTCPAddr("tcp", t.Addr)
		if err != nil {
			return fmt.Errorf("target %q: %w", t.Name, err)
		}
		for _, src := range t.SourceAddresses {
			if (net.ParseIP(src).To4() == nil) != (a.IP.To4() == nil) {
				return sourceFamilyError(t, src)
			}
		}
	}
	return nil
}

func sourceFamilyError(t *compile.Target, src string) error {
	return fmt.Errorf("target %q: source address %s is not of the target's address family; list addresses of the same family as its host (IPv4 beside an IPv4 address, IPv6 beside IPv6)", t.Name, src)
}
