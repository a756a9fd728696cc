package results

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// completionOrder reorders rows as an executor records them: by when their
// responses completed, so slots and due instants go back and forth.
func completionOrder(rows []Row) []Row {
	out := slices.Clone(rows)
	for i := 0; i+7 < len(out); i += 7 {
		slices.Reverse(out[i : i+7])
	}
	return out
}

// readRowsOf reads data back through the fast reader or arrow-go's, every
// column or only cols.
func readRowsOf(t testing.TB, data []byte, fast bool, cols ...string) (rows []Row, r *Reader) {
	t.Helper()
	defer func() { fastReader = true }()
	fastReader = fast
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(cols) > 0 {
		if err := r.Only(cols...); err != nil {
			t.Fatal(err)
		}
		for b, ok := r.Next(); ok; b, ok = r.Next() {
			for i := range b.Len {
				var row Row
				if b.Slot != nil {
					row.Slot = b.Slot[i]
				}
				if b.Scheduled != nil {
					row.Scheduled = b.Scheduled[i]
				}
				if b.Service != nil {
					row.Service = b.Service[i]
				}
				rows = append(rows, row)
			}
		}
		return rows, r
	}
	return readRows(t, r), r
}

// TestSlotAndScheduledAreStoredAsDeltas: the schema names the delta
// columns, and every reader path (fast, arrow-go, Only of one column, of
// the derived service_ns) gives back the values each row had, whatever the
// order of the rows and wherever the batches split them.
func TestSlotAndScheduledAreStoredAsDeltas(t *testing.T) {
	rows := completionOrder(serviceRows())
	rows[5].Slot, rows[6].Slot = math.MaxUint64, 0 // the widest jumps a slot can make
	data := writeRows(t, rows, 700)
	for _, fast := range []bool{true, false} {
		got, r := readRowsOf(t, data, fast)
		for _, name := range []string{ColSlotDelta, ColScheduledDelta} {
			if len(r.Schema.FieldIndices(name)) != 1 {
				t.Fatalf("the schema has no %s: %v", name, fieldNames(r.Schema))
			}
		}
		if !slices.Equal(got, rows) || r.Truncated != nil || r.Unchecked != 0 {
			t.Fatalf("fast reader %v: rows differ from those written (truncated %v, unchecked %d)", fast, r.Truncated, r.Unchecked)
		}
		for _, col := range []string{ColSlot, ColScheduled, ColService} {
			got, _ := readRowsOf(t, data, fast, col)
			for i, want := range rows {
				if col == ColSlot && got[i].Slot != want.Slot || col == ColScheduled && got[i].Scheduled != want.Scheduled ||
					col == ColService && got[i].Service != want.Service {
					t.Fatalf("fast reader %v, Only(%s): row %d read %+v, wrote %+v", fast, col, i, got[i], want)
				}
			}
		}
	}
}

// TestDeltasProperty: any rows, in batches of any sizes, read back as
// written through both readers.
func TestDeltasProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(rt, "rows")
		rows := make([]Row, n)
		for i := range rows {
			due := rapid.Int64Range(0, math.MaxInt64).Draw(rt, "scheduled")
			rows[i] = Row{Slot: rapid.Uint64().Draw(rt, "slot"), Scheduled: due, Sent: -1, Latency: -1, Service: -1, Error: NotSent}
		}
		data := writeRows(t, rows, rapid.IntRange(1, n).Draw(rt, "batch"))
		for _, fast := range []bool{true, false} {
			if got, _ := readRowsOf(t, data, fast); !slices.Equal(got, rows) {
				rt.Fatalf("fast reader %v: rows differ from those written", fast)
			}
		}
	})
}

// TestDeltasShrinkASteadyRun: at a steady rate the two columns cost
// nearly nothing, where stored as they are they took bytes a row.
func TestDeltasShrinkASteadyRun(t *testing.T) {
	rows := randomRows(3*BatchRows, 5) // slot i due at i × 0.5 ms
	deltas := writeRows(t, rows, BatchRows)
	absolute := writeRowsAs(t, rows, BatchRows, absoluteStreamChecksums)
	saved := float64(len(absolute)-len(deltas)) / float64(len(rows))
	if saved < 2 {
		t.Fatalf("deltas save %.2f bytes a row of a steady run (%d bytes against %d), want at least 2", saved, len(deltas), len(absolute))
	}
}

// TestFilesBeforeDeltasStillRead: files that store slot and scheduled_ns
// as they are (tressi before the deltas) read as before through both
// readers, every column and only some.
func TestFilesBeforeDeltasStillRead(t *testing.T) {
	rows := completionOrder(serviceRows())
	data := writeRowsAs(t, rows, 700, absoluteStreamChecksums)
	for _, fast := range []bool{true, false} {
		got, r := readRowsOf(t, data, fast)
		if len(r.Schema.FieldIndices(ColSlot)) != 1 || len(r.Schema.FieldIndices(ColSlotDelta)) != 0 {
			t.Fatalf("not a file of the layout before deltas: %v", fieldNames(r.Schema))
		}
		if !slices.Equal(got, rows) || r.Truncated != nil || r.Unchecked != 0 {
			t.Fatalf("fast reader %v: rows differ from those written (truncated %v, unchecked %d)", fast, r.Truncated, r.Unchecked)
		}
		got, _ = readRowsOf(t, data, fast, ColScheduled)
		for i, want := range rows {
			if got[i].Scheduled != want.Scheduled {
				t.Fatalf("fast reader %v, Only(scheduled_ns): row %d read %d, wrote %d", fast, i, got[i].Scheduled, want.Scheduled)
			}
		}
	}
}
