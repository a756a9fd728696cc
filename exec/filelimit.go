package exec

import (
	"fmt"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/sys"
)

// Every connection is a file descriptor. With a limit below the plan's
// connections, the dials past it fail (EMFILE, recorded as
// local_resources) and half a run's slots can fail for a reason that has
// nothing to do with the server. So the run raises its soft limit to the
// hard one (Go does this at start-up too; doing it here also covers a
// limit changed since), and says before it starts when the connections
// still do not fit.

// filesBesideConnections is what a run holds open besides its
// connections: standard streams, the run directory's files, the .tplan
// it may stream from, epoll and timer descriptors, the runtime's own.
const filesBesideConnections = 32

// FileLimitWarning raises the soft open-file limit as far as the hard one
// allows and returns a warning when s's connections plus the files a run
// keeps open do not fit it; "" when they fit or the limit is unknown.
func FileLimitWarning(s *compile.Schedule) string {
	limit, ok := sys.RaiseFileLimit()
	if !ok {
		return ""
	}
	conns := mostConnections(s)
	need := conns + filesBesideConnections
	if need <= limit {
		return ""
	}
	return fmt.Sprintf("the plan's connections (%d) plus the files a run keeps open (about %d) exceed the open-file limit (%d): "+
		"connections past it fail as local_resources. Raise the limit (ulimit -n %d, or the hard limit in /etc/security/limits.conf), "+
		"or lower connections to %d or fewer.",
		conns, filesBesideConnections, limit, need, max(int64(limit)-filesBesideConnections, 1))
}

// mostConnections is the most connections s can hold at once: a target's
// connections cap what it opens, and no run opens more to a target than it
// has slots (open model) or users (closed) to use them. The Tinode
// example's 20,000 connections with 20 sessions hold 20.
func mostConnections(s *compile.Schedule) uint64 {
	users := uint64(s.Count)
	if s.Model == compile.Closed {
		users = uint64(len(s.Users))
	}
	var conns uint64
	for _, t := range s.Targets {
		conns += min(uint64(max(t.Connections, 1)), max(users, 1))
	}
	return conns
}
