package loop

import (
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tressi/tressi/exec/internal/record"
	"github.com/tressi/tressi/results"
)

// wsStats is one loop's WebSocket figures; the loops' are merged at the end.
type wsStats struct {
	sessionsStarted, sessionsCompleted, sessionsFailed int64
	connected                                          int64
	sent, received, unmatched                          int64
	unmatchedByStep                                    map[string]int64
	sessionDur                                         *hdrhistogram.Histogram
	connect                                            *hdrhistogram.Histogram
	delivery                                           *hdrhistogram.Histogram
	marked                                             int64            // marked frames sent
	deliveries                                         map[uint64]int32 // mark key → deliveries
	open                                               []int64          // open connections, per second of the run (max seen)
}

func newWSStats() *wsStats {
	return &wsStats{
		unmatchedByStep: map[string]int64{},
		sessionDur:      hdrhistogram.New(1, record.HistogramMax, 3),
		connect:         hdrhistogram.New(1, record.HistogramMax, 3),
		delivery:        hdrhistogram.New(1, record.HistogramMax, 3),
		deliveries:      map[uint64]int32{},
	}
}

func (s *wsStats) noteOpen(now int64, open int) {
	sec := int(now / 1e9)
	if sec < 0 {
		return
	}
	for len(s.open) <= sec {
		s.open = append(s.open, 0)
	}
	s.open[sec] = max(s.open[sec], int64(open))
}

func percentiles(h *hdrhistogram.Histogram) results.WSPercentiles {
	if h.TotalCount() == 0 {
		return results.WSPercentiles{}
	}
	return results.WSPercentiles{Count: h.TotalCount(), P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90),
		P99: h.ValueAtQuantile(99), P999: h.ValueAtQuantile(99.9), Max: h.Max()}
}

// mergeWSStats merges the loops' figures into the summary.
func mergeWSStats(all []*wsStats) *results.WebSocketSummary {
	var sum results.WebSocketSummary
	dur, conn, del := newWSStats(), newWSStats(), newWSStats()
	byStep := map[string]int64{}
	marks := map[uint64]int32{}
	var marked int64
	var open []int64
	for _, s := range all {
		sum.Sessions.Started += s.sessionsStarted
		sum.Sessions.Completed += s.sessionsCompleted
		sum.Sessions.Failed += s.sessionsFailed
		sum.Sessions.Connected += s.connected
		sum.Messages.Sent += s.sent
		sum.Messages.Received += s.received
		sum.Messages.Unmatched += s.unmatched
		for k, v := range s.unmatchedByStep {
			byStep[k] += v
		}
		dur.sessionDur.Merge(s.sessionDur)
		conn.connect.Merge(s.connect)
		del.delivery.Merge(s.delivery)
		marked += s.marked
		for k, v := range s.deliveries {
			marks[k] += v
		}
		for i, v := range s.open {
			for len(open) <= i {
				open = append(open, 0)
			}
			open[i] += v
		}
	}
	sum.Messages.UnmatchedByStep = byStep
	sum.SessionDuration = percentiles(dur.sessionDur)
	sum.Connect = percentiles(conn.connect)
	f := &sum.Fanout
	f.Marked = marked
	for _, v := range marks {
		f.Delivered += int64(v)
		f.Received++
		f.MaxPerMessage = max(f.MaxPerMessage, v)
	}
	f.Unreceived = max(marked-f.Received, 0)
	if marked > 0 {
		f.PerMessage = float64(f.Delivered) / float64(marked)
	}
	f.DeliveryLatencyNs = percentiles(del.delivery)
	sum.OpenConnections = open
	return &sum
}

func writeWSSummary(dir string, sum *results.WebSocketSummary) error {
	return record.WriteFile(filepath.Join(dir, results.WebSocketFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	})
}
