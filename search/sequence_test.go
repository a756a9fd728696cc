package search

import (
	"math"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// runFake runs a whole search against a fake service that passes every
// probe at or below capacity: the sequence depends on verdicts alone.
func runFake(b Bounds, capacity float64) []Step {
	var steps []Step
	for {
		v, ok := Next(b, steps)
		if !ok {
			return steps
		}
		steps = append(steps, Step{Value: v, Passed: v <= capacity})
	}
}

func values(steps []Step) []float64 {
	out := make([]float64, len(steps))
	for i, s := range steps {
		out[i] = s.Value
	}
	return out
}

func TestSequenceGrowsThenBisects(t *testing.T) {
	open := Bounds{From: 500, To: 16000, Growth: 2, Precision: 0.05, MaxProbes: 10}
	tests := []struct {
		name     string
		b        Bounds
		capacity float64
		want     []float64
		lo, hi   float64
	}{
		{"knee at 2000", open, 2000, []float64{500, 1000, 2000, 4000, 3000, 2500, 2250, 2125, 2063}, 2000, 2063},
		{"knee at 7000", open, 7000, []float64{500, 1000, 2000, 4000, 8000, 6000, 7000, 7500, 7250}, 7000, 7250},
		{"to passes", open, 1e9, []float64{500, 1000, 2000, 4000, 8000, 16000}, 16000, 0},
		{"from fails: step down, then bisect", open, 180, []float64{500, 250, 125, 188, 157, 173, 181}, 173, 181},
		{"max probes ends it", Bounds{From: 1, To: 1e6, Growth: 2, Precision: 0.001, MaxProbes: 4}, 1e9, []float64{1, 2, 4, 8}, 8, 0},
		{"users are whole", Bounds{From: 10, To: 1000, Growth: 2, Precision: 0.05, MaxProbes: 12, Whole: true}, 100,
			[]float64{10, 20, 40, 80, 160, 120, 100, 110, 105}, 100, 105},
		{"users cannot split below one", Bounds{From: 1, To: 100, Growth: 2, Precision: 0.01, MaxProbes: 20, Whole: true}, 5,
			[]float64{1, 2, 4, 8, 6, 5}, 5, 6},
		{"small rates keep two decimals", Bounds{From: 1, To: 100, Growth: 2, Precision: 0.05, MaxProbes: 20}, 3,
			[]float64{1, 2, 4, 3, 3.5, 3.25, 3.13}, 3, 3.13},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps := runFake(tc.b, tc.capacity)
			if got := values(steps); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("probes %v, want %v", got, tc.want)
			}
			if lo, hi := Interval(steps); lo != tc.lo || hi != tc.hi {
				t.Fatalf("interval (%g, %g), want (%g, %g)", lo, hi, tc.lo, tc.hi)
			}
		})
	}
}

func TestLadder(t *testing.T) {
	b := Bounds{From: 500, To: 8000, Growth: 2, Precision: 0.05, MaxProbes: 10}
	if got, want := b.Ladder(), []float64{500, 1000, 2000, 4000, 8000}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ladder %v, want %v", got, want)
	}
	b.MaxProbes = 3
	if got, want := b.Ladder(), []float64{500, 1000, 2000}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ladder with 3 probes %v, want %v", got, want)
	}
}

// For any service with a knee, the search brackets it: every passing value
// is at or below capacity, every failing one above, at most MaxProbes
// probes run, values stay within (0, To], and when it converged the
// bracket is within the precision. The same verdicts give the same
// sequence.
func TestSequenceProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		whole := rapid.Bool().Draw(t, "whole")
		from := rapid.Float64Range(1, 1000).Draw(t, "from")
		if whole {
			from = math.Round(from)
		}
		b := Bounds{
			From:      from,
			To:        from * rapid.Float64Range(1.5, 1000).Draw(t, "span"),
			Growth:    rapid.Float64Range(1.1, 10).Draw(t, "growth"),
			Precision: rapid.Float64Range(0.001, 0.5).Draw(t, "precision"),
			MaxProbes: rapid.IntRange(2, 40).Draw(t, "max"),
			Whole:     whole,
		}
		if whole {
			b.To = math.Round(b.To)
		}
		capacity := rapid.Float64Range(0.01, b.To*2).Draw(t, "capacity")
		steps := runFake(b, capacity)
		if len(steps) == 0 || len(steps) > b.MaxProbes {
			t.Fatalf("%d probes (max %d)", len(steps), b.MaxProbes)
		}
		seen := map[float64]bool{}
		for _, s := range steps {
			if s.Value <= 0 || s.Value > b.To {
				t.Fatalf("probe value %g outside (0, %g]", s.Value, b.To)
			}
			if seen[s.Value] {
				t.Fatalf("value %g probed twice: %v", s.Value, values(steps))
			}
			seen[s.Value] = true
		}
		lo, hi := Interval(steps)
		if lo > capacity || (hi != 0 && hi <= capacity) {
			t.Fatalf("bracket (%g, %g) misses capacity %g", lo, hi, capacity)
		}
		if b.Converged(lo, hi) && hi-lo > b.Precision*lo {
			t.Fatalf("converged with (%g, %g) wider than %g", lo, hi, b.Precision)
		}
		if !reflect.DeepEqual(steps, runFake(b, capacity)) {
			t.Fatal("same verdicts, different sequence")
		}
		// A search that stopped early with both ends known either reached
		// MaxProbes or could not split the interval further.
		if lo > 0 && hi > 0 && !b.Converged(lo, hi) && len(steps) < b.MaxProbes {
			mid := b.round((lo + hi) / 2)
			if mid != lo && mid != hi {
				t.Fatalf("stopped at (%g, %g) after %d probes with %g still between", lo, hi, len(steps), mid)
			}
		}
	})
}
