package compile

import (
	"math"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
	"pgregory.net/rapid"
)

func TestSWRRInterleaves(t *testing.T) {
	tests := []struct {
		weights []int
		want    []uint16
	}{
		{[]int{3, 1}, []uint16{0, 0, 1, 0}},
		{[]int{6, 2}, []uint16{0, 0, 1, 0}}, // reduced by the gcd
		{[]int{5, 1, 1}, []uint16{0, 0, 1, 0, 2, 0, 0}},
		{[]int{1, 1, 1}, []uint16{0, 1, 2}},
	}
	for _, tt := range tests {
		got, err := swrrCycle(tt.weights)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%v: cycle %v, want %v", tt.weights, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Fatalf("%v: cycle %v, want %v", tt.weights, got, tt.want)
			}
		}
	}
}

func TestSWRRSharesExactEveryCycle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		weights := rapid.SliceOfN(rapid.IntRange(1, 50), 1, 8).Draw(t, "weights")
		s, err := newSelector(plan.SelectWeighted, weights, 1)
		if err != nil {
			t.Fatal(err)
		}
		g := 0
		total := 0
		for _, w := range weights {
			g = gcd(g, w)
			total += w
		}
		period := total / g
		start := rapid.Uint64Range(0, 1<<40).Draw(t, "start") * uint64(period)
		counts := make([]int, len(weights))
		for k := start; k < start+uint64(period); k++ {
			counts[s.pick(k)]++
		}
		for i, w := range weights {
			if counts[i] != w/g {
				t.Fatalf("cycle counts %v for weights %v", counts, weights)
			}
		}
	})
}

func TestRoundRobinIgnoresWeights(t *testing.T) {
	s, _ := newSelector(plan.SelectRoundRobin, []int{5, 1, 1}, 1)
	for k := uint64(0); k < 9; k++ {
		if s.pick(k) != int(k%3) {
			t.Fatalf("pick(%d) = %d", k, s.pick(k))
		}
	}
}

func TestRandomSharesWithinTolerance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		weights := rapid.SliceOfN(rapid.IntRange(1, 10), 1, 5).Draw(t, "weights")
		seed := rapid.Uint64().Draw(t, "seed")
		s, _ := newSelector(plan.SelectRandom, weights, seed)
		const n = 40000
		counts := make([]int, len(weights))
		for k := uint64(0); k < n; k++ {
			counts[s.pick(k)]++
		}
		total := 0
		for _, w := range weights {
			total += w
		}
		for i, w := range weights {
			p := float64(w) / float64(total)
			sd := math.Sqrt(n * p * (1 - p))
			if math.Abs(float64(counts[i])-n*p) > 5*sd+1 {
				t.Fatalf("entry %d: %d picks, expected %.0f±%.0f", i, counts[i], n*p, sd)
			}
		}
		// Stateless: the same k picks the same entry in any order.
		if s.pick(12345) != s.pick(12345) {
			t.Fatal("pick is not a function of k")
		}
	})
}

func TestOpenStreamUsesSelection(t *testing.T) {
	s := mustCompile(t, openPlan(t, []plan.Stage{constant(time.Second, 8)}, 3, 1))
	var got []int
	for _, sl := range allSlots(s) {
		got = append(got, sl.Entry())
	}
	want := []int{0, 0, 1, 0, 0, 0, 1, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entries %v, want %v", got, want)
		}
	}
}
