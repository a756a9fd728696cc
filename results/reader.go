package results

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/tressi/tressi/ipcguard"
)

// Batch is a read-only view of one record batch's columns, valid until the
// next call to Reader.Next. Dictionary columns come as per-batch indices into
// name slices, whatever index type the writer chose.
type Batch struct {
	Len int
	// Row is the number of rows the reader handed out before this batch:
	// its first row's index in the file.
	Row       int64
	Slot      []uint64
	Scheduled []int64
	Sent      []int64
	Latency   []int64
	Service   []int64
	Status    []uint16
	BytesOut  []uint32
	BytesIn   []uint32
	// Connect is nil for files written before the connect_ns column:
	// read it as all zeros.
	Connect []int64

	Endpoint      []int32 // index into EndpointNames
	EndpointNames []string
	Error         []int32 // index into ErrorNames
	ErrorNames    []string

	// Checked says the batch carried a checksum and matched it.
	Checked bool
}

// Reader reads results written by any Arrow implementation that follows the
// contract, in the IPC stream or file format, compressed or not. A file cut
// short (a killed writer) is read up to its last complete batch; Truncated
// then says so.
type Reader struct {
	Meta   Meta
	Schema *arrow.Schema
	// Truncated is set once Next has hit a damaged or cut-off tail.
	Truncated error
	// Unchecked counts the batches read that carried no checksum (written
	// by an older tressi or another Arrow writer): damage inside them
	// cannot be told from data.
	Unchecked int

	rd   *ipc.Reader
	fast *fastStream // set when the columns have tressi's own types
	// fastFrom holds what starts fast at the first Next: the stream after
	// the schema and its layout; nil when arrow-go reads the batches.
	fastFrom *fastStart
	want     [numColumns]bool // the columns Next decodes (Only), by column id
	only     bool             // Only was called
	started  bool
	seq      uint64 // batches read through rd
	// skippedFirst: the writer's empty first batch was passed over.
	skippedFirst bool
	handed       int   // batches handed out by the fast reader
	rows         int64 // rows handed out
	close        func() error
	// guard hands arrow-go the messages after the schema, checked; nil
	// when the fast reader reads them.
	guard *messageGuard
	// streamed says the schema promises stream checksums (KeyChecksums).
	streamed bool
	batch    Batch
	// pos is each column's field index (by column id), -1 for the
	// optional ones a file lacks: connect_ns (older files), service_ns
	// (newer files: derived).
	pos [numColumns]int
	// delta says which columns the file stores as deltas (deltaNames);
	// last holds, for each, the previous batch's last value.
	delta [numColumns]bool
	last  runningSums
	// service is the scratch of a derived service_ns (arrow-go's path),
	// slot and scheduled those of the running sums.
	service, scheduled []int64
	slot               []uint64
	err                error
}

// runningSums are the last values of the columns stored as deltas.
type runningSums struct {
	slot      uint64
	scheduled int64
}

// add turns a batch's deltas into values, continuing from the batch
// before. Slot and Scheduled are the columns' values as stored, which
// it overwrites.
func (s *runningSums) add(b *Batch, delta *[numColumns]bool) {
	if delta[colSlot] && b.Slot != nil {
		runningSum(b.Slot, &s.slot)
	}
	if delta[colScheduled] && b.Scheduled != nil {
		runningSum(b.Scheduled, &s.scheduled)
	}
}

// Open opens a results file.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.close = f.Close
	return r, nil
}

// fileMagic starts (and ends) the IPC file format; the stream format has none.
var fileMagic = []byte("ARROW1")

// NewReader reads results from r, sniffing the file format by its magic.
// The file format's body is a stream, so it is read as one and needs no
// footer: a file whose writer died before Close is still readable.
func NewReader(r io.Reader) (res *Reader, err error) {
	defer ipcguard.Recover(&err)
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(8)
	if bytes.HasPrefix(head, fileMagic) {
		if _, err := br.Discard(8); err != nil { // magic plus padding
			return nil, err
		}
	}
	schema, _, err := ipcguard.StreamSchema(br)
	if err != nil {
		return nil, fmt.Errorf("not an Arrow IPC results file: %w", err)
	}
	var layout *schemaLayout
	if l, err := readSchemaLayout(schemaMeta(schema)); err == nil {
		layout = &l
	}
	// arrow-go reads the schema again, then the messages the guard let
	// through, if the fast reader does not take the file.
	guard := &messageGuard{br: br, pending: crc32.Checksum(schema, castagnoli)}
	rd, err := ipc.NewReader(io.MultiReader(bytes.NewReader(schema), guard), ipc.WithAllocator(ipcguard.Allocator))
	if err != nil {
		return nil, fmt.Errorf("not an Arrow IPC results file: %w", err)
	}
	res = &Reader{rd: rd, Schema: rd.Schema(), guard: guard}
	if res.Meta, err = metaFrom(rd.Schema().Metadata()); err != nil {
		rd.Release()
		return nil, err
	}
	if i := rd.Schema().Metadata().FindKey(KeyChecksums); i >= 0 {
		res.streamed = rd.Schema().Metadata().Values()[i] == checksumsStream
	}
	if err := res.bindColumns(); err != nil {
		rd.Release()
		return nil, err
	}
	res.want = allColumns
	if layout != nil && fastReader && res.fastEligible(*layout) {
		// arrow-go has read exactly the schema message; the batches
		// follow in br. The decoders start at the first Next, so a reader
		// opened for its metadata alone reads nothing more.
		res.fastFrom = &fastStart{br: br, layout: *layout, pending: guard.pending}
		res.guard = nil
	}
	return res, nil
}

// fastEligible says whether the fast reader takes the file.
func (r *Reader) fastEligible(layout schemaLayout) bool {
	pos, delta, ok := fastEligible(r.Schema, layout)
	return ok && pos == r.pos && delta == r.delta
}

type fastStart struct {
	br     *bufio.Reader
	layout schemaLayout
	// pending is the CRC-32C of the schema message, which the first
	// batch's stream checksum covers.
	pending uint32
}

// schemaMeta is the flatbuffer of a framed schema message.
func schemaMeta(framed []byte) []byte {
	if binary.LittleEndian.Uint32(framed) == 0xFFFFFFFF {
		return framed[8:]
	}
	return framed[4:]
}

// Only limits the columns Next decodes to cols (the contract's column
// names, and ColConnect): a report that reads five columns need not
// decompress eleven. Batches tressi writes carry a checksum of the bytes
// as stored (KeyStreamSum; KeyBodySum in older files), so every byte of
// them is still checked; a batch without one (an older tressi, another
// writer) is decoded whole to check its content checksum. Batch fields of
// columns left out may be nil. Only must come before the first Next. A reader without Only (as
// verify's) checks the content checksum of every batch too, which proves
// the decoded values themselves.
func (r *Reader) Only(cols ...string) error {
	if r.started {
		return fmt.Errorf("results: Only after Next")
	}
	var want [numColumns]bool
	for _, c := range cols {
		id := slices.Index(columnNames[:], c)
		if id < 0 {
			return fmt.Errorf("results: no column %q", c)
		}
		want[id] = true
	}
	if want[colService] && r.pos[colService] < 0 {
		// Derived from these.
		want[colScheduled], want[colSent], want[colLatency] = true, true, true
	}
	r.want, r.only = want, true
	return nil
}

// contractColumns are the columns of the contract, by column id:
// connect_ns is optional beyond them (older files lack it).
var contractColumns = [10]string(columnNames[:10])

func (r *Reader) bindColumns() error {
	for id, name := range columnNames {
		idx := r.Schema.FieldIndices(name)
		r.pos[id] = -1
		if len(idx) == 0 && deltaNames[id] != "" {
			idx = r.Schema.FieldIndices(deltaNames[id])
			r.delta[id] = len(idx) > 0
		}
		switch {
		case len(idx) > 0:
			r.pos[id] = idx[0]
		case id != colService && id != colConnect:
			return fmt.Errorf("results column %q is missing (found %v); is this a tressi results file?", name, fieldNames(r.Schema))
		}
	}
	return nil
}

func fieldNames(s *arrow.Schema) []string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return names
}

// Next advances to the next batch; false at the end or on error (see Err
// and Truncated).
func (r *Reader) Next() (b *Batch, ok bool) {
	if r.err != nil || r.Truncated != nil {
		return nil, false
	}
	r.start()
	if r.fast != nil {
		return r.nextFast()
	}
	defer r.recoverBatch(&b, &ok)
	// The writer's first batch, which puts the schema out at once, has no
	// rows and is skipped (it still holds sequence number 0). Any later
	// batch is checked, rows or not: a damaged row count must not make a
	// batch vanish.
	for {
		if !r.rd.Next() {
			if err := r.rd.Err(); err != nil && !errors.Is(err, io.EOF) {
				r.Truncated = fmt.Errorf("results cut short after the last complete batch: %w", err)
			} else if err := r.guard.rest(); err != nil {
				r.Truncated = fmt.Errorf("results damaged after the last complete batch: %w", err)
			}
			return nil, false
		}
		if r.rd.RecordBatch().NumRows() > 0 || r.seq > 0 || r.skippedFirst {
			break
		}
		r.seq++
		r.skippedFirst = true
	}
	if err := r.view(r.rd.RecordBatch()); err != nil {
		if errors.Is(err, ipcguard.ErrDamaged) {
			r.Truncated = fmt.Errorf("results damaged after the last complete batch: %w", err)
		} else {
			r.err = err
		}
		return nil, false
	}
	r.batch.Row = r.rows
	r.rows += int64(r.batch.Len)
	return &r.batch, true
}

// start starts the fast reader's goroutines at the first Next (or Each):
// Only may still change what they decode until then.
func (r *Reader) start() { r.startWith(false) }

// startWith starts the fast reader, inline for Each's goroutines to
// decode its batches (eachInline), or with decoding workers of its own.
func (r *Reader) startWith(inline bool) {
	if r.started {
		return
	}
	r.started = true
	if f := r.fastFrom; f != nil {
		r.fast = newFastStream(f.br, r.Meta.ScheduleHash, f.layout, f.pending, r.streamed, r.pos, r.delta, r.want, !r.only, inline)
	}
}

// recoverBatch turns damage met inside arrow-go while reading a batch into
// a cut-off tail: every batch before it was read, so the file is reported
// like one a killed writer left, not rejected whole.
func (r *Reader) recoverBatch(b **Batch, ok *bool) {
	if v := recover(); v != nil {
		r.Truncated = fmt.Errorf("results damaged after the last complete batch: %w", ipcguard.Damage(v))
		*b, *ok = nil, false
	}
}

// Err is a problem that stopped reading other than a cut-off tail.
func (r *Reader) Err() error { return r.err }

// Close releases the reader and its file.
func (r *Reader) Close() error {
	if r.fast != nil {
		r.fast.close()
	}
	r.rd.Release()
	if r.close != nil {
		return r.close()
	}
	return nil
}

func (r *Reader) view(rec arrow.RecordBatch) error {
	b := &r.batch
	if err := r.checkArrowBatch(rec); err != nil {
		return err
	}
	b.Len = int(rec.NumRows())
	var err error
	col := func(id int) arrow.Array { return rec.Column(r.pos[id]) }
	if b.Slot, err = r.slotValues(col(colSlot)); err != nil {
		return err
	}
	if b.Endpoint, b.EndpointNames, err = dictColumn(col(colEndpoint), ColEndpoint, b.Endpoint); err != nil {
		return err
	}
	for i, dst := range [3]*[]int64{&b.Scheduled, &b.Sent, &b.Latency} {
		if *dst, err = values[int64](col(colScheduled+i), storedName(colScheduled+i, r.delta[colScheduled+i])); err != nil {
			return err
		}
	}
	if r.delta[colScheduled] {
		// arrow-go's buffers are the file's: sum into a copy.
		r.scheduled = append(r.scheduled[:0], b.Scheduled...)
		b.Scheduled = r.scheduled
	}
	r.last.add(b, &r.delta)
	if r.pos[colService] >= 0 {
		if b.Service, err = values[int64](col(colService), ColService); err != nil {
			return err
		}
	} else {
		r.service = grow(r.service, b.Len)
		deriveService(r.service, b.Scheduled, b.Sent, b.Latency)
		b.Service = r.service
	}
	if b.Status, err = values[uint16](col(colStatus), ColStatus); err != nil {
		return err
	}
	if b.Error, b.ErrorNames, err = dictColumn(col(colError), ColError, b.Error); err != nil {
		return err
	}
	if b.BytesOut, err = values[uint32](col(colBytesOut), ColBytesOut); err != nil {
		return err
	}
	if b.BytesIn, err = values[uint32](col(colBytesIn), ColBytesIn); err != nil {
		return err
	}
	b.Connect = nil
	if r.pos[colConnect] >= 0 {
		b.Connect, err = values[int64](col(colConnect), ColConnect)
	}
	return err
}

// slotValues is the slot column's values, or a copy of its deltas for
// runningSums to turn into values.
func (r *Reader) slotValues(a arrow.Array) ([]uint64, error) {
	if !r.delta[colSlot] {
		return values[uint64](a, ColSlot)
	}
	d, err := values[int64](a, ColSlotDelta)
	if err != nil {
		return nil, err
	}
	r.slot = grow(r.slot, len(d))
	for i, v := range d {
		r.slot[i] = uint64(v)
	}
	return r.slot, nil
}

type primitiveValues interface {
	uint16 | uint32 | uint64 | int64
}

func values[T primitiveValues](a arrow.Array, name string) ([]T, error) {
	switch a := a.(type) {
	case *array.Uint64:
		if v, ok := any(a.Uint64Values()).([]T); ok {
			return v, nil
		}
	case *array.Int64:
		if v, ok := any(a.Int64Values()).([]T); ok {
			return v, nil
		}
	case *array.Uint32:
		if v, ok := any(a.Uint32Values()).([]T); ok {
			return v, nil
		}
	case *array.Uint16:
		if v, ok := any(a.Uint16Values()).([]T); ok {
			return v, nil
		}
	}
	var zero T
	return nil, fmt.Errorf("results column %q has type %s, want %T", name, a.DataType(), zero)
}

// dictColumn turns a dictionary<utf8> column (any index type) or a plain
// utf8 column into indices and names.
func dictColumn(a arrow.Array, name string, scratch []int32) ([]int32, []string, error) {
	n := a.Len()
	idx := grow(scratch, n)
	switch a := a.(type) {
	case *array.Dictionary:
		dict, ok := a.Dictionary().(*array.String)
		if !ok {
			return nil, nil, fmt.Errorf("results column %q: dictionary values are %s, want utf8", name, a.Dictionary().DataType())
		}
		names := make([]string, dict.Len())
		for i := range names {
			names[i] = dict.Value(i)
		}
		if err := indexValues(a.Indices(), idx); err != nil {
			return nil, nil, fmt.Errorf("results column %q: %w", name, err)
		}
		for _, v := range idx {
			if uint32(v) >= uint32(len(names)) { // negative too
				return nil, nil, fmt.Errorf("results column %q: %w: index %d into a dictionary of %d", name, ipcguard.ErrDamaged, v, len(names))
			}
		}
		return idx, names, nil
	case *array.String:
		var names []string
		seen := map[string]int32{}
		for i := 0; i < n; i++ {
			v := a.Value(i)
			j, ok := seen[v]
			if !ok {
				j = int32(len(names))
				seen[v] = j
				names = append(names, v)
			}
			idx[i] = j
		}
		return idx, names, nil
	}
	return nil, nil, fmt.Errorf("results column %q has type %s, want dictionary<utf8>", name, a.DataType())
}

// indexValues widens a dictionary's indices, whatever their integer type.
func indexValues(a arrow.Array, dst []int32) error {
	switch a := a.(type) {
	case *array.Uint8:
		widen(dst, a.Uint8Values())
	case *array.Int8:
		widen(dst, a.Int8Values())
	case *array.Uint16:
		widen(dst, a.Uint16Values())
	case *array.Int16:
		widen(dst, a.Int16Values())
	case *array.Int32:
		copy(dst, a.Int32Values())
	case *array.Uint32:
		widen(dst, a.Uint32Values())
	case *array.Int64:
		widen(dst, a.Int64Values())
	case *array.Uint64:
		widen(dst, a.Uint64Values())
	default:
		return fmt.Errorf("dictionary index type %s is not an integer", a.DataType())
	}
	return nil
}

func widen[T int8 | uint8 | int16 | uint16 | uint32 | int64 | uint64](dst []int32, src []T) {
	for i, v := range src {
		dst[i] = int32(v)
	}
}
