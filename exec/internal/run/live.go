package run

import (
	"time"
)

// LiveRun is what a live view (a dashboard, a metrics exporter) needs of a
// run as it starts: rows reach it through Options.Observe, on the
// recorder's goroutine, off the send path; the figures no row carries it
// reads through Gauges, from any goroutine, whenever it likes.
type LiveRun struct {
	RunID string    // as meta.json will say it
	Start time.Time // wall clock of the run's instant zero
	// Endpoints are the names row.Endpoint indexes.
	Endpoints []string
	// Gauges reads the senders' live counters now.
	Gauges func() Gauges
}

// Gauges are a run's live figures that are no sum of rows.
type Gauges struct {
	Now int64 // the run's clock: ns after instant zero, negative before a --start-at
	// Sent, Done and Failed sum the senders' counters: requests whose bytes
	// went out, outcomes (not_sent and interrupted left out), and of them
	// those that were not ok.
	Sent, Done, Failed int64
	// SendLag is the largest send lag (sent − scheduled) of the recorder's
	// last one-second window, in ns.
	SendLag int64
	// Connections are the connections open now; Opened counts those the
	// loop engine opened so far (0 on the fasthttp engine, which does not
	// count them).
	Connections, Opened int64
	// Sessions are the scenario sessions active now (open model), or the
	// users running (closed model).
	Sessions int64
	// InFlight are the requests begun (connecting, sent or awaiting their
	// response) and not answered yet.
	InFlight int64
	// Failures are the live thresholds failed so far, as "name: detail".
	Failures []string
}

// LiveRun is the LiveRun of a started run. Options.Started gets it once the
// engine started: the senders' counters are fixed by then.
func (ex *Executor) LiveRun(runID string, start time.Time, endpoints []string) LiveRun {
	return LiveRun{RunID: runID, Start: start, Endpoints: endpoints, Gauges: ex.gauges}
}

func (ex *Executor) gauges() Gauges {
	g := Gauges{Now: ex.Clock.Now(), SendLag: ex.Rec.Lag.Load(), Failures: ex.Th.List()}
	for _, s := range ex.Stats {
		g.Sent += s.Sent.Load()
		g.Done += s.Done.Load()
		g.Failed += s.Failed.Load()
		g.Sessions += s.Sessions.Load()
		g.Connections += s.Open.Load()
		g.InFlight += s.InFlight.Load()
	}
	open, inFlight := ex.Cl.gauges()
	g.Connections += open
	g.InFlight += inFlight
	for i := range ex.Protos {
		g.Opened += ex.Protos[i].Http1.Load() + ex.Protos[i].H2.Load()
	}
	return g
}
