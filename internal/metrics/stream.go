package metrics

import (
	"github.com/tressi/tressi/internal/background"
	"github.com/tressi/tressi/internal/live"
)

// Stream pushes the view of f to p after every update, stamped with the
// update's instant on the run's clock, until the run ended (its last
// update pushed too); the returned channel is closed then.
func Stream(f *live.Feed, l *Labels, p *Pusher) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		background.Thread() // the snapshot and its encoding, once an interval
		defer close(done)
		for {
			_, updates, cancel := f.Subscribe()
			for u := range updates {
				push(f.View(), u, l, p)
			}
			cancel()
			select {
			case <-f.Done():
				return
			default: // fell behind: subscribe again
			}
		}
	}()
	return done
}

func push(v *live.View, u live.Update, l *Labels, p *Pusher) {
	if u.Run.State == live.StateWaiting {
		return
	}
	at := v.LastGauges().T
	ms := (u.Run.StartUnixNs + max(at, 0)) / 1e6
	snap := Take(v, l)
	p.Push(Series(&snap, l, u.Run.RunID, ms))
}
