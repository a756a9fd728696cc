// Package search finds the knee of a service: the highest rate (open model)
// or number of users (closed model) at which it still passes the plan's
// thresholds. It runs probes, each a compiled constant schedule replayed
// by exec.Run, judges each one from its own rows (warmup excluded), and
// chooses the next value from the verdicts alone, so the same plan and the
// same verdicts always give the same sequence.
package search

import (
	"math"

	"github.com/tressi/tressi/plan"
)

// Bounds are what decides the probe sequence.
type Bounds struct {
	From, To  float64
	Growth    float64
	Precision float64
	MaxProbes int
	// Whole: values are counts (users) and are rounded to whole numbers.
	Whole bool
}

// BoundsOf reads a plan's search block.
func BoundsOf(ld *plan.LoadProfile) Bounds {
	sr := ld.Search
	return Bounds{From: sr.From, To: sr.To, Growth: sr.Growth, Precision: sr.Precision, MaxProbes: sr.MaxProbes,
		Whole: ld.Model == plan.ModelClosed}
}

// Step is one judged probe: its value and whether it passed.
type Step struct {
	Value  float64
	Passed bool
}

// Interval is what the steps so far established: the highest value that
// passed (0: none) and the lowest that failed (0: none).
func Interval(steps []Step) (maxPass, minFail float64) {
	for _, s := range steps {
		if s.Passed && s.Value > maxPass {
			maxPass = s.Value
		}
		if !s.Passed && (minFail == 0 || s.Value < minFail) {
			minFail = s.Value
		}
	}
	return maxPass, minFail
}

// Next is the value of the next probe, or false when the search is over:
// the passing and failing values are within the precision, `to` passed,
// the values can be split no further, or MaxProbes probes ran.
//
// Until a probe fails, each probe is Growth times the highest pass (the
// first is From, the last no more than To); once one failed and one passed,
// each probe bisects the interval between them. If From itself fails, the
// search steps down by Growth until a probe passes.
func Next(b Bounds, steps []Step) (float64, bool) {
	if len(steps) >= b.MaxProbes {
		return 0, false
	}
	if len(steps) == 0 {
		return b.round(b.From), true
	}
	lo, hi := Interval(steps)
	switch {
	case hi == 0: // nothing failed yet: grow
		if lo >= b.To {
			return 0, false
		}
		return b.fresh(math.Min(b.round(lo*b.Growth), b.To), lo, hi)
	case lo == 0: // nothing passed yet: shrink
		return b.fresh(b.round(hi/b.Growth), lo, hi)
	case b.Converged(lo, hi):
		return 0, false
	}
	return b.fresh(b.round((lo+hi)/2), lo, hi)
}

// Converged reports whether the lowest failing value hi is within the
// precision of the highest passing one, lo.
func (b Bounds) Converged(lo, hi float64) bool {
	return lo > 0 && hi > 0 && hi-lo <= b.Precision*lo
}

// fresh returns v unless rounding made it a value already judged (or no
// value at all), in which case the search cannot split further.
func (b Bounds) fresh(v, lo, hi float64) (float64, bool) {
	if v <= 0 || v == lo || v == hi || (hi > 0 && v > hi) || (v < lo) {
		return 0, false
	}
	return v, true
}

// round keeps values readable and exact in files: users are whole, rates
// of 10/s and more are whole arrivals per second, smaller ones have two
// decimals.
func (b Bounds) round(v float64) float64 {
	switch {
	case b.Whole:
		return math.Round(v)
	case v >= 10:
		return math.Round(v)
	}
	return math.Round(v*100) / 100
}

// Ladder is the growth phase's values, From up to To: the probes a search
// runs while every one passes.
func (b Bounds) Ladder() []float64 {
	var out []float64
	var steps []Step
	for len(out) < b.MaxProbes {
		v, ok := Next(b, steps)
		if !ok {
			break
		}
		out = append(out, v)
		steps = append(steps, Step{Value: v, Passed: true})
	}
	return out
}
