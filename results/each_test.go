package results

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// eachRows reads data with Each on workers goroutines (through the fast
// reader or arrow-go's) and puts the batches back in file order by their
// Row, failing on a gap or an overlap.
func eachRows(t *testing.T, data []byte, fast bool, workers int) ([]Row, *Reader) {
	t.Helper()
	defer func() { fastReader = true }()
	fastReader = fast
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	byRow := map[int64][]Row{}
	err = r.Each(workers, func(w int, b *Batch) error {
		if w < 0 || w >= workers {
			t.Errorf("worker %d of %d", w, workers)
		}
		rows := batchRows(t, b)
		mu.Lock()
		defer mu.Unlock()
		if _, dup := byRow[b.Row]; dup {
			t.Errorf("two batches at row %d", b.Row)
		}
		byRow[b.Row] = rows
		return nil
	})
	if err != nil || r.Err() != nil {
		t.Fatalf("Each: %v, Err: %v", err, r.Err())
	}
	var out []Row
	for _, at := range slices.Sorted(func(yield func(int64) bool) {
		for k := range byRow {
			if !yield(k) {
				return
			}
		}
	}) {
		if at != int64(len(out)) {
			t.Fatalf("a batch at row %d after %d rows", at, len(out))
		}
		out = append(out, byRow[at]...)
	}
	return out, r
}

// Each hands out every row once, whichever reader decodes the file and
// however many goroutines take the batches, with the running sums of the
// delta columns carried across batches taken by different workers.
func TestEachHandsEveryBatchOnce(t *testing.T) {
	rows := completionOrder(randomRows(20_000, 11))
	data := writeRows(t, rows, 700)
	for _, fast := range []bool{true, false} {
		for _, workers := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("fast=%v/workers=%d", fast, workers), func(t *testing.T) {
				got, r := eachRows(t, data, fast, workers)
				if !reflect.DeepEqual(got, rows) {
					t.Fatalf("read %d rows back, wrote %d (or they differ)", len(got), len(rows))
				}
				if r.Truncated != nil || r.Unchecked != 0 {
					t.Fatalf("truncated %v, %d unchecked batches", r.Truncated, r.Unchecked)
				}
			})
		}
	}
}

// A file cut short reads, through Each as through Next, its complete
// batches and says where it was cut.
func TestEachReadsACutFileLikeNext(t *testing.T) {
	rows := randomRows(5000, 3)
	data := writeRows(t, rows, 1000)
	for cut := len(data) - 1; cut > len(data)/3; cut -= len(data) / 11 {
		r, err := NewReader(bytes.NewReader(data[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		want := readRows(t, r)
		wantCut := r.Truncated != nil
		r.Close()
		got, r := eachRows(t, data[:cut], true, 3)
		if !reflect.DeepEqual(got, want) || (r.Truncated != nil) != wantCut {
			t.Fatalf("cut at %d of %d: Each read %d rows (truncated %v), Next %d (%v)", cut, len(data), len(got), r.Truncated, len(want), wantCut)
		}
	}
}

// A file damaged inside reads, through Each as through Next, the batches
// before the damage and no batch after it, whichever goroutine decodes
// which.
func TestEachStopsAtDamageLikeNext(t *testing.T) {
	rows := randomRows(20_000, 7)
	data := writeRows(t, rows, 700)
	for at := len(data) / 5; at < len(data)-16; at += len(data) / 7 {
		bad := bytes.Clone(data)
		bad[at] ^= 0x5a
		r, err := NewReader(bytes.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		want := readRows(t, r)
		wantCut := r.Truncated != nil
		r.Close()
		for _, workers := range []int{2, 4} {
			got, r := eachRows(t, bad, true, workers)
			if !reflect.DeepEqual(got, want) || (r.Truncated != nil) != wantCut {
				t.Fatalf("byte %d of %d flipped, %d workers: Each read %d rows (truncated %v), Next %d (%v)",
					at, len(data), workers, len(got), r.Truncated, len(want), wantCut)
			}
		}
		if !wantCut || len(want) >= len(rows) {
			t.Fatalf("byte %d of %d flipped: Next read %d of %d rows, truncated %v", at, len(data), len(want), len(rows), wantCut)
		}
	}
}

// When several batches fail, Each returns the error of the earliest, as
// reading them one by one would, and stops taking batches.
func TestEachReturnsTheEarliestError(t *testing.T) {
	data := writeRows(t, randomRows(30_000, 5), 500)
	for round := range 20 {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		taken := 0
		err = r.Each(4, func(_ int, b *Batch) error {
			mu.Lock()
			taken++
			mu.Unlock()
			if b.Row >= 10_000 {
				return fmt.Errorf("batch at row %d", b.Row)
			}
			return nil
		})
		r.Close()
		if err == nil || err.Error() != "batch at row 10000" {
			t.Fatalf("round %d: Each returned %v, want the error of the batch at row 10000", round, err)
		}
		// The 21st batch fails; each of the other three workers stops at
		// its first failing batch, after it.
		if taken > 21+3 {
			t.Fatalf("round %d: %d of 60 batches taken, an error at the 21st", round, taken)
		}
	}
}
