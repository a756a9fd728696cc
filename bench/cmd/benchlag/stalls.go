package main

import "slices"

// stall is a run of sends more than stallLag late: from the first late
// row's scheduled instant (ms since instant zero) to the last's, and the
// worst lag in it.
type stall struct {
	AtMs     float64 `json:"at_ms"`
	SpanMs   float64 `json:"span_ms"`
	MaxLagMs float64 `json:"max_lag_ms"`
	Rows     int     `json:"rows"`
}

// stallLag is the lag a send must exceed to be part of a stall: the
// open model's budget (bench/knee's LAG_MS).
const stallLag = int64(1_000_000)

// stallGap joins late rows whose scheduled instants are closer than this
// into one stall: a loop that stalls is late for every slot due meanwhile,
// and the few that a burst sends on time between two late ones do not end it.
const stallGap = int64(2_000_000)

// lagRow is one sent row's scheduled instant and send lag.
type lagRow struct{ sched, lag int64 }

// stalls groups the late rows into stalls, in scheduled order.
func stalls(rows []lagRow) []stall {
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b lagRow) int { return int(a.sched - b.sched) })
	var out []stall
	var cur *stall
	last := int64(0)
	for _, r := range rows {
		if r.lag <= stallLag {
			continue
		}
		if cur == nil || r.sched-last > stallGap {
			out = append(out, stall{AtMs: ms(r.sched)})
			cur = &out[len(out)-1]
		}
		cur.SpanMs = ms(r.sched) - cur.AtMs
		cur.MaxLagMs = max(cur.MaxLagMs, ms(r.lag))
		cur.Rows++
		last = r.sched
	}
	return out
}
