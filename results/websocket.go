package results

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WebSocketFile is the run directory's summary of WebSocket sessions:
// what the rows cannot say (frames nobody awaited, fan-out deliveries,
// connections over time).
const WebSocketFile = "websocket.json"

// WebSocketSummary is websocket.json.
type WebSocketSummary struct {
	Sessions struct {
		Started   int64 `json:"started"`
		Completed int64 `json:"completed"` // every row ok
		Failed    int64 `json:"failed"`
		Connected int64 `json:"connected"` // upgrades answered 101
	} `json:"sessions"`
	SessionDuration WSPercentiles `json:"session_duration_ns"`
	Connect         WSPercentiles `json:"connect_ns"`
	Messages        struct {
		Sent            int64            `json:"sent"`
		Received        int64            `json:"received"`
		Unmatched       int64            `json:"unmatched"`
		UnmatchedByStep map[string]int64 `json:"unmatched_by_step,omitempty"`
	} `json:"messages"`
	Fanout struct {
		Marked            int64         `json:"marked"`     // marked frames sent
		Delivered         int64         `json:"delivered"`  // frames of other sessions carrying a mark
		Received          int64         `json:"received"`   // marked frames received by at least one other session
		Unreceived        int64         `json:"unreceived"` // marked frames no other session received
		PerMessage        float64       `json:"deliveries_per_message"`
		MaxPerMessage     int32         `json:"max_deliveries_per_message"`
		DeliveryLatencyNs WSPercentiles `json:"delivery_latency_ns"`
	} `json:"fanout"`
	// OpenConnections is the most connections open in each second of the run.
	OpenConnections []int64 `json:"open_connections"`
}

// WSPercentiles summarise a histogram in ns.
type WSPercentiles struct {
	Count int64 `json:"count"`
	P50   int64 `json:"p50"`
	P90   int64 `json:"p90"`
	P99   int64 `json:"p99"`
	P999  int64 `json:"p999"`
	Max   int64 `json:"max"`
}

// ReadWebSocketSummary reads dir's websocket.json; nil without error when
// the run had no WebSocket sessions.
func ReadWebSocketSummary(dir string) (*WebSocketSummary, error) {
	b, err := os.ReadFile(filepath.Join(dir, WebSocketFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s WebSocketSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Merge adds o (another shard's summary) into s: counts add up, the open
// connections add second by second; a percentile becomes the larger of the
// two, an upper bound (the shards' histograms are not kept).
func (s *WebSocketSummary) Merge(o *WebSocketSummary) {
	s.Sessions.Started += o.Sessions.Started
	s.Sessions.Completed += o.Sessions.Completed
	s.Sessions.Failed += o.Sessions.Failed
	s.Sessions.Connected += o.Sessions.Connected
	s.SessionDuration.merge(o.SessionDuration)
	s.Connect.merge(o.Connect)
	s.Messages.Sent += o.Messages.Sent
	s.Messages.Received += o.Messages.Received
	s.Messages.Unmatched += o.Messages.Unmatched
	for k, v := range o.Messages.UnmatchedByStep {
		if s.Messages.UnmatchedByStep == nil {
			s.Messages.UnmatchedByStep = map[string]int64{}
		}
		s.Messages.UnmatchedByStep[k] += v
	}
	f, g := &s.Fanout, &o.Fanout
	f.Marked += g.Marked
	f.Delivered += g.Delivered
	f.Received += g.Received
	f.Unreceived += g.Unreceived
	f.MaxPerMessage = max(f.MaxPerMessage, g.MaxPerMessage)
	if f.Marked > 0 {
		f.PerMessage = float64(f.Delivered) / float64(f.Marked)
	}
	f.DeliveryLatencyNs.merge(g.DeliveryLatencyNs)
	for i, v := range o.OpenConnections {
		for len(s.OpenConnections) <= i {
			s.OpenConnections = append(s.OpenConnections, 0)
		}
		s.OpenConnections[i] += v
	}
}

func (p *WSPercentiles) merge(o WSPercentiles) {
	p.Count += o.Count
	p.P50, p.P90, p.P99, p.P999, p.Max = max(p.P50, o.P50), max(p.P90, o.P90), max(p.P99, o.P99), max(p.P999, o.P999), max(p.Max, o.Max)
}
