package exec

import (
	"testing"
	"time"
)

// The live line's clock: against the stages, or, for a plan whose last
// stages have rate 0 (time for its sessions to finish), against the
// arrivals' end and then as finishing, never "21.5s / 5m3s" for a 22 s run.
func TestProgressClockText(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		total, arrivals, now time.Duration
		want                 string
	}{
		{10 * s, 10 * s, 4 * s, "4s / 10s"},
		{10 * s, 0, 4 * s, "4s / 10s"},
		{303 * s, 10 * s, 4 * s, "4s / 10s of arrivals"},
		{303 * s, 10 * s, 21500 * time.Millisecond, "21.5s (arrivals ended at 10s; sessions finishing, at most 5m3s)"},
		{2 * s, 2 * s, 4100 * time.Millisecond, "4.1s (arrivals ended at 2s; sessions finishing)"},
	} {
		m := &monitor{total: tc.total, arrivals: tc.arrivals}
		if got := m.clockText(tc.now); got != tc.want {
			t.Errorf("total %v, arrivals %v, at %v: %q, want %q", tc.total, tc.arrivals, tc.now, got, tc.want)
		}
	}
}

// arrivalsEnd finds where a plan's arrivals stop: a 2 s stage of arrivals
// and a 60 s stage of rate 0 end their arrivals at about 2 s.
func TestArrivalsEndBeforeARateZeroTail(t *testing.T) {
	s := compilePlan(t, `
target "t" {
  url = "http://127.0.0.1:1"
}
endpoint "e" {}
load {
  stage {
    duration = "2s"
    rate     = 50
  }
  stage {
    duration = "60s"
    rate     = 0
  }
}
`, nil)
	if got := arrivalsEnd(s); got < 2*time.Second || got > 4*time.Second {
		t.Fatalf("arrivals end at %v, want about 2s of the stages' %v", got, s.Duration)
	}
}

// A lag past behindSchedule reads in milliseconds, never "0s".
func TestLagReadsInMilliseconds(t *testing.T) {
	if got := fmtLag(63400 * time.Microsecond); got != "63ms" {
		t.Fatalf("fmtLag(63.4ms) = %q", got)
	}
}
