package compile

import (
	"math"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
	"pgregory.net/rapid"
)

func TestMaxRateNeverExceeded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rate := float64(rapid.IntRange(10, 2000).Draw(t, "rate"))
		p := openPlan(t, []plan.Stage{ramp(5*time.Second, rate, rapid.Float64Range(0, 2000).Draw(t, "to"))}, 1, 1, 1)
		capped := rapid.IntRange(0, 2).Draw(t, "capped")
		maxRate := float64(rapid.IntRange(1, 300).Draw(t, "max_rate")) / 3
		p.Endpoints[capped].MaxRate = maxRate
		s := mustCompile(t, p)
		var dues []int64
		for _, sl := range allSlots(s) {
			if sl.Entry() == capped {
				dues = append(dues, sl.Due())
			}
		}
		// Any window of one second holds at most ⌊max_rate⌋ + 2 sends: the
		// cap's own uniform stream holds ⌊max_rate⌋ + 1, and where the cap
		// starts to bind one pick of the selection may precede it.
		j := 0
		for i := range dues {
			for dues[i]-dues[j] >= int64(time.Second) {
				j++
			}
			if float64(i-j+1) > math.Floor(maxRate)+2 {
				t.Fatalf("%d sends within 1 s at max_rate %v", i-j+1, maxRate)
			}
		}
	})
}

// A cap below what selection offers delivers exactly the cap.
func TestMaxRateDeliversTheCap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capRate := float64(rapid.IntRange(5, 500).Draw(t, "max_rate"))
		w := []int{rapid.IntRange(1, 5).Draw(t, "w0"), rapid.IntRange(1, 5).Draw(t, "w1"), rapid.IntRange(1, 5).Draw(t, "w2")}
		capped := rapid.IntRange(0, 2).Draw(t, "capped")
		share := float64(w[capped]) / float64(w[0]+w[1]+w[2])
		over := rapid.Float64Range(1.25, 4).Draw(t, "overload")
		p := openPlan(t, []plan.Stage{constant(10*time.Second, math.Ceil(capRate*over/share))}, w...)
		p.Endpoints[capped].MaxRate = capRate
		s := mustCompile(t, p)
		got := s.stats.perEntry[capped]
		if want := int64(capRate * 10); got < want-1 || got > want+1 {
			t.Fatalf("capped entry sent %d in 10 s, want about %v", got, want)
		}
	})
}

func TestMaxRateDropsOnlyCappedEntry(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(10*time.Second, 100)}, 1, 1)
	p.Endpoints[1].MaxRate = 10
	s := mustCompile(t, p)
	if s.stats.perEntry[0] != 500 {
		t.Fatalf("uncapped entry has %d slots, want 500", s.stats.perEntry[0])
	}
	if n := s.stats.perEntry[1]; n != 100 {
		t.Fatalf("capped entry has %d slots, want 100", n)
	}
	if s.Count != 500+s.stats.perEntry[1] {
		t.Fatalf("Count %d", s.Count)
	}
}

func TestNeverScheduledEntryWarns(t *testing.T) {
	p := openPlan(t, []plan.Stage{constant(time.Second, 1)}, 1, 1)
	s, diags := Compile(p)
	if diags.HasErrors() || s.Count != 1 {
		t.Fatalf("diags %v count %d", diags, s.Count)
	}
	if len(diags) != 1 || diags[0].Summary != "Entry never scheduled" {
		t.Fatalf("diags %v", diags)
	}
}

// A ramp that crosses the cap: the capped entry sends its share below the
// cap and exactly the cap above it, ∫ min(share·rate, cap) dt in all.
func TestMaxRateOnARamp(t *testing.T) {
	p := openPlan(t, []plan.Stage{ramp(10*time.Second, 0, 200)}, 1, 1) // entry 1 offered 10·t per s
	p.Endpoints[1].MaxRate = 25                                        // binds from t = 2.5 s
	s := mustCompile(t, p)
	if got := s.stats.perEntry[1]; got < 217 || got > 220 { // 31.25 below the cap + 187.5 at it
		t.Fatalf("capped entry sent %d, want about 218.75", got)
	}
	if got := s.stats.perEntry[0]; got != 500 {
		t.Fatalf("uncapped entry sent %d, want its 500", got)
	}
}
