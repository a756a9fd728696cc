package loop

import "testing"

// A target learns a server's streams per connection from two GOAWAYs
// that left streams unprocessed after the same count, and from nothing
// else.
func TestSawGoAwayLearnsOnlyAnAgreedLimit(t *testing.T) {
	type goAway struct{ processed, started int }
	for _, tc := range []struct {
		name string
		seen []goAway
		want int
	}{
		{"two agree", []goAway{{1000, 1019}, {1000, 1010}}, 1000},
		{"one is not enough", []goAway{{1000, 1019}}, 0},
		{"counts differ", []goAway{{1000, 1019}, {731, 750}}, 0},
		{"idle closes leave nothing unprocessed", []goAway{{1, 1}, {1, 1}}, 0},
		{"an error or nothing processed", []goAway{{0, 20}, {0, 20}}, 0},
		{"the latest pair counts", []goAway{{500, 510}, {731, 750}, {731, 740}}, 731},
	} {
		tg := &ltarget{}
		for _, g := range tc.seen {
			tg.sawGoAway(g.processed, g.started)
		}
		if tg.streamLimit != tc.want {
			t.Errorf("%s: limit %d, want %d", tc.name, tg.streamLimit, tc.want)
		}
	}
}
