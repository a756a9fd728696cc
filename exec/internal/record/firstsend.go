package record

import (
	"time"

	"github.com/tressi/tressi/results"
)

// firstSend remembers the earliest send of a run, to say how far the first
// request went out from its due instant: the skew between a shard's clock
// and the schedule it shares with the others.
type firstSend struct {
	seen      bool
	sent      int64 // ns after instant zero
	scheduled int64 // its slot's due instant, ns after instant zero
}

// see takes one recorded row (the recorder's goroutine only).
func (f *firstSend) see(row *results.Row) {
	if row.Sent >= 0 && (!f.seen || row.Sent < f.sent) {
		f.seen, f.sent, f.scheduled = true, row.Sent, row.Scheduled
	}
}

// Fill writes what the run's start looked like into meta.json.
func (f *firstSend) Fill(m *Meta, tolerance time.Duration) {
	m.StartTolerance = tolerance.String()
	if !f.seen {
		return
	}
	at := m.Start.Add(time.Duration(f.sent))
	m.FirstSend = &at
	skew := float64(f.sent-f.scheduled) / 1e6
	m.FirstSendSkewMs = &skew
}
