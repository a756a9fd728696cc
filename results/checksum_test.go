package results

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// readBack reads every row of data; damaged says the reader refused some
// of it (an error, a cut-off tail, a checksum that failed).
func readBack(data []byte) (rows []Row, hash string, damaged bool) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, "", true
	}
	defer r.Close()
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		for i := 0; i < b.Len; i++ {
			ep, ok := map[string]uint16{"home": 0, "create": 1, "s.login": 2}[b.EndpointNames[b.Endpoint[i]]]
			if !ok {
				ep = 999 // a renamed endpoint is a different row
			}
			kind := ErrorKind(255)
			for k, n := range ErrorNames {
				if n == b.ErrorNames[b.Error[i]] {
					kind = ErrorKind(k)
				}
			}
			var connect int64
			if b.Connect != nil {
				connect = b.Connect[i]
			}
			rows = append(rows, Row{Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i], Latency: b.Latency[i],
				Service: b.Service[i], BytesOut: b.BytesOut[i], BytesIn: b.BytesIn[i], Status: b.Status[i],
				Endpoint: ep, Error: kind, Connect: connect})
		}
	}
	return rows, r.Meta.ScheduleHash, r.Err() != nil || r.Truncated != nil
}

// TestFlippedByteNeverChangesRowsSilently flips every byte of a results
// file in turn: each read either refuses the file (or its tail) or gives
// back exactly the rows written, never other numbers.
func TestFlippedByteNeverChangesRowsSilently(t *testing.T) {
	rows := randomRows(300, 5)
	data := writeRows(t, rows, 100)
	want, hash, damaged := readBack(data)
	if damaged || !slices.Equal(want, rows) || hash == "" {
		t.Fatalf("clean file: damaged=%v, %d rows of %d, hash %q", damaged, len(want), len(rows), hash)
	}
	silent := 0
	stride := 1
	if raceEnabled {
		stride = 5 // every fifth byte: the race detector makes each read slow
	}
	for i := 0; i < len(data); i += stride {
		bad := bytes.Clone(data)
		bad[i] ^= 0x04
		got, gotHash, damaged := readBack(bad)
		if damaged {
			continue
		}
		if gotHash != hash {
			t.Errorf("flip at byte %d of %d: schedule hash %q read as %q without complaint", i, len(data), hash, gotHash)
		}
		if !slices.Equal(got, rows) {
			silent++
			t.Errorf("flip at byte %d of %d: %d rows read back different without complaint", i, len(data), len(got))
		}
	}
	if silent > 0 {
		t.Fatalf("%d of %d flips changed rows silently", silent, len(data))
	}
}

// TestOldFilesWithoutChecksumsStillRead: a batch without checksum metadata
// (tressi before checksums, another writer) reads, and is counted.
func TestOldFilesWithoutChecksumsStillRead(t *testing.T) {
	rows := randomRows(300, 9)
	data := writeRowsWithoutChecksums(t, rows, 100)
	got, _, damaged := readBack(data)
	if damaged || !slices.Equal(got, rows) {
		t.Fatalf("damaged=%v, %d rows of %d", damaged, len(got), len(rows))
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, ok := r.Next(); ok; _, ok = r.Next() {
	}
	if r.Unchecked != 3 {
		t.Fatalf("Unchecked = %d, want 3 batches", r.Unchecked)
	}
}

func writeRowsWithoutChecksums(t *testing.T, rows []Row, batch int) []byte {
	t.Helper()
	return writeRowsAs(t, rows, batch, noChecksums)
}

// TestArrowPathChecksBatchesToo: a tressi file read through arrow-go (as
// one whose schema was changed is) has its checksums checked too.
func TestArrowPathChecksBatchesToo(t *testing.T) {
	fastReader = false
	defer func() { fastReader = true }()
	rows := randomRows(300, 3)
	data := writeRows(t, rows, 100)
	got, _, damaged := readBack(data)
	if damaged || !slices.Equal(got, rows) {
		t.Fatalf("clean file through arrow-go: damaged %v, %d rows", damaged, len(got))
	}
	caught := 0
	for i := len(data) / 3; i < len(data); i += 7 {
		bad := bytes.Clone(data)
		bad[i] ^= 0x04
		got, _, damaged := readBack(bad)
		if damaged {
			caught++
			continue
		}
		if !slices.Equal(got, rows) {
			t.Fatalf("flip at %d: rows changed silently through arrow-go", i)
		}
	}
	if caught == 0 {
		t.Fatal("no flip was caught through arrow-go")
	}
}

// TestLargeSchemaTakesTheFastReader: a plan of many endpoints makes a
// schema larger than the reader's 64 KiB buffer; the fast reader still
// takes the file (it once peeked at the schema through that buffer and
// left such files to arrow-go), and reads it checked.
func TestLargeSchemaTakesTheFastReader(t *testing.T) {
	m := testMeta
	m.Expect = map[string][]int{}
	names := []string{"home", "create", "s.login"}
	for i := range 5000 {
		name := fmt.Sprintf("endpoint-with-a-long-name-%05d", i)
		m.Expect[name] = []int{200, 201, 204}
		names = append(names, name)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, m, names)
	if err != nil {
		t.Fatal(err)
	}
	rows := randomRows(300, 12)
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.fastFrom == nil {
		t.Fatal("a file with a large schema is not read by the fast reader")
	}
	n := 0
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		n += b.Len
	}
	if n != len(rows) || r.Err() != nil || r.Truncated != nil || r.Unchecked != 0 {
		t.Fatalf("%d rows of %d, err %v, truncated %v, unchecked %d", n, len(rows), r.Err(), r.Truncated, r.Unchecked)
	}
}

// TestTressiFilesTakeTheFastReader: what the writer writes (connect_ns
// included) is read by the fast reader, connect column and all.
func TestTressiFilesTakeTheFastReader(t *testing.T) {
	rows := randomRows(250, 4)
	for i := range rows {
		rows[i].Connect = int64(i) * 1000
	}
	r, err := NewReader(bytes.NewReader(writeRows(t, rows, 100)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.fastFrom == nil {
		t.Fatal("a file tressi wrote is not read by the fast reader")
	}
	n := 0
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		for i := 0; i < b.Len; i++ {
			if b.Connect[i] != rows[n].Connect {
				t.Fatalf("row %d: connect %d, wrote %d", n, b.Connect[i], rows[n].Connect)
			}
			n++
		}
	}
	if n != len(rows) || r.Truncated != nil || r.Err() != nil || r.Unchecked != 0 {
		t.Fatalf("%d rows of %d, truncated %v, err %v, unchecked %d", n, len(rows), r.Truncated, r.Err(), r.Unchecked)
	}
}
