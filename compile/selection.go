package compile

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/tressi/tressi/plan"
)

// selector decides which entry the k-th slot (open model) or the k-th
// session (closed model) starts. Every rule is a function of k alone, so the
// open stream and the closed executor's workers can pick without sharing state.
type selector struct {
	rule  selectRule
	n     int
	cycle []uint16 // weighted: one period of smooth weighted round-robin
	cum   []uint64 // random: cumulative weights
	seed  uint64
}

// selectRule is a selection kind as a small integer: pick runs per slot.
type selectRule uint8

const (
	selectWeighted selectRule = iota
	selectRoundRobin
	selectRandom
)

// maxCycle bounds one smooth weighted round-robin period (2 bytes each) and
// the work of precomputing it.
const maxCycle = 1 << 22

// saltSelect separates the selection's random stream from the other
// (seed, slot)-derived values.
const saltSelect = 0x73656c656374

func newSelector(kind string, weights []int, seed uint64) (*selector, error) {
	s := &selector{n: len(weights), seed: seed}
	switch kind {
	case plan.SelectRoundRobin:
		s.rule = selectRoundRobin
	case plan.SelectRandom:
		s.rule = selectRandom
		var c uint64
		for _, w := range weights {
			c += uint64(w)
			s.cum = append(s.cum, c)
		}
	case plan.SelectWeighted, "":
		cycle, err := swrrCycle(weights)
		if err != nil {
			return nil, err
		}
		s.cycle = cycle
	default:
		return nil, fmt.Errorf("unknown selection %q", kind)
	}
	return s, nil
}

// share is entry e's expected fraction of the selections.
func (s *selector) share(e int) float64 {
	switch s.rule {
	case selectRoundRobin:
		return 1 / float64(s.n)
	case selectRandom:
		total, prev := s.cum[len(s.cum)-1], uint64(0)
		if e > 0 {
			prev = s.cum[e-1]
		}
		return float64(s.cum[e]-prev) / float64(total)
	default:
		n := 0
		for _, c := range s.cycle {
			if int(c) == e {
				n++
			}
		}
		return float64(n) / float64(len(s.cycle))
	}
}

// pick is the entry of the k-th selection.
func (s *selector) pick(k uint64) int {
	switch s.rule {
	case selectRoundRobin:
		return int(k % uint64(s.n))
	case selectRandom:
		total := s.cum[len(s.cum)-1]
		// The high word of r·total is uniform on [0,total) without modulo bias
		// worth speaking of.
		r, _ := bits.Mul64(mix(s.seed, k, saltSelect), total)
		return sort.Search(len(s.cum), func(i int) bool { return s.cum[i] > r })
	default:
		return int(s.cycle[k%uint64(len(s.cycle))])
	}
}

// swrrCycle is one period of nginx's smooth weighted round-robin: each turn
// every entry gains its weight, the richest is picked (the first on a tie)
// and pays the total. The sequence repeats every Σweights turns, in which
// each entry is picked exactly its weight times, interleaved (3:1 gives
// a,a,b,a). Scaling every weight by a constant leaves the sequence
// unchanged, so the weights are first reduced by their gcd.
func swrrCycle(weights []int) ([]uint16, error) {
	g := 0
	for _, w := range weights {
		if w < 0 {
			return nil, fmt.Errorf("weight must be >= 0 (got %d)", w)
		}
		g = gcd(g, w) // a weight of 0 (a scenario switched off) leaves g alone
	}
	if g == 0 {
		return nil, fmt.Errorf("every weight is 0")
	}
	total := 0
	ws := make([]int, len(weights))
	for i, w := range weights {
		ws[i] = w / g
		total += ws[i]
		if total > maxCycle {
			return nil, fmt.Errorf("weights sum to more than %d after dividing by their gcd %d; "+
				"use smaller weights or selection = \"random\"", maxCycle, g)
		}
	}
	if total*len(ws) > 1<<30 {
		return nil, fmt.Errorf("%d entries with weights summing to %d make the weighted cycle too costly; "+
			"use smaller weights or selection = \"random\"", len(ws), total)
	}
	cycle := make([]uint16, total)
	cur := make([]int, len(ws))
	for t := range cycle {
		best := 0
		for i, w := range ws {
			cur[i] += w
			if cur[i] > cur[best] {
				best = i
			}
		}
		cur[best] -= total
		cycle[t] = uint16(best)
	}
	return cycle, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
