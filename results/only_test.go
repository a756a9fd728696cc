package results

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// readLatency reads the latency column alone (Only), as a report that
// needs nothing else would.
func readLatency(data []byte) (lat []int64, r *Reader, damaged bool) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, true
	}
	defer r.Close()
	if err := r.Only(ColLatency); err != nil {
		panic(err)
	}
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		lat = append(lat, b.Latency...)
	}
	return lat, r, r.Err() != nil || r.Truncated != nil
}

func latencies(rows []Row) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Latency
	}
	return out
}

// TestOnlyDecodesWhatItIsAsked: the other columns are left undecoded, the
// asked one reads back exactly.
func TestOnlyDecodesWhatItIsAsked(t *testing.T) {
	rows := randomRows(3000, 21)
	r, err := NewReader(bytes.NewReader(writeRows(t, rows, 1000)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Only(ColLatency, ColEndpoint); err != nil {
		t.Fatal(err)
	}
	var lat []int64
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		if b.Slot != nil || b.Sent != nil || b.Service != nil || b.BytesIn != nil || b.Connect != nil || len(b.Error) != 0 {
			t.Fatal("a column Only left out was decoded")
		}
		if len(b.Endpoint) != b.Len {
			t.Fatalf("%d endpoints in a batch of %d", len(b.Endpoint), b.Len)
		}
		lat = append(lat, b.Latency...)
	}
	if !slices.Equal(lat, latencies(rows)) || r.Err() != nil || r.Truncated != nil {
		t.Fatalf("latencies differ (%d of %d), err %v, truncated %v", len(lat), len(rows), r.Err(), r.Truncated)
	}
	if err := r.Only(ColSlot); err == nil {
		t.Fatal("Only after Next was accepted")
	}
}

func TestOnlyRefusesUnknownColumns(t *testing.T) {
	r, err := NewReader(bytes.NewReader(writeRows(t, randomRows(10, 1), 10)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Only("latency_ms"); err == nil {
		t.Fatal(`Only("latency_ms") was accepted`)
	}
}

// TestOnlyStillChecksEveryByte flips each byte of a file in turn and reads
// one column: a flip in a column that is not decoded is caught by the body
// checksum, and no flip changes the column read without a word.
func TestOnlyStillChecksEveryByte(t *testing.T) {
	rows := randomRows(300, 5)
	data := writeRows(t, rows, 100)
	want := latencies(rows)
	stride := 1
	if raceEnabled {
		stride = 5
	}
	for i := 0; i < len(data); i += stride {
		bad := bytes.Clone(data)
		bad[i] ^= 0x10
		got, _, damaged := readLatency(bad)
		if !damaged && !slices.Equal(got, want) {
			t.Fatalf("flip at byte %d of %d changed the latencies without complaint", i, len(data))
		}
	}
	// Every byte of every batch body is covered: flip one in the
	// middle of each body (a column other than latency among them).
	caught, bodies := 0, 0
	for _, off := range bodyOffsets(t, data) {
		bodies++
		bad := bytes.Clone(data)
		bad[off] ^= 0x10
		if _, _, damaged := readLatency(bad); damaged {
			caught++
		}
	}
	if bodies == 0 || caught != bodies {
		t.Fatalf("%d of %d flips inside batch bodies caught", caught, bodies)
	}
}

// bodyOffsets returns, for each record batch with rows, the file offset of
// its slot column (first buffer with bytes), which Only(latency) skips.
func bodyOffsets(t *testing.T, data []byte) []int {
	t.Helper()
	var out []int
	pos := 0
	for pos+8 <= len(data) {
		n := int(uint32(data[pos+4]) | uint32(data[pos+5])<<8 | uint32(data[pos+6])<<16 | uint32(data[pos+7])<<24)
		if n == 0 {
			break
		}
		meta := data[pos+8 : pos+8+n]
		bodyLen, err := messageBodyLen(meta)
		if err != nil {
			t.Fatal(err)
		}
		typ, hdr, _ := messageHeader(meta)
		start := pos + 8 + n
		if typ == headerRecord {
			rb, err := readRecordBatch(hdr, int(bodyLen))
			if err != nil {
				t.Fatal(err)
			}
			if rb.length > 0 {
				out = append(out, start+int(rb.buffers[1].offset)+int(rb.buffers[1].length)/2)
			}
		}
		pos = start + int(bodyLen)
	}
	return out
}

// TestOnlyReadsOlderFilesWhole: batches from before the body checksum are
// decoded whole, so their content checksum still catches a flip in a
// column that was not asked for.
func TestOnlyReadsOlderFilesWhole(t *testing.T) {
	rows := randomRows(300, 6)
	data := writeRowsAs(t, rows, 100, contentChecksums)
	got, r, damaged := readLatency(data)
	if damaged || !slices.Equal(got, latencies(rows)) || r.Unchecked != 0 {
		t.Fatalf("clean older file: damaged %v, %d latencies, %d unchecked", damaged, len(got), r.Unchecked)
	}
	caught := 0
	offs := bodyOffsets(t, data)
	for _, off := range offs {
		bad := bytes.Clone(data)
		bad[off] ^= 0x10
		if _, _, damaged := readLatency(bad); damaged {
			caught++
		}
	}
	if len(offs) != 3 || caught != len(offs) {
		t.Fatalf("%d of %d flips in the slot column of older batches caught", caught, len(offs))
	}
}

// TestIncompressibleColumnStoredAsIs: a column no encoding shrinks is
// stored uncompressed (the IPC format's length -1) and reads back.
func TestIncompressibleColumnStoredAsIs(t *testing.T) {
	rows := randomRows(2000, 3)
	for i := range rows {
		rows[i].BytesIn = uint32(i) * 2654435761
	}
	data := writeRows(t, rows, 2000)
	got, _, damaged := readBack(data)
	if damaged || !slices.Equal(got, rows) {
		t.Fatalf("damaged %v, %d rows of %d", damaged, len(got), len(rows))
	}
	raw := map[int]bool{}
	pos := 0
	for pos+8 <= len(data) {
		n := int(binary.LittleEndian.Uint32(data[pos+4:]))
		if n == 0 {
			break
		}
		meta := data[pos+8 : pos+8+n]
		bodyLen, _ := messageBodyLen(meta)
		typ, hdr, _ := messageHeader(meta)
		body := data[pos+8+n : pos+8+n+int(bodyLen)]
		if typ == headerRecord {
			rb, _ := readRecordBatch(hdr, len(body))
			for i := 1; i < len(rb.buffers); i += 2 {
				b := rb.buffers[i]
				if b.length >= 8 && int64(binary.LittleEndian.Uint64(body[b.offset:])) == -1 {
					raw[i/2] = true
				}
			}
		}
		pos += 8 + n + int(bodyLen)
	}
	bytesIn := slices.Index(storedColumns, colBytesIn)
	if !raw[bytesIn] {
		t.Fatalf("fields %v stored uncompressed, want bytes_in (%d) among them", raw, bytesIn)
	}
}
