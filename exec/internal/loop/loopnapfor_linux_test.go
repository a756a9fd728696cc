package loop

import (
	"testing"
	"time"

	"github.com/tressi/tressi/compile"
	"github.com/tressi/tressi/exec/internal/run"
)

// The closed model naps only while many HTTP/2 streams are in flight and the
// share of their latency is worth a sleep; a nap that found nothing makes
// the next wait one on the sockets.
func TestNapFor(t *testing.T) {
	const us = int64(time.Microsecond)
	for _, tc := range []struct {
		name    string
		closed  bool
		stamps  bool
		idle    bool
		streams int
		muxes   int
		latency int64
		want    int64
	}{
		{"a share of the latency", true, true, false, 100, 10, 400 * us, 400 * us / napShare},
		{"at most napMost", true, true, false, 100, 10, 50_000 * us, napMost},
		{"too short to sleep", true, true, false, 100, 10, napLeast*napShare - 1, 0},
		{"too few in flight", true, true, false, napBusy - 1, 4, 400 * us, 0},
		{"one stream per connection, as HTTP/1.1", true, true, false, 100, 100, 400 * us, 0},
		{"two per connection", true, true, false, 100, 50, 400 * us, 400 * us / napShare},
		{"the open model sleeps to its bursts", false, true, false, 100, 10, 400 * us, 0},
		{"no receive stamps", true, false, false, 100, 10, 400 * us, 0},
		{"the last nap found nothing", true, true, true, 100, 10, 400 * us, 0},
	} {
		model := compile.Open
		if tc.closed {
			model = compile.Closed
		}
		l := &evloop{ex: &run.Executor{S: &compile.Schedule{Model: model}}, napIdle: tc.idle, streams: tc.streams, muxes: tc.muxes, latency: tc.latency}
		l.rx.On = tc.stamps
		if got := l.napFor(); got != tc.want {
			t.Errorf("%s: nap %v, want %v", tc.name, time.Duration(got), time.Duration(tc.want))
		}
	}
}
