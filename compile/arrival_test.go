package compile

import (
	"math"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
	"pgregory.net/rapid"
)

func TestUniformCounts(t *testing.T) {
	tests := []struct {
		name   string
		stages []plan.Stage
		want   int64
	}{
		{"constant", []plan.Stage{constant(5*time.Second, 2000)}, 10000},
		{"ramp up", []plan.Stage{ramp(10*time.Second, 10, 100)}, 550},
		{"ramp down", []plan.Stage{ramp(10*time.Second, 100, 10)}, 550},
		{"ramp from zero", []plan.Stage{ramp(10*time.Second, 0, 10)}, 50},
		{"ramp to zero", []plan.Stage{ramp(4*time.Second, 3, 0)}, 6},
		{"fractional carries", []plan.Stage{constant(time.Second, 2.5), constant(time.Second, 2.5), constant(time.Second, 0.5)}, 5},
		{"fraction lost at the end", []plan.Stage{constant(time.Second, 2.5)}, 2},
		{"zero-rate stage between", []plan.Stage{constant(2*time.Second, 3), constant(5*time.Second, 0), constant(2*time.Second, 3)}, 12},
		{"only zero", []plan.Stage{constant(time.Second, 0)}, 0},
		{"tenths", []plan.Stage{constant(10*time.Second, 0.1), constant(10*time.Second, 0.1), constant(10*time.Second, 0.1)}, 3},
		{"multi-stage", []plan.Stage{ramp(10*time.Second, 10, 100), constant(30*time.Second, 100), ramp(5*time.Second, 100, 0)}, 550 + 3000 + 250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, openPlan(t, tt.stages, 1))
			if s.Count != tt.want {
				t.Fatalf("Count = %d, want %d", s.Count, tt.want)
			}
			if got := int64(len(allSlots(s))); got != tt.want {
				t.Fatalf("stream holds %d slots, want %d", got, tt.want)
			}
		})
	}
}

func TestUniformConstantIsExact(t *testing.T) {
	s := mustCompile(t, openPlan(t, []plan.Stage{constant(5*time.Second, 2000)}, 1))
	for k, sl := range allSlots(s) {
		if sl.Due() != int64(k)*500_000 {
			t.Fatalf("slot %d due at %d ns, want %d", k, sl.Due(), int64(k)*500_000)
		}
	}
	// A rate that does not divide a second: round(k·1e9/3), no drift.
	s = mustCompile(t, openPlan(t, []plan.Stage{constant(time.Hour, 3)}, 1))
	slots := allSlots(s)
	if len(slots) != 3*3600 {
		t.Fatalf("got %d slots", len(slots))
	}
	for _, k := range []int{1, 2, 3, 10799} {
		want := int64(math.Round(float64(k) * 1e9 / 3))
		if slots[k].Due() != want {
			t.Fatalf("slot %d due %d, want %d", k, slots[k].Due(), want)
		}
	}
}

func TestUniformRampDueTimes(t *testing.T) {
	// 0 → 10 req/s over 10 s: N(t) = t²/2, so slot k is due at √(2k) s.
	s := mustCompile(t, openPlan(t, []plan.Stage{ramp(10*time.Second, 0, 10)}, 1))
	for k, sl := range allSlots(s) {
		want := math.Sqrt(2*float64(k)) * 1e9
		if math.Abs(float64(sl.Due())-want) > 1 {
			t.Fatalf("slot %d due %d, want %.0f", k, sl.Due(), want)
		}
	}
	// A carried fraction: 2.5 req/s for 1 s leaves 0.5, so the next stage's
	// first slot (k=3) is due 0.5 s into a 1 req/s stage.
	s = mustCompile(t, openPlan(t, []plan.Stage{constant(time.Second, 2.5), constant(2*time.Second, 1)}, 1))
	slots := allSlots(s)
	if len(slots) != 4 || slots[3].Due() != 1_500_000_000 {
		t.Fatalf("slots %v", dues(slots))
	}
}

func dues(slots []Slot) []int64 {
	out := make([]int64, len(slots))
	for i, s := range slots {
		out[i] = s.Due()
	}
	return out
}

func genStages(t *rapid.T) []plan.Stage {
	n := rapid.IntRange(1, 4).Draw(t, "stages")
	out := make([]plan.Stage, n)
	for i := range out {
		d := time.Duration(rapid.Int64Range(1, 20_000).Draw(t, "ms")) * time.Millisecond
		from := float64(rapid.IntRange(0, 4000).Draw(t, "from")) / 8
		to := from
		if rapid.Bool().Draw(t, "ramp") {
			to = float64(rapid.IntRange(0, 4000).Draw(t, "to")) / 8
		}
		out[i] = plan.Stage{Duration: d, From: from, To: to}
	}
	return out
}

func TestArrivalProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		stages := genStages(t)
		p := openPlan(t, stages, 1)
		if rapid.Bool().Draw(t, "poisson") {
			p.Load.Arrival = plan.ArrivalPoisson
		}
		s := mustCompile(t, p)
		var integral float64
		for _, st := range stages {
			integral += (st.From + st.To) / 2 * st.Duration.Seconds()
		}
		slots := allSlots(s)
		if int64(len(slots)) != s.Count {
			t.Fatalf("stream %d slots, Count %d", len(slots), s.Count)
		}
		if p.Load.Arrival == plan.ArrivalUniform && s.Count != int64(math.Floor(integral+1e-6)) {
			t.Fatalf("Count %d, integral %v", s.Count, integral)
		}
		var prev int64
		for k, sl := range slots {
			if sl.Due() < prev || sl.Due() > int64(s.Duration) {
				t.Fatalf("slot %d due %d after %d (duration %d)", k, sl.Due(), prev, s.Duration)
			}
			prev = sl.Due()
		}
		if p.Load.Arrival != plan.ArrivalUniform {
			return
		}
		// Each slot lies in a stage whose rate is not zero there (a stage
		// boundary counts for both sides), and the count due by each stage's
		// end is the floor of the integral so far.
		var start int64
		var cum float64
		for _, st := range stages {
			end := start + int64(st.Duration)
			cum += (st.From + st.To) / 2 * st.Duration.Seconds()
			n := 0
			for _, sl := range slots {
				if sl.Due() < end {
					n++
				}
			}
			// Slots due exactly at a stage boundary belong to both counts.
			atEnd := 0
			for _, sl := range slots {
				if sl.Due() == end {
					atEnd++
				}
			}
			// Arrival x is due where N first reaches x: those with x < cum
			// are due before the end; the one with x = cum (a whole cum)
			// may be too, when N reached cum before a stage of rate 0.
			want := min(int(math.Ceil(cum-1e-6)), len(slots))
			most := min(int(math.Floor(cum+1e-6))+1, len(slots))
			if want > n+atEnd || n > most {
				t.Fatalf("%d slots before %d ns, want %d (cum %v)", n, end, want, cum)
			}
			start = end
		}
	})
}

// Arrival 5 of 0.25/s for 20 s is due at 20 s, where N reaches 5, though
// two stages of rate 0 follow: it is due before their end, and the next
// one waits for the rate to rise again (rapid found this shape).
func TestArrivalBeforeAStageOfRateZero(t *testing.T) {
	s := mustCompile(t, openPlan(t, []plan.Stage{constant(20*time.Second, 0.25), constant(time.Millisecond, 0),
		constant(time.Millisecond, 0), constant(120*time.Millisecond, 8.375)}, 1))
	got := dues(allSlots(s))
	if len(got) != 6 || got[5] != int64(20*time.Second) {
		t.Fatalf("dues %v: want 6, the last at 20 s", got)
	}
}

func TestPoissonIsSeeded(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(10*time.Second, 100)}, 1)
	p.Load.Arrival = plan.ArrivalPoisson
	a := mustCompile(t, p)
	b := mustCompile(t, p)
	if a.Hash != b.Hash || a.Count != b.Count {
		t.Fatal("same seed, different poisson schedules")
	}
	if a.Count < 800 || a.Count > 1200 {
		t.Fatalf("poisson count %d far from 1000", a.Count)
	}
	p.Load.Seed++
	c := mustCompile(t, p)
	if c.Hash == a.Hash {
		t.Fatal("different seed, same hash")
	}
}
