package compile

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/tressi/tressi/plan"
)

// The open model's arrivals: the rate r(t) is piecewise linear, one piece
// per stage, and the cumulative count N(t) = ∫r is a piecewise quadratic.
// Arrival k (0-based) is due at the first instant where N reaches x_k:
// uniform arrivals take x_k = k, so the first is due at 0 and a stage's
// fractional remainder carries into the next; poisson arrivals take x_k as
// the cumulative sums of Exp(1) variates, which is the time-changed unit
// Poisson process (an inhomogeneous Poisson process of rate r(t)).

// stage is one open-model stage in schedule units.
type stage struct {
	start, length int64   // ns after run start, ns
	from, to      float64 // arrivals per second at the start and the end
	before        float64 // cumulative arrivals before the stage
	integral      float64 // arrivals during the stage
	// exactStep, when not 0, is the integer ns between uniform arrivals of a
	// constant integral-rate stage that starts on a whole arrival: then
	// arrival k is due at start + k·exactStep with no rounding at all.
	exactStep uint64
	// exactRate, when not 0, is the rate of a constant integral-rate stage
	// starting on a whole arrival: due times are round(k·1e9/rate) in 128-bit
	// integer arithmetic.
	exactRate uint64
	quad      float64 // (to-from)/(2·T) in arrivals per s²
	seconds   float64
}

// countEpsilon absorbs float rounding in the stage integrals, so a ramp that
// integrates to 550 counts 550 arrivals and not 549. It is far below one
// arrival even for schedules of billions of arrivals.
func countEpsilon(total float64) float64 { return 1e-6 + total*1e-12 }

// makeStages lays the plan's stages out in time and integrates them.
func makeStages(ps []plan.Stage) ([]stage, float64) {
	out := make([]stage, len(ps))
	var start int64
	var cum float64
	for i, p := range ps {
		st := stage{start: start, length: int64(p.Duration), from: p.From, to: p.To, before: cum}
		st.seconds = float64(st.length) / 1e9
		st.integral = (p.From + p.To) * st.seconds / 2
		if st.seconds > 0 {
			st.quad = (p.To - p.From) / (2 * st.seconds)
		}
		if p.From == p.To && p.From >= 1 && p.From <= 1e9 && p.From == math.Trunc(p.From) &&
			math.Abs(cum-math.Round(cum)) <= countEpsilon(cum) {
			st.exactRate = uint64(p.From)
			st.before = math.Round(cum)
			if 1_000_000_000%st.exactRate == 0 {
				st.exactStep = 1_000_000_000 / st.exactRate
			}
		}
		out[i] = st
		start += st.length
		cum += st.integral
	}
	return out, cum
}

// end is the cumulative count at the stage's end.
func (st *stage) end() float64 { return st.before + st.integral }

// dueAt inverts N within the stage: the ns after run start at which the
// cumulative count reaches x (before ≤ x ≤ end).
func (st *stage) dueAt(x float64) int64 {
	u := x - st.before
	if u <= 0 {
		return st.start
	}
	var t float64
	if st.quad == 0 {
		t = u / st.from
	} else {
		// from·t + quad·t² = u. The textbook root (−from + √(from²+4·quad·u))/(2·quad)
		// cancels catastrophically when quad is small; this equivalent form
		// divides by a sum of non-negative terms instead.
		disc := st.from*st.from + 4*st.quad*u
		if disc < 0 {
			disc = 0
		}
		t = 2 * u / (st.from + math.Sqrt(disc))
	}
	ns := int64(math.Round(t * 1e9))
	if ns > st.length || ns < 0 || t != t {
		ns = st.length
	}
	return st.start + ns
}

// dueAtIndex is dueAt for whole uniform arrivals, exact in integer
// arithmetic on constant integral-rate stages.
func (st *stage) dueAtIndex(k int64) int64 {
	if st.exactRate == 0 {
		return st.dueAt(float64(k))
	}
	u := uint64(k - int64(st.before))
	if st.exactStep != 0 {
		return st.start + int64(u*st.exactStep)
	}
	hi, lo := bits.Mul64(u, 1e9)
	lo, c := bits.Add64(lo, st.exactRate/2, 0)
	q, _ := bits.Div64(hi+c, lo, st.exactRate)
	if int64(q) > st.length {
		return st.start + st.length
	}
	return st.start + int64(q)
}

// uniformCount is how many uniform arrivals fit: floor of the integral.
func uniformCount(total float64) int64 {
	return int64(math.Floor(total + countEpsilon(total)))
}

// arrivals streams the due instants of an open schedule in order, before
// selection and rate caps.
type arrivals struct {
	stages  []stage
	i       int
	total   float64
	poisson bool
	// uniform
	k, count int64
	// poisson
	rng  *rand.Rand
	next float64
}

func newArrivals(stages []stage, total float64, poisson bool, seed uint64) arrivals {
	a := arrivals{stages: stages, total: total, poisson: poisson, count: uniformCount(total)}
	if poisson {
		// The second PCG word is a fixed salt so the arrival stream differs
		// from other seeded streams of the same plan.
		a.rng = rand.New(rand.NewPCG(seed, 0x6172726976616c73))
		a.next = a.rng.ExpFloat64()
	}
	return a
}

// nextDue returns the next arrival's due instant; false when there are no more.
func (a *arrivals) nextDue() (int64, bool) {
	var x float64
	if a.poisson {
		x = a.next
		if x >= a.total {
			return 0, false
		}
		a.next += a.rng.ExpFloat64()
	} else {
		if a.k >= a.count {
			return 0, false
		}
		x = float64(a.k)
	}
	for a.i < len(a.stages)-1 && (a.stages[a.i].integral <= 0 || x > a.stages[a.i].end()) {
		a.i++
	}
	st := &a.stages[a.i]
	if a.poisson {
		return st.dueAt(x), true
	}
	k := a.k
	a.k++
	return st.dueAtIndex(k), true
}
