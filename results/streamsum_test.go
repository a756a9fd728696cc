package results

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

// readsDamaged reads data whole (every column, as verify does) or only
// the latency column (as a report that needs nothing else would), and says
// whether the reader refused any of it.
func readsDamaged(data []byte, only bool) bool {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return true
	}
	defer r.Close()
	if only {
		if err := r.Only(ColLatency); err != nil {
			panic(err)
		}
	}
	for _, ok := r.Next(); ok; _, ok = r.Next() {
	}
	return r.Err() != nil || r.Truncated != nil
}

// messageAt names the IPC message byte i of a stream lies in, for failure
// messages: "message 4 (record batch), metadata byte 120 of 824".
func messageAt(data []byte, i int) string {
	pos, k := 0, 0
	for pos+8 <= len(data) {
		n := int(binary.LittleEndian.Uint32(data[pos+4:]))
		if n == 0 {
			return "the end-of-stream marker"
		}
		meta := data[pos+8 : pos+8+n]
		bodyLen, _ := messageBodyLen(meta)
		typ, _, _ := messageHeader(meta)
		kind := map[byte]string{headerSchema: "schema", headerDictionary: "dictionary", headerRecord: "record batch"}[typ]
		switch {
		case i < pos+8:
			return fmt.Sprintf("message %d (%s), length prefix", k, kind)
		case i < pos+8+n:
			return fmt.Sprintf("message %d (%s), metadata byte %d of %d", k, kind, i-pos-8, n)
		case i < pos+8+n+int(bodyLen):
			return fmt.Sprintf("message %d (%s), body byte %d of %d", k, kind, i-pos-8-n, bodyLen)
		}
		pos += 8 + n + int(bodyLen)
		k++
	}
	return "past the messages"
}

// TestEveryByteOfAFileIsCovered flips each byte of a results file in turn,
// one bit (the bit moves along with the byte, so every bit position is
// flipped across the file), and reads it whole, by one column and through
// arrow-go: every flip must be refused. Before the stream checksum, flips in the schema's
// metadata (run id, plan name, expected statuses), in dictionary and batch
// metadata and in the dictionaries' padding read back without a word.
func TestEveryByteOfAFileIsCovered(t *testing.T) {
	data := writeRows(t, randomRows(12, 7), 4)
	if readsDamaged(data, false) || readsDamaged(data, true) {
		t.Fatal("the clean file reads as damaged")
	}
	stride := 1
	if raceEnabled {
		stride = 7
	}
	missed := 0
	defer func() { fastReader = true }()
	for i := 0; i < len(data); i += stride {
		bad := bytes.Clone(data)
		bad[i] ^= 1 << (i % 8)
		// Whole, one column, and whole through arrow-go (which reads
		// files the fast reader does not take).
		for _, how := range []struct{ only, fast bool }{{false, true}, {true, true}, {false, false}} {
			fastReader = how.fast
			if !readsDamaged(bad, how.only) {
				missed++
				if missed <= 10 {
					t.Errorf("flip of bit %d at byte %d of %d (%s) read without complaint (only latency: %v, fast reader: %v)", i%8, i, len(data), messageAt(data, i), how.only, how.fast)
				}
			}
		}
	}
	if missed > 0 {
		t.Fatalf("%d flips were not noticed", missed)
	}
}

// TestStreamChecksumDigitsReadBackExactly: the checksum's own hex digits
// are compared as written, so one turned upper case (the same number) is
// a change like any other.
func TestStreamChecksumDigitsReadBackExactly(t *testing.T) {
	data := writeRows(t, randomRows(40, 8), 10)
	tried := 0
	for pos := 0; pos+8 <= len(data); {
		n := int(binary.LittleEndian.Uint32(data[pos+4:]))
		if n == 0 {
			break
		}
		meta := data[pos+8 : pos+8+n]
		bodyLen, _ := messageBodyLen(meta)
		at, size, ok, err := metadataValueAt(meta, KeyStreamSum)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; ok && j < size; j++ {
			c := meta[at+j]
			if c < 'a' || c > 'f' {
				continue
			}
			bad := bytes.Clone(data)
			bad[pos+8+at+j] = c - 'a' + 'A'
			tried++
			if !readsDamaged(bad, true) || !readsDamaged(bad, false) {
				t.Errorf("stream checksum %q with digit %d in upper case read without complaint", meta[at:at+size], j)
			}
		}
		pos += 8 + n + int(bodyLen)
	}
	if tried == 0 {
		t.Fatal("no stream checksum with a letter among its digits found")
	}
}

// TestFileWithoutRowsIsCovered: a file closed before any row (a run that
// sent nothing) still ends with a batch whose stream checksum covers its
// schema.
func TestFileWithoutRowsIsCovered(t *testing.T) {
	data := writeRows(t, nil, 1)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	batches, rows := 0, 0
	for b, ok := r.Next(); ok; b, ok = r.Next() {
		batches++
		rows += b.Len
	}
	r.Close()
	if r.Err() != nil || r.Truncated != nil || rows != 0 || r.Unchecked != 0 {
		t.Fatalf("clean empty file: %d rows in %d batches, err %v, truncated %v, unchecked %d", rows, batches, r.Err(), r.Truncated, r.Unchecked)
	}
	at := bytes.Index(data, []byte(testMeta.RunID))
	bad := bytes.Clone(data)
	bad[at] ^= 0x01
	if !readsDamaged(bad, false) {
		t.Fatal("a changed run id in the schema of a file without rows read without complaint")
	}
}

// TestArrowPathChecksStreamChecksums: read through arrow-go (the fast
// reader takes only tressi's exact schema; a changed schema may not be
// it), the stream checksums are checked over the bytes arrow-go read.
func TestArrowPathChecksStreamChecksums(t *testing.T) {
	fastReader = false
	defer func() { fastReader = true }()
	rows := randomRows(30, 9)
	data := writeRows(t, rows, 10)
	got, _, damaged := readBack(data)
	if damaged || !slices.Equal(got, rows) {
		t.Fatalf("clean file through arrow-go: damaged %v, %d rows", damaged, len(got))
	}
	for _, s := range []string{testMeta.RunID, `{"home":[200]}`, KeyStreamSum} {
		at := bytes.LastIndex(data, []byte(s)) + len(s) - 2
		bad := bytes.Clone(data)
		bad[at] ^= 0x01
		if !readsDamaged(bad, false) {
			t.Errorf("a flip in %q (%s) read through arrow-go without complaint", s, messageAt(data, at))
		}
	}
}

// TestBodyChecksumFilesStillRead: files of tressi before the stream
// checksum (content and body checksums) read, checked, and a flip in a
// column Only leaves out is still caught by their body checksum.
func TestBodyChecksumFilesStillRead(t *testing.T) {
	rows := randomRows(300, 10)
	data := writeRowsAs(t, rows, 100, bodyChecksums)
	if bytes.Contains(data, []byte(KeyStreamSum)) || bytes.Contains(data, []byte(KeyChecksums)) {
		t.Fatal("the older format was written with stream checksums")
	}
	got, r, damaged := readLatency(data)
	if damaged || !slices.Equal(got, latencies(rows)) || r.Unchecked != 0 {
		t.Fatalf("clean older file: damaged %v, %d latencies, %d unchecked", damaged, len(got), r.Unchecked)
	}
	offs := bodyOffsets(t, data)
	for _, off := range offs {
		bad := bytes.Clone(data)
		bad[off] ^= 0x10
		if !readsDamaged(bad, true) {
			t.Errorf("a flip in the slot column at %d of an older file read without complaint", off)
		}
	}
	if len(offs) != 3 {
		t.Fatalf("%d batches with rows, want 3", len(offs))
	}
}
