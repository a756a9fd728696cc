package live

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tressi/tressi/results"
)

// A quantile is the upper edge of the nearest-rank value's bucket: never
// below that value, within 1/128 above it; merging equals recording both.
func TestHistQuantileAndMerge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.Int64Range(0, int64(10*time.Second)), 1, 300).Draw(t, "a")
		b := rapid.SliceOfN(rapid.Int64Range(0, int64(time.Second)), 0, 300).Draw(t, "b")
		q := rapid.Float64Range(0, 1).Draw(t, "q")
		var ha, hb, both Hist
		for _, v := range a {
			ha.Record(v)
			both.Record(v)
		}
		for _, v := range b {
			hb.Record(v)
			both.Record(v)
		}
		// The same values counted densely (an interval still filling, a
		// sum) read the same, sealed or not.
		var dense Hist
		dense.Dense()
		for _, v := range append(slices.Clone(a), b...) {
			dense.Record(v)
		}
		if c := dense.Clone(); !sameBuckets(&c, &both) || dense.Quantile(q) != both.Quantile(q) {
			t.Fatalf("dense %+v, sparse %+v", c, both)
		}
		dense.Seal()
		if !sameBuckets(&dense, &both) || dense.Quantile(q) != both.Quantile(q) {
			t.Fatalf("sealed %+v, sparse %+v", dense, both)
		}
		// Sealed, it writes the JSON it wrote before; a clone shares its
		// buckets, and a value recorded into either leaves the other as it was.
		if j1, j2 := mustJSON(t, &dense), mustJSON(t, &both); j1 != j2 {
			t.Fatalf("sealed JSON %s, sparse %s", j1, j2)
		}
		c := dense.Clone()
		c.Record(7)
		if !sameBuckets(&dense, &both) {
			t.Fatalf("recording into a clone changed the sealed hist: %+v", dense)
		}
		dense.Seal()
		ha.Seal() // a sealed hist merged into (an interval widened) opens again
		ha.Merge(&hb)
		if !sameBuckets(&ha, &both) || ha.Count != both.Count ||
			ha.Min != both.Min || ha.Max != both.Max || ha.Sum != both.Sum {
			t.Fatalf("merged %+v, recorded together %+v", ha, both)
		}
		all := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
		rank := max(int(float64(len(all))*q+0.999999999), 1)
		rank = min(rank, len(all))
		want := all[rank-1]
		got := both.Quantile(q)
		if got < want || float64(got-want) > float64(want)/128+1 {
			t.Fatalf("quantile %g of %d values: %d, nearest rank %d", q, len(all), got, want)
		}
	})
}

// Past its limit the aggregator widens its intervals; the totals stay
// exact.
func TestAggregatorWidens(t *testing.T) {
	a := NewAggregator(time.Second, 4)
	a.SetEndpoints([]string{"home"})
	var rows int64
	for at := int64(0); at < int64(20*time.Second); at += int64(7 * time.Millisecond) {
		a.Observe(&results.Row{Scheduled: at, Sent: at, Latency: 3e6, Service: 2e6, Status: 200}, true)
		rows++
	}
	width, reset, ivs := a.Flush()
	if width != int64(8*time.Second) || !reset || len(ivs) != 3 {
		t.Fatalf("width %v, reset %v, %d intervals; want 8s, a reset, 3", time.Duration(width), reset, len(ivs))
	}
	tot := Sum(ivs)
	if tot.Requests != rows || tot.OK != rows || tot.Latency.Count != rows || tot.Latency.Max != 3 {
		t.Fatalf("totals %+v after %d rows", tot, rows)
	}
	var due int64
	for _, iv := range ivs {
		due += iv.Due
	}
	if due != rows {
		t.Fatalf("%d due, want %d", due, rows)
	}
	if _, reset, ivs := a.Flush(); reset || len(ivs) != 0 {
		t.Fatalf("a second flush with no new row: reset %v, %d intervals", reset, len(ivs))
	}
}

// sameBuckets says whether a and b hold the same counts in the same
// buckets, whatever form each keeps them in.
func sameBuckets(a, b *Hist) bool {
	type bucket struct {
		i int32
		n int64
	}
	var ba, bb []bucket
	a.Each(func(i int32, n int64) { ba = append(ba, bucket{i, n}) })
	b.Each(func(i int32, n int64) { bb = append(bb, bucket{i, n}) })
	return slices.Equal(ba, bb)
}

func mustJSON(t *rapid.T, h *Hist) string {
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
