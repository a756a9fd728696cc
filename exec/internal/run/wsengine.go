package run

import (
	"fmt"

	"github.com/tressi/tressi/compile"
)

func HasWebSocket(s *compile.Schedule) bool {
	for _, e := range s.Entries {
		if e.WebSocket {
			return true
		}
	}
	return false
}

// WebSocketPrograms checks what the loop's WebSocket sessions can run and
// compiles their programs. A closed-model user may run HTTP requests and
// sessions in turn: both run on its loop.
func WebSocketPrograms(ex *Executor) ([]*Program, error) {
	s := ex.S
	for _, e := range s.Entries {
		if !e.WebSocket {
			continue
		}
		for _, st := range e.Steps {
			if st.Request < 0 {
				continue
			}
			t := &s.Targets[s.Requests[st.Request].Target]
			if t.Protocol == compile.ProtocolH2 || t.Protocol == compile.ProtocolH2C {
				return nil, &InputError{Err: fmt.Errorf("target %q: WebSocket sessions upgrade over HTTP/1.1, but its protocol is %q; leave protocol unset (or \"http1\") on WebSocket targets", t.Name, t.Protocol)}
			}
		}
	}
	sessions := ex.Shard.Slots(s.Count)
	if s.Model == compile.Closed {
		// A user holds one session at a time.
		sessions = int64(len(ex.DealUsers(1)[0]))
	}
	if err := checkWSResources(s, sessions); err != nil {
		return nil, &InputError{Err: err}
	}
	progs, err := newWSPrograms(ex)
	if err != nil {
		return nil, fmt.Errorf("starting the WebSocket loop: %w", err)
	}
	return progs, nil
}

// DealUsers deals the shard's users to n loops, round robin.
func (ex *Executor) DealUsers(n int) [][]compile.UserSpan {
	out := make([][]compile.UserSpan, n)
	j := 0
	for u, span := range ex.S.Users {
		if !ex.Shard.Owns(uint64(u)) {
			continue
		}
		out[j%n] = append(out[j%n], span)
		j++
	}
	return out
}
