package arrowmem

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// Buffers come back zeroed and sized as asked, reused across sizes of one
// class, and never shared while held.
func TestRecycler(t *testing.T) {
	var r Recycler
	a := r.Allocate(100)
	if len(a) != 100 || cap(a) != 128 {
		t.Fatalf("len %d cap %d", len(a), cap(a))
	}
	for i := range a {
		a[i] = 0xff
	}
	r.Free(a)
	b := r.Allocate(120)
	if &b[0] != &a[0] {
		t.Fatal("a freed buffer of the same class was not reused")
	}
	for i, v := range b {
		if v != 0 {
			t.Fatalf("byte %d = %#x: reused memory must be zeroed", i, v)
		}
	}
	c := r.Allocate(120)
	if &c[0] == &b[0] {
		t.Fatal("one buffer handed out twice")
	}
	d := r.Reallocate(300, c)
	if len(d) != 300 || d[299] != 0 {
		t.Fatalf("reallocate: len %d", len(d))
	}
	r.Free(make([]byte, 100)) // not a power of two: ignored
	if len(r.Allocate(0)) != 0 {
		t.Fatal("zero-size allocation")
	}
}

// An IPC stream written through the recycler reads back the same, batch
// after batch, while allocating only a little per batch.
func TestRecyclerWithIPCWriter(t *testing.T) {
	mem := new(Recycler)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithZstd(), ipc.WithAllocator(mem))
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for batch := range 20 {
		for i := range 5000 {
			b.Field(0).(*array.Int64Builder).Append(int64(batch*5000 + i))
		}
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := ipc.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	want := int64(0)
	for rd.Next() {
		col := rd.RecordBatch().Column(0).(*array.Int64)
		for i := range col.Len() {
			if col.Value(i) != want {
				t.Fatalf("value %d = %d", want, col.Value(i))
			}
			want++
		}
	}
	if want != 100000 {
		t.Fatalf("read %d values", want)
	}
}
