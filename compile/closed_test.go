package compile

import (
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
)

func TestUserSpans(t *testing.T) {
	s := time.Second
	tests := []struct {
		name   string
		stages []plan.Stage
		want   []UserSpan
	}{
		{"constant", []plan.Stage{constant(10*s, 2)}, []UserSpan{{0, 10e9}, {0, 10e9}}},
		{"ramp up", []plan.Stage{ramp(4*s, 0, 4)}, []UserSpan{{1e9, 4e9}, {2e9, 4e9}, {3e9, 4e9}}},
		{"ramp up then hold", []plan.Stage{ramp(2*s, 0, 2), constant(2*s, 2)}, []UserSpan{{1e9, 4e9}, {2e9, 4e9}}},
		// User 4 drops below level 4 at once; the last user reaches level 4
		// only at the end of a ramp up, so neither gets a span.
		{"ramp down", []plan.Stage{ramp(4*s, 4, 0)}, []UserSpan{{0, 1e9}, {0, 2e9}, {0, 3e9}}},
		{"step down and up", []plan.Stage{constant(2*s, 2), constant(2*s, 1), constant(2*s, 2)},
			[]UserSpan{{0, 2e9}, {0, 6e9}, {4e9, 6e9}}},
		{"fractional", []plan.Stage{ramp(2*s, 0.5, 2.5)}, []UserSpan{{5e8, 2e9}, {15e8, 2e9}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := userSpans(tt.stages)
			if len(got) != len(tt.want) {
				t.Fatalf("spans %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("spans %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestClosedSchedule(t *testing.T) {
	p := openPlan(t, []plan.Stage{ramp(10*time.Second, 0, 10)}, 3, 1)
	p.Load.Model = plan.ModelClosed
	p.Load.Think = 100 * time.Millisecond
	s := mustCompile(t, p)
	if s.Model != Closed || s.Count != 0 || len(allSlots(s)) != 0 {
		t.Fatalf("model %v count %d", s.Model, s.Count)
	}
	if len(s.Users) != 9 || s.Think != 100*time.Millisecond {
		t.Fatalf("users %v think %v", s.Users, s.Think)
	}
	want := []int{0, 0, 1, 0, 0, 0, 1, 0}
	for k, w := range want {
		if got := s.Pick(uint64(k)); got != w {
			t.Fatalf("Pick(%d) = %d, want %d", k, got, w)
		}
	}
}

func TestPickOnHandBuiltSchedule(t *testing.T) {
	s := &Schedule{Selection: plan.SelectWeighted, Entries: []Entry{{Weight: 3}, {Weight: 1}}}
	want := []int{0, 0, 1, 0}
	for k, w := range want {
		if got := s.Pick(uint64(k)); got != w {
			t.Fatalf("Pick(%d) = %d, want %d", k, got, w)
		}
	}
}
