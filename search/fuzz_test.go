package search

import (
	"encoding/json"
	"testing"
)

// ParseProbeMeta reads metadata from files anyone may hand to a report:
// it must never panic, and what it accepts must survive a round trip.
func FuzzParseProbeMeta(f *testing.F) {
	f.Add(`{"index":3,"value":2000,"model":"open","warmup_ns":1000000000,"hold_ns":5000000000}`)
	f.Add(`{"index":-1}`)
	f.Add(`[]`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseProbeMeta(s)
		if err != nil {
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseProbeMeta(string(b))
		if err != nil || again != m {
			t.Fatalf("round trip: %+v → %s → %+v (%v)", m, b, again, err)
		}
	})
}
