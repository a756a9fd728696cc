package results

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var testMeta = Meta{
	Version: "test", RunID: "run-1", StartUnixNs: 1700000000000000000, ScheduleHash: "abc",
	Seed: 42, Shard: Shard{Index: 1, Count: 4}, PlanName: "p", Slots: 20000,
	Expect:    map[string][]int{"home": {200}},
	Scenarios: map[string][]string{"s": {"s.login"}},
}

func randomRows(n int, seed uint64) []Row {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := make([]Row, n)
	for i := range rows {
		due := int64(i) * 500_000
		lag, svc := int64(rng.IntN(20_000)), int64(rng.IntN(5_000_000))
		rows[i] = Row{
			Slot: uint64(i), Scheduled: due, Sent: due + lag,
			Latency: lag + svc, Service: svc, BytesOut: 80, BytesIn: uint32(rng.IntN(2000)),
			Status: 200, Endpoint: uint16(i % 3), Error: ErrorKind(rng.IntN(int(numErrorKinds))),
		}
	}
	return rows
}

func writeRows(t testing.TB, rows []Row, batch int) []byte {
	t.Helper()
	return writeRowsAs(t, rows, batch, streamChecksums)
}

// writeRowsAs writes rows in batches of batch with the checksums of
// format (current, or an older tressi's).
func writeRowsAs(t testing.TB, rows []Row, batch int, format checksumFormat) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := newWriter(&buf, testMeta, []string{"home", "create", "s.login"}, format)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += batch {
		if err := w.Write(rows[i:min(i+batch, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readRows reads everything back into Rows, mapping names to the writer's indices.
func readRows(t testing.TB, r *Reader) []Row {
	t.Helper()
	var out []Row
	for {
		b, ok := r.Next()
		if !ok {
			break
		}
		out = append(out, batchRows(t, b)...)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// batchRows is a batch's rows, its names mapped to the writer's indices.
func batchRows(t testing.TB, b *Batch) []Row {
	names := map[string]uint16{"home": 0, "create": 1, "s.login": 2}
	out := make([]Row, 0, b.Len)
	for i := 0; i < b.Len; i++ {
		kind, ok := ParseErrorKind(b.ErrorNames[b.Error[i]])
		if !ok {
			t.Errorf("unknown error word %q", b.ErrorNames[b.Error[i]])
		}
		out = append(out, Row{
			Slot: b.Slot[i], Scheduled: b.Scheduled[i], Sent: b.Sent[i], Latency: b.Latency[i],
			Service: b.Service[i], BytesOut: b.BytesOut[i], BytesIn: b.BytesIn[i], Status: b.Status[i],
			Endpoint: names[b.EndpointNames[b.Endpoint[i]]], Error: kind,
		})
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rows, batch int
	}{{"empty", 0, 10}, {"one", 1, 10}, {"partial batch", 25, 10}, {"many batches", 10000, 1000}} {
		t.Run(tc.name, func(t *testing.T) {
			rows := randomRows(tc.rows, 7)
			r, err := NewReader(bytes.NewReader(writeRows(t, rows, tc.batch)))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := readRows(t, r)
			if len(got) != len(rows) || (len(rows) > 0 && !reflect.DeepEqual(got, rows)) {
				t.Fatalf("read %d rows back, wrote %d (or they differ)", len(got), len(rows))
			}
			if r.Truncated != nil {
				t.Fatalf("complete file reported truncated: %v", r.Truncated)
			}
			if !reflect.DeepEqual(r.Meta, testMeta) {
				t.Fatalf("meta = %+v, want %+v", r.Meta, testMeta)
			}
		})
	}
}

// A writer killed mid-batch leaves a cut-off tail: every complete batch before
// it must still be read, and the cut reported, never the whole file rejected.
func TestTruncatedReadsCompleteBatches(t *testing.T) {
	rows := randomRows(5000, 3)
	data := writeRows(t, rows, 1000)
	full := len(readAll(t, data))
	if full != 5000 {
		t.Fatalf("full read %d rows", full)
	}
	prev := 5000
	for cut := len(data) - 1; cut > 0; cut -= len(data) / 37 {
		r, err := NewReader(bytes.NewReader(data[:cut]))
		if err != nil {
			// Only a cut inside the schema message may fail to open.
			if cut > 2000 {
				t.Fatalf("cut at %d of %d: %v", cut, len(data), err)
			}
			continue
		}
		got := readRows(t, r)
		r.Close()
		if len(got)%1000 != 0 || len(got) > prev {
			t.Fatalf("cut at %d: %d rows, want whole batches, non-increasing", cut, len(got))
		}
		if len(got) > 0 && !reflect.DeepEqual(got, rows[:len(got)]) {
			t.Fatalf("cut at %d: rows differ", cut)
		}
		prev = len(got)
	}
}

func readAll(t *testing.T, data []byte) []Row {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return readRows(t, r)
}

// Files from other writers: the IPC file format, int32 dictionary indices
// (pyarrow's default), and no compression.
func TestReadsOtherWriters(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	md := testMeta.metadata()
	strDict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: ColSlot, Type: arrow.PrimitiveTypes.Uint64},
		{Name: ColEndpoint, Type: strDict},
		{Name: ColScheduled, Type: arrow.PrimitiveTypes.Int64},
		{Name: ColSent, Type: arrow.PrimitiveTypes.Int64},
		{Name: ColLatency, Type: arrow.PrimitiveTypes.Int64},
		{Name: ColService, Type: arrow.PrimitiveTypes.Int64},
		{Name: ColStatus, Type: arrow.PrimitiveTypes.Uint16},
		{Name: ColError, Type: arrow.BinaryTypes.String},
		{Name: ColBytesOut, Type: arrow.PrimitiveTypes.Uint32},
		{Name: ColBytesIn, Type: arrow.PrimitiveTypes.Uint32},
	}, &md)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Uint64Builder).AppendValues([]uint64{0, 1}, nil)
	db := b.Field(1).(*array.BinaryDictionaryBuilder)
	db.AppendString("home")
	db.AppendString("create")
	for i := 2; i <= 5; i++ {
		b.Field(i).(*array.Int64Builder).AppendValues([]int64{10, 20}, nil)
	}
	b.Field(6).(*array.Uint16Builder).AppendValues([]uint16{200, 0}, nil)
	b.Field(7).(*array.StringBuilder).AppendValues([]string{"", "timeout"}, nil)
	b.Field(8).(*array.Uint32Builder).AppendValues([]uint32{1, 2}, nil)
	b.Field(9).(*array.Uint32Builder).AppendValues([]uint32{3, 4}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	var buf bytes.Buffer
	fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"file": buf.Bytes(), "file without footer": buf.Bytes()[:buf.Len()-10]} {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bt, ok := r.Next()
		if !ok {
			t.Fatalf("%s: no batch (err %v, truncated %v)", name, r.Err(), r.Truncated)
		}
		if bt.EndpointNames[bt.Endpoint[1]] != "create" || bt.ErrorNames[bt.Error[1]] != "timeout" || bt.Status[0] != 200 {
			t.Fatalf("%s: got endpoints %v/%v errors %v/%v", name, bt.EndpointNames, bt.Endpoint, bt.ErrorNames, bt.Error)
		}
		r.Close()
	}
}

func TestMissingColumnIsExplained(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	w.Close()
	_, err := NewReader(&buf)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`"slot" is missing`)) {
		t.Fatalf("err = %v", err)
	}
}

func TestSamplesRoundTrip(t *testing.T) {
	in := []Sample{{Endpoint: "home", Status: 200, Headers: "Content-Type: text/plain\r\n", Body: []byte("ok"), BodySize: 2},
		{Endpoint: "home", Status: 0, Error: "timeout"}}
	var buf bytes.Buffer
	if err := WriteSamples(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadSamples(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Endpoint != "home" || string(out[0].Body) != "ok" || out[1].Error != "timeout" {
		t.Fatalf("got %+v", out)
	}
}

func TestParseShard(t *testing.T) {
	for in, ok := range map[string]bool{"0/1": true, "3/4": true, "4/4": false, "-1/2": false, "a": false, "1/0": false} {
		_, err := ParseShard(in)
		if (err == nil) != ok {
			t.Errorf("ParseShard(%q) err = %v", in, err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	rows := randomRows(BatchRows, 1)
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testMeta, []string{"a", "b", "c"})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if err := w.Write(rows); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/float64(len(rows)), "bytes/row")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
}

// BenchmarkWriteRealistic writes rows shaped like a steady open-model run
// (sequential slots, 50 µs apart, ~100 µs latencies) in batches of the
// sizes the recorder uses: the cost and size per row of a batch size.
func BenchmarkWriteRealistic(b *testing.B) {
	for _, n := range []int{1 << 10, 4 << 10, 8 << 10, 32 << 10} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			rows := make([]Row, n)
			for k := range rows {
				due := int64(k) * 50_000
				lat := 80_000 + rng.Int64N(60_000)
				sent := due + rng.Int64N(300_000)
				rows[k] = Row{Slot: uint64(k), Scheduled: due, Sent: sent, Latency: sent - due + lat, Service: lat,
					Status: 200, BytesOut: 40, BytesIn: 150}
			}
			var buf bytes.Buffer
			w, _ := NewWriter(&buf, testMeta, []string{"a"})
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				buf.Reset()
				if err := w.Write(rows); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len())/float64(len(rows)), "bytes/row")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
		})
	}
}
