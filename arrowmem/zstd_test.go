package arrowmem

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A stream of a few KB is stored as it is and one from ZstdFrom on is
// compressed, and both read back the same.
func TestZstdFrom(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.BinaryTypes.Binary}}, nil)
	for _, tc := range []struct {
		size       int
		compressed bool
	}{{0, false}, {4 << 10, false}, {ZstdFrom - 1, false}, {ZstdFrom, true}, {1 << 20, true}} {
		value := bytes.Repeat([]byte("tressi "), tc.size/7+1)[:tc.size]
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		b.Field(0).(*array.BinaryBuilder).Append(value)
		rec := b.NewRecordBatch()
		b.Release()
		if got, want := RecordBytes(rec), 1+8+tc.size; got != want { // validity bitmap, two int32 offsets, the bytes
			t.Errorf("size %d: RecordBytes %d, want %d", tc.size, got, want)
		}
		var buf bytes.Buffer
		w := ipc.NewWriter(&buf, append(Zstd(tc.size), ipc.WithSchema(schema))...)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if got := buf.Len() < tc.size; got != tc.compressed {
			t.Errorf("size %d: a %d-byte stream; want compressed %v", tc.size, buf.Len(), tc.compressed)
		}
		r, err := ipc.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatalf("size %d: no batch: %v", tc.size, r.Err())
		}
		if got := r.RecordBatch().Column(0).(*array.Binary).Value(0); !bytes.Equal(got, value) {
			t.Errorf("size %d: read back %d bytes, not the %d written", tc.size, len(got), len(value))
		}
		r.Release()
	}
}
