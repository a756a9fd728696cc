package compile

import (
	"math"
	"slices"

	"github.com/tressi/tressi/plan"
)

// userSpans lays out the closed model's users. The user level L(t) is
// piecewise linear, one piece per stage (from From to To). User i (0-based)
// is active while L(t) ≥ i+1: it starts when the level first reaches i+1 and
// stops when the level drops below i+1 or the schedule ends. A level that
// falls and rises again starts a new span for the same user number, so
// spans, not users, are what the executor runs.
func userSpans(stages []plan.Stage) []UserSpan {
	const eps = 1e-9
	var spans []UserSpan
	var active []int64 // active[i]: start of user i's open span, -1 when idle
	setLevel := func(level float64, at int64) {
		n := int(math.Floor(level + eps))
		if n < 0 {
			n = 0
		}
		for len(active) < n {
			active = append(active, -1)
		}
		for i := range active {
			switch {
			case i < n && active[i] < 0:
				active[i] = at
			case i >= n && active[i] >= 0:
				if at > active[i] {
					spans = append(spans, UserSpan{Start: active[i], Stop: at})
				}
				active[i] = -1
			}
		}
	}
	var start int64
	for _, st := range stages {
		length := int64(st.Duration)
		setLevel(st.From, start)
		lo, hi := st.From, st.To
		switch {
		case hi > lo:
			// Rising: level j is reached at L = j.
			for j := math.Floor(lo+eps) + 1; j <= hi+eps; j++ {
				setLevel(j, start+int64(math.Round((j-lo)/(hi-lo)*float64(length))))
			}
		case hi < lo:
			// Falling: user j stops as soon as L drops below j.
			for j := math.Floor(lo + eps); j > hi+eps; j-- {
				setLevel(j-1, start+int64(math.Round((lo-j)/(lo-hi)*float64(length))))
			}
		}
		start += length
	}
	setLevel(0, start)
	slices.SortFunc(spans, func(a, b UserSpan) int {
		if a.Start != b.Start {
			return cmpInt64(a.Start, b.Start)
		}
		return cmpInt64(a.Stop, b.Stop)
	})
	return spans
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
