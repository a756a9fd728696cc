package results

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/tressi/tressi/ipcguard"
)

// The fast path's decoding: a batch's columns, dictionaries, and each
// goroutine's decompressors (fastread.go moves the batches).

func (s *fastStream) decode(dec *decoders, job *fastJob) error {
	_, hdr, err := messageHeader(job.msg.meta)
	if err != nil {
		return err
	}
	body := job.msg.body
	rb, err := readRecordBatch(hdr, len(body))
	if err != nil {
		return err
	}
	n := int(rb.length)
	fields := len(s.layout.dictIDs)
	if len(rb.nodes) != fields || len(rb.buffers) != 2*fields {
		return fmt.Errorf("%w: a batch with %d columns and %d buffers, want %d and %d", ipcguard.ErrDamaged, len(rb.nodes), len(rb.buffers), fields, 2*fields)
	}
	keys, values, err := messageMetadata(job.msg.meta)
	if err != nil {
		return err
	}
	bc, err := parseBatchCheck(keys, values)
	if err != nil {
		return fmt.Errorf("%w: %v", ipcguard.ErrDamaged, err)
	}
	dicts := [2][]string{job.endpoints, job.errs}
	if err := bc.checkStreamed(s.streamed, job.pending, job.msg, s.hash, job.seq, n, dicts); err != nil {
		return err
	}
	if bc.hasBody && !bc.hasStream { // an older file's body checksum
		if err := bc.checkSeq(job.seq); err != nil {
			return err
		}
		if err := checkBody(bc.body, s.hash, job.seq, n, rb.rawNodes, rb.rawBuffers, rb.codec, dicts, body); err != nil {
			return err
		}
	}
	// Either checksum covers every byte decoded below, so zstd's own frame
	// checksum would only check the same bytes a second time.
	dec.trustFrames = bc.ok
	want := s.want
	stored := bc.hasBody || bc.hasStream // a checksum of the batch as stored
	if !stored {
		// Only the content checksum can tell damage here, and it needs
		// every column.
		want = allColumns
	}
	all := true
	for id, f := range s.pos {
		if f < 0 {
			job.raw[id] = job.raw[id][:0]
			continue
		}
		if rb.nodes[f] != int64(n) {
			return fmt.Errorf("%w: column %s has %d rows in a batch of %d", ipcguard.ErrDamaged, columnNames[id], rb.nodes[f], n)
		}
		if !want[id] {
			job.raw[id], all = job.raw[id][:0], false
			continue
		}
		if job.raw[id], err = dec.buffer(job.raw[id], body, rb.buffers[2*f+1], rb.codec, n*columnWidths[id]); err != nil {
			return fmt.Errorf("column %s: %w", columnNames[id], err)
		}
	}
	if bc.ok && all && (s.content || !stored) {
		var cols [10][]byte
		for id := range cols {
			if s.pos[id] >= 0 {
				cols[id] = job.raw[id][:n*columnWidths[id]]
			}
		}
		var extra [][]byte
		if s.pos[colConnect] >= 0 {
			extra = append(extra, job.raw[colConnect][:n*8])
		}
		if err := bc.check(s.hash, job.seq, n, &cols, job.endpoints, job.errs, extra...); err != nil {
			return err
		}
	}
	job.derive = s.pos[colService] < 0 && want[colService]
	if job.derive {
		job.raw[colService] = growBytes(job.raw[colService], n*8)
		if !s.delta[colScheduled] { // else next derives it, once scheduled_ns is summed
			deriveService(view[int64](job.raw[colService], n), view[int64](job.raw[colScheduled], n),
				view[int64](job.raw[colSent], n), view[int64](job.raw[colLatency], n))
		}
	}
	b := &job.batch
	b.Len = n
	b.Checked = bc.ok
	b.Slot = view[uint64](job.raw[colSlot], n)
	b.Scheduled = view[int64](job.raw[colScheduled], n)
	b.Sent = view[int64](job.raw[colSent], n)
	b.Latency = view[int64](job.raw[colLatency], n)
	b.Service = view[int64](job.raw[colService], n)
	b.Status = view[uint16](job.raw[colStatus], n)
	b.BytesOut = view[uint32](job.raw[colBytesOut], n)
	b.BytesIn = view[uint32](job.raw[colBytesIn], n)
	b.Connect = view[int64](job.raw[colConnect], n)
	b.EndpointNames, b.ErrorNames = job.endpoints, job.errs
	b.Endpoint, b.Error = b.Endpoint[:0], b.Error[:0]
	if want[colEndpoint] {
		if b.Endpoint, err = widenIndices(b.Endpoint, view[uint16](job.raw[colEndpoint], n), len(job.endpoints), ColEndpoint); err != nil {
			return err
		}
	}
	if want[colError] {
		b.Error, err = widenIndices(b.Error, job.raw[colError][:n], len(job.errs), ColError)
	}
	return err
}

// allColumns decodes every column.
var allColumns = [numColumns]bool{true, true, true, true, true, true, true, true, true, true, true}

func widenIndices[T uint8 | uint16](dst []int32, src []T, names int, col string) ([]int32, error) {
	dst = grow(dst, len(src))
	for i, v := range src {
		if int(v) >= names {
			return nil, fmt.Errorf("results column %q: %w: index %d into a dictionary of %d", col, ipcguard.ErrDamaged, v, names)
		}
		dst[i] = int32(v)
	}
	return dst, nil
}

// view reinterprets decoded bytes as n values; b is 8-byte aligned (it
// comes from make of at least 8 bytes, or is empty: a column not decoded).
func view[T uint16 | uint32 | uint64 | int64](b []byte, n int) []T {
	if n == 0 || len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// readDictionary decodes a dictionary batch of utf8 names into dicts.
func readDictionary(dec *decoders, msg rawMessage, dicts map[int64][]string) error {
	_, hdr, err := messageHeader(msg.meta)
	if err != nil {
		return err
	}
	db, err := readDictionaryBatch(hdr, len(msg.body))
	if err != nil {
		return err
	}
	if len(db.data.nodes) != 1 || len(db.data.buffers) != 3 {
		return fmt.Errorf("%w: a dictionary that is not one utf8 column", ipcguard.ErrDamaged)
	}
	n := int(db.data.length)
	offs, err := dec.buffer(nil, msg.body, db.data.buffers[1], db.data.codec, 4*(n+1))
	if err != nil {
		return fmt.Errorf("dictionary %d offsets: %w", db.id, err)
	}
	end := binary.LittleEndian.Uint32(offs[4*n:])
	data, err := dec.buffer(nil, msg.body, db.data.buffers[2], db.data.codec, int(end))
	if err != nil {
		return fmt.Errorf("dictionary %d values: %w", db.id, err)
	}
	names := make([]string, 0, n)
	if db.isDelta {
		names = append(names, dicts[db.id]...)
	}
	prev := binary.LittleEndian.Uint32(offs)
	for i := 1; i <= n; i++ {
		o := binary.LittleEndian.Uint32(offs[4*i:])
		if o < prev || o > end {
			return fmt.Errorf("%w: dictionary %d offsets out of order", ipcguard.ErrDamaged, db.id)
		}
		names = append(names, string(data[prev:o]))
		prev = o
	}
	dicts[db.id] = names
	return nil
}

// decoders are one goroutine's decompressors, kept for a whole file.
type decoders struct {
	zstd *zstd.Decoder
	// zstdTrusting skips zstd's frame checksums, for batches whose own
	// checksum covers what is decoded; trustFrames picks it.
	zstdTrusting *zstd.Decoder
	trustFrames  bool
	lz4          *lz4.Reader
}

// newDecoders makes each decompressor on first use: a small file, or one
// without compression, never pays for them.
func newDecoders() *decoders { return &decoders{} }

// newZstd makes a decoder that runs on its caller's goroutine: the workers
// are the parallelism.
func newZstd(ignoreChecksum bool) *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBodyLen),
		zstd.IgnoreChecksum(ignoreChecksum))
	if err != nil {
		panic(err) // only for invalid options
	}
	return d
}

func (d *decoders) close() {
	for _, z := range []*zstd.Decoder{d.zstd, d.zstdTrusting} {
		if z != nil {
			z.Close()
		}
	}
}

// zstdDecoder returns the decoder for the current batch, made on first use.
func (d *decoders) zstdDecoder() *zstd.Decoder {
	if d.trustFrames {
		if d.zstdTrusting == nil {
			d.zstdTrusting = newZstd(true)
		}
		return d.zstdTrusting
	}
	if d.zstd == nil {
		d.zstd = newZstd(false)
	}
	return d.zstd
}

// buffer decodes buffer b of body into dst (grown as needed) and returns
// at least need bytes of it.
func (d *decoders) buffer(dst, body []byte, b bufRef, codec, need int) ([]byte, error) {
	src := body[b.offset : b.offset+b.length]
	if codec == codecNone {
		if len(src) < need {
			return nil, fmt.Errorf("%w: a buffer of %d bytes where %d are needed", ipcguard.ErrDamaged, len(src), need)
		}
		dst = growBytes(dst, need)
		copy(dst, src)
		return dst, nil
	}
	if need == 0 && len(src) == 0 {
		return dst[:0], nil
	}
	if len(src) < 8 {
		return nil, fmt.Errorf("%w: a compressed buffer of %d bytes", ipcguard.ErrDamaged, len(src))
	}
	size := int64(binary.LittleEndian.Uint64(src))
	src = src[8:]
	if size == -1 { // stored uncompressed
		return d.buffer(dst, src, bufRef{0, int64(len(src))}, codecNone, need)
	}
	if size < int64(need) || size > maxBodyLen {
		return nil, fmt.Errorf("%w: a buffer of %d bytes where %d are needed", ipcguard.ErrDamaged, size, need)
	}
	dst = growBytes(dst, int(size))
	if size == 0 {
		return dst, nil
	}
	switch codec {
	case codecZstd:
		if decodeFillFrame(dst[:size], src, d.trustFrames) {
			break
		}
		out, err := d.zstdDecoder().DecodeAll(src, dst[:0])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ipcguard.ErrDamaged, err)
		}
		if len(out) != int(size) {
			return nil, fmt.Errorf("%w: a buffer decompressed to %d bytes, its header says %d", ipcguard.ErrDamaged, len(out), size)
		}
		if &out[0] != &dst[0] {
			copy(dst, out)
		}
	case codecLZ4:
		if d.lz4 == nil {
			d.lz4 = lz4.NewReader(nil)
		}
		d.lz4.Reset(bytes.NewReader(src))
		if _, err := io.ReadFull(d.lz4, dst); err != nil {
			return nil, fmt.Errorf("%w: %v", ipcguard.ErrDamaged, err)
		}
	default:
		return nil, fmt.Errorf("compression codec %d is neither LZ4 nor zstd", codec)
	}
	return dst, nil
}

// growBytes returns n bytes of b's storage, or new 8-byte aligned storage.
// It keeps slack past n: zstd decodes the last block of a frame with its
// slower careful copies when the output has no room to spare.
func growBytes(b []byte, n int) []byte {
	const slack = 64
	if cap(b) >= n+slack {
		return b[:n]
	}
	return make([]byte, n, n+slack)
}

// nextFast is Next for the fast reader: the batch before is recycled.
func (r *Reader) nextFast() (*Batch, bool) {
	if c := r.fast.cur; c != nil {
		r.fast.release(c)
		r.fast.cur = nil
	}
	job, ok := r.takeFast()
	if !ok {
		return nil, false
	}
	r.fast.cur = job
	r.fast.finish(job)
	return &job.batch, true
}

// takeFast takes the next batch to hand out, held until released, and
// notes how the stream ended when it has.
func (r *Reader) takeFast() (*fastJob, bool) {
	job, err, ok := r.fast.take()
	if ok && err == nil && r.firstEmpty(job) {
		r.skippedFirst = true
		r.fast.release(job)
		job, err, ok = r.fast.take()
	}
	return r.handOut(job, err, ok)
}

// firstEmpty says job is the writer's first batch, which puts the schema
// out at once: checked like any other, handed out like none.
func (r *Reader) firstEmpty(job *fastJob) bool {
	return job.batch.Len == 0 && !r.skippedFirst && r.handed == 0
}

// handOut numbers the next batch of the stream, or notes how the stream
// ended (err, or !ok at its end). It runs in stream order.
func (r *Reader) handOut(job *fastJob, err error, ok bool) (*fastJob, bool) {
	switch {
	case err != nil && errors.Is(err, ipcguard.ErrDamaged), err != nil && errors.Is(err, ErrChecksum):
		r.Truncated = fmt.Errorf("results damaged after the last complete batch: %w", err)
		return nil, false
	case err != nil:
		r.err = err
		return nil, false
	case !ok:
		return nil, false
	}
	job.batch.Row = r.rows
	r.handed++
	r.rows += int64(job.batch.Len)
	if !job.batch.Checked {
		r.Unchecked++
	}
	return job, true
}
