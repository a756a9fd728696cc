package results

import (
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tressi/tressi/arrowmem"
)

// BatchRows is the number of rows the executor gathers before handing a
// batch to the writer: far below any reader's message size limit.
const BatchRows = 64 << 10

// Writer writes result rows as an Arrow IPC stream of zstd-compressed record
// batches. The stream format needs no footer, so every batch written before a
// crash stays readable. A Writer belongs to one goroutine.
type Writer struct {
	w         *ipc.Writer
	schema    *arrow.Schema
	endpoints *array.String
	errs      *array.String
	mem       memory.Allocator

	// hash, names and seq feed each batch's checksum (checksum.go).
	hash          string
	endpointNames []string
	seq           uint64
	// format is what the batches carry: the stream checksum, or (tests)
	// what older tressi versions wrote.
	format checksumFormat
	// ids are the columns the file stores, in schema order; storesService
	// says service_ns is among them (files of older versions). codecs are
	// their zstd encodings, in the same order.
	ids           []int
	codecs        []columnCodec
	storesService bool
	// deltas says slot and scheduled_ns are stored as deltas (deltaNames);
	// prevSlot and prevScheduled are the last row's, which the next
	// batch's first delta is taken from.
	deltas        bool
	prevSlot      uint64
	prevScheduled int64
	// out and enc write the batches after the first (batchwrite.go);
	// arrow-go writes the schema, the dictionaries and the first batch,
	// through sums, which keeps their CRC-32C for the stream checksum of
	// the next batch enc writes.
	out  io.Writer
	sums *summingWriter
	enc  *batchEncoder
	// dataBatches counts the batches enc wrote.
	dataBatches int
	// pause runs between the pieces of a batch's work (SetPause); nil: never.
	pause func()

	// Column scratch reused across batches: Write builds arrays over these
	// slices without copying, and the IPC writer is done with them on return.
	slot                              []uint64
	scheduled, sent, latency, service []int64
	connect                           []int64
	status, endpoint                  []uint16
	errKind                           []uint8
	bytesOut, bytesIn                 []uint32
}

// checksumFormat is which checksums a writer puts in its batches; all but
// the current one are for tests of how files of older versions read.
type checksumFormat int

const (
	streamChecksums checksumFormat = iota
	// bodyChecksums: the content and body checksums (bodySum), as tressi
	// wrote before the stream checksum.
	bodyChecksums
	// contentChecksums: the content checksum alone, batches through
	// arrow-go, as tressi wrote before the body checksum.
	contentChecksums
	// noChecksums: batches as tressi wrote before checksums.
	noChecksums
	// serviceStreamChecksums: stream checksums, with service_ns stored,
	// as tressi wrote before it derived service_ns.
	serviceStreamChecksums
	// absoluteStreamChecksums: stream checksums, service_ns derived, slot
	// and scheduled_ns stored as they are, as tressi wrote before it
	// stored them as deltas.
	absoluteStreamChecksums
)

// streamed says the format's batches carry stream checksums.
func (f checksumFormat) streamed() bool {
	return f == streamChecksums || f == serviceStreamChecksums || f == absoluteStreamChecksums
}

// ownBatches says the writer encodes the format's row batches itself
// (batchwrite.go) rather than through arrow-go.
func (f checksumFormat) ownBatches() bool { return f.streamed() || f == bodyChecksums }

// NewWriter starts a results stream on w. endpoints are the names that
// Row.Endpoint indexes.
func NewWriter(w io.Writer, m Meta, endpoints []string) (*Writer, error) {
	return newWriter(w, m, endpoints, streamChecksums)
}

func newWriter(w io.Writer, m Meta, endpoints []string, format checksumFormat) (*Writer, error) {
	if len(endpoints) > 1<<16 {
		return nil, fmt.Errorf("results: %d endpoints, at most 65536 fit the endpoint column", len(endpoints))
	}
	var mem memory.Allocator = new(arrowmem.Recycler)
	ids := storedColumns
	if format != streamChecksums && format != absoluteStreamChecksums {
		ids = serviceColumns
	}
	deltas := format == streamChecksums
	codecs := make([]columnCodec, len(ids))
	for i, id := range ids {
		codecs[i] = columnCodecs[id]
		if deltas && deltaNames[id] != "" {
			codecs[i] = codecDeltas
		}
	}
	schema := schemaOf(m, ids, deltas)
	if format.streamed() {
		// The schema promises every batch after the first a stream
		// checksum, so a batch whose key was changed is not taken for
		// one of an older file.
		md := schema.Metadata()
		md = arrow.NewMetadata(append(md.Keys(), KeyChecksums), append(md.Values(), checksumsStream))
		schema = arrow.NewSchema(schema.Fields(), &md)
	}
	wr := &Writer{
		format:        format,
		ids:           ids,
		codecs:        codecs,
		deltas:        deltas,
		storesService: len(ids) == len(serviceColumns),
		schema:        schema,
		mem:           mem,
		endpoints:     stringArray(mem, endpoints),
		errs:          stringArray(mem, ErrorNames[:]),

		hash:          m.ScheduleHash,
		endpointNames: append([]string(nil), endpoints...),
		out:           w,
		sums:          &summingWriter{w: w},
		enc:           newBatchEncoder(),
	}
	wr.enc.bodySumOnly = format == bodyChecksums
	opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
	if !format.ownBatches() {
		// Only these formats write their rows through arrow-go. The others
		// give it the schema and two small dictionaries, not worth its
		// zstd encoder's start (arrowmem.ZstdFrom).
		opts = append(opts, ipc.WithZstd())
	}
	wr.w = ipc.NewWriter(wr.sums, opts...)
	// arrow-go writes the schema with the first batch; a run killed before
	// that batch (a second Ctrl-C, SIGKILL in the first second) would leave
	// an empty file no reader accepts. A batch of no rows puts the schema
	// and dictionaries out now, and tells at once if the disk refuses.
	if err := wr.write(nil); err != nil {
		return nil, err
	}
	return wr, nil
}

func stringArray(mem memory.Allocator, values []string) *array.String {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(values, nil)
	return b.NewStringArray()
}

// SetPause has the writer call pause between the pieces of a batch's work:
// every pauseRows rows it gathers into columns, and before each column's
// frame it compresses. A writer on a thread that must not hold its core
// (the recorder's, at idle priority) gives the core back there to whatever
// waits for it.
func (wr *Writer) SetPause(pause func()) { wr.pause, wr.enc.pause = pause, pause }

// pauseRows is how many rows fillColumns gathers between two pauses.
const pauseRows = 2 << 10

// Write appends rows as one record batch. Callers keep batches at most
// BatchRows long.
func (wr *Writer) Write(rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	return wr.write(rows)
}

func (wr *Writer) write(rows []Row) error {
	if err := wr.fillColumns(rows); err != nil {
		return err
	}
	n := len(rows)
	raw := wr.raw()
	sum := wr.contentSum(n, &raw)
	if rows != nil && wr.format.ownBatches() {
		cols := make([][]byte, len(wr.ids))
		for i, id := range wr.ids {
			cols[i] = raw[id]
		}
		return wr.writeChecked(n, cols, sum)
	}
	cols := make([]arrow.Array, len(wr.ids))
	for i, id := range wr.ids {
		cols[i] = wr.array(id, n, raw[id])
	}
	md := arrow.NewMetadata([]string{KeyBatchSeq, KeyBatchSum}, []string{strconv.FormatUint(wr.seq, 10), formatSum(sum)})
	if wr.format == noChecksums {
		md = arrow.Metadata{}
	}
	wr.seq++
	rec := array.NewRecordBatchWithMetadata(wr.schema, cols, int64(n), md)
	for _, c := range cols {
		c.Release()
	}
	err := wr.w.Write(rec)
	rec.Release()
	if err != nil {
		return fmt.Errorf("results: writing a batch of %d rows: %w", n, err)
	}
	return nil
}

// raw is the column scratch as little-endian bytes, by column id.
func (wr *Writer) raw() [numColumns][]byte {
	return [numColumns][]byte{asBytes(wr.slot), asBytes(wr.endpoint), asBytes(wr.scheduled), asBytes(wr.sent),
		asBytes(wr.latency), asBytes(wr.service), asBytes(wr.status), asBytes(wr.errKind),
		asBytes(wr.bytesOut), asBytes(wr.bytesIn), asBytes(wr.connect)}
}

// contentSum is the content checksum (batchSum) of the columns the file
// stores: a derived service_ns is not among them.
func (wr *Writer) contentSum(n int, raw *[numColumns][]byte) uint32 {
	var cols [10][]byte
	copy(cols[:], raw[:10])
	if !wr.storesService {
		cols[colService] = nil
	}
	return batchSum(wr.hash, wr.seq, n, &cols, wr.endpointNames, ErrorNames[:], raw[colConnect])
}

// array wraps column id's values as the Arrow array of its type.
func (wr *Writer) array(id, n int, values []byte) arrow.Array {
	switch id {
	case colEndpoint:
		return dictionary(endpointType, arrow.PrimitiveTypes.Uint16, n, wr.endpoint, wr.endpoints)
	case colError:
		return dictionary(errorType, arrow.PrimitiveTypes.Uint8, n, wr.errKind, wr.errs)
	}
	buf := memory.NewBufferBytes(values)
	data := array.NewData(storedType(id, wr.deltas && deltaNames[id] != ""), n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// writeChecked writes a batch through the batch encoder, its stream
// checksum covering what arrow-go wrote since the last one.
func (wr *Writer) writeChecked(n int, cols [][]byte, sum uint32) error {
	err := wr.enc.write(wr.out, wr.sums.crc, wr.hash, wr.seq, n, wr.codecs, cols, sum, [2][]string{wr.endpointNames, ErrorNames[:]})
	wr.sums.crc = 0
	wr.seq++
	wr.dataBatches++
	if err != nil {
		return fmt.Errorf("results: writing a batch of %d rows: %w", n, err)
	}
	return nil
}

// summingWriter keeps the CRC-32C of what passes through it.
type summingWriter struct {
	w   io.Writer
	crc uint32
}

func (s *summingWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.crc = crc32.Update(s.crc, castagnoli, p[:n])
	return n, err
}

func (wr *Writer) fillColumns(rows []Row) error {
	n := len(rows)
	wr.slot = grow(wr.slot, n)
	wr.scheduled = grow(wr.scheduled, n)
	wr.sent = grow(wr.sent, n)
	wr.latency = grow(wr.latency, n)
	wr.service = grow(wr.service, n)
	wr.status = grow(wr.status, n)
	wr.endpoint = grow(wr.endpoint, n)
	wr.errKind = grow(wr.errKind, n)
	wr.bytesOut = grow(wr.bytesOut, n)
	wr.bytesIn = grow(wr.bytesIn, n)
	wr.connect = grow(wr.connect, n)
	for i := range rows {
		if wr.pause != nil && i%pauseRows == pauseRows-1 {
			wr.pause()
		}
		r := &rows[i]
		wr.slot[i] = r.Slot
		wr.scheduled[i] = r.Scheduled
		if wr.deltas {
			wr.slot[i], wr.prevSlot = r.Slot-wr.prevSlot, r.Slot // wraps as int64 does: a slot before the last one is a negative delta
			wr.scheduled[i], wr.prevScheduled = r.Scheduled-wr.prevScheduled, r.Scheduled
		}
		wr.sent[i] = r.Sent
		wr.latency[i] = r.Latency
		wr.service[i] = r.Service
		wr.status[i] = r.Status
		wr.endpoint[i] = r.Endpoint
		wr.errKind[i] = uint8(r.Error)
		wr.bytesOut[i] = r.BytesOut
		wr.bytesIn[i] = r.BytesIn
		wr.connect[i] = r.Connect
		if !wr.storesService && r.Service != serviceOf(r.Scheduled, r.Sent, r.Latency) {
			return fmt.Errorf("results: slot %d has service_ns %d, but latency_ns %d − (sent_ns %d − scheduled_ns %d) is %d: "+
				"service_ns is not stored but derived, so a row must keep the two consistent",
				r.Slot, r.Service, r.Latency, r.Sent, r.Scheduled, serviceOf(r.Scheduled, r.Sent, r.Latency))
		}
	}
	return nil
}

// Close ends the stream (writing its end-of-stream marker) and releases the
// dictionaries. It does not close the underlying io.Writer.
func (wr *Writer) Close() error {
	if wr.dataBatches == 0 && wr.format == streamChecksums {
		// No rows were written: a batch of none still covers the schema
		// and dictionaries with its stream checksum.
		_ = wr.fillColumns(nil) // no rows: nothing to refuse
		raw := wr.raw()
		if err := wr.writeChecked(0, make([][]byte, len(wr.ids)), wr.contentSum(0, &raw)); err != nil {
			wr.w.Close()
			wr.endpoints.Release()
			wr.errs.Release()
			return err
		}
	}
	err := wr.w.Close()
	wr.endpoints.Release()
	wr.errs.Release()
	return err
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// primitive wraps a Go slice as an Arrow array without copying.
func primitive[T uint8 | uint16](dt arrow.DataType, n int, values []T) arrow.Array {
	buf := memory.NewBufferBytes(asBytes(values))
	data := array.NewData(dt, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

func dictionary[T uint8 | uint16](dt *arrow.DictionaryType, idx arrow.DataType, n int, indices []T, dict arrow.Array) arrow.Array {
	ix := primitive(idx, n, indices)
	defer ix.Release()
	return array.NewDictionaryArray(dt, ix, dict)
}

func asBytes[T uint8 | uint16 | uint32 | uint64 | int64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero)))
}
