package main

import "testing"

// Late sends close together are one stall, from the first late slot to
// the last, with the worst lag; a send on time between two late ones does
// not end it, a gap of more than stallGap does; sends at most 1 ms late
// are none.
func TestStalls(t *testing.T) {
	ms := int64(1_000_000)
	rows := []lagRow{
		{100 * ms, 0}, {101 * ms, ms}, // on time, and 1 ms late: within the budget
		{200 * ms, 2 * ms}, {200*ms + ms/2, ms / 10}, {201 * ms, 5 * ms}, // one stall
		{500 * ms, 3 * ms}, // another, more than stallGap later
	}
	got := stalls(rows)
	want := []stall{{AtMs: 200, SpanMs: 1, MaxLagMs: 5, Rows: 2}, {AtMs: 500, SpanMs: 0, MaxLagMs: 3, Rows: 1}}
	if len(got) != len(want) {
		t.Fatalf("stalls = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("stall %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := stalls(nil); s != nil {
		t.Errorf("stalls of no rows = %+v", s)
	}
}
