package report

// Second is one second of the run: what completed in it and how fast.
// Requests that never got a response count at their due instant.
type Second struct {
	T         int64   `json:"t"`         // seconds after run start
	Completed int64   `json:"completed"` // responses completed: the throughput
	Errors    int64   `json:"errors"`    // requests in this second that were not ok
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
}

// series accumulates per-second counters and a compact latency histogram
// per second. Its size grows with the run's length, not its row count.
type series struct {
	secs []secondTally
	// cur caches the second of the previous row: rows come roughly in time
	// order, and this saves a division per row.
	curStart, curEnd int64
	cur              *secondTally
}

type secondTally struct {
	completed, errors int64
	latency           compactHistogram
}

const nsPerSecond = int64(1e9)

// at is the second holding ns after run start, for the report's row loop
// to count a row in (a response ending then, or a request due then that
// got none); small enough to be inlined there.
func (s *series) at(ns int64) *secondTally {
	if ns < s.curStart || ns >= s.curEnd { // the zero series has curEnd 0
		s.seek(max(ns, 0))
	}
	return s.cur
}

func (s *series) seek(at int64) {
	i := at / nsPerSecond
	for int64(len(s.secs)) <= i {
		s.secs = append(s.secs, secondTally{})
	}
	s.cur = &s.secs[i]
	s.curStart = i * nsPerSecond
	s.curEnd = s.curStart + nsPerSecond
}

// seconds lists every second from the first with any request to the last.
func (s *series) seconds() []Second {
	out := []Second{}
	started := false
	for i := range s.secs {
		t := &s.secs[i]
		if !started && t.completed == 0 && t.errors == 0 {
			continue
		}
		started = true
		out = append(out, Second{
			T: int64(i), Completed: t.completed, Errors: t.errors,
			P50Ms: ms(t.latency.quantile(0.50, t.completed)), P99Ms: ms(t.latency.quantile(0.99, t.completed)),
		})
	}
	return out
}
