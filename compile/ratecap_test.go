package compile

import (
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
		// Any window of one second holds at most max_rate + 1 sends.
		j := 0
		for i := range dues {
			for dues[i]-dues[j] >= int64(time.Second) {
				j++
			}
			if float64(i-j+1) > maxRate+1 {
				t.Fatalf("%d sends within 1 s at max_rate %v", i-j+1, maxRate)
			}
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
	if s.Count != 600 {
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
