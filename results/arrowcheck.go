package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tressi/tressi/ipcguard"
)

// checkArrowBatch checks a batch read through arrow-go (files the fast
// reader does not take: other writers' column types, a schema too large to
// peek at) against its checksum when it has one and tressi's column types.
func (r *Reader) checkArrowBatch(rec arrow.RecordBatch) error {
	seq := r.seq
	r.seq++
	var md arrow.Metadata
	if m, ok := rec.(arrow.RecordBatchWithMetadata); ok {
		md = m.Metadata()
	}
	bc, err := parseBatchCheck(md.Keys(), md.Values())
	if err != nil {
		return fmt.Errorf("%w: %v", ipcguard.ErrDamaged, err)
	}
	if err := r.checkTaken(rec, bc, seq); err != nil {
		return err
	}
	if !bc.ok {
		r.Unchecked++
		return nil
	}
	var raw [10][]byte
	var endpoints, errs []string
	for i := range contractColumns {
		a := rec.Column(r.cols[i])
		if !arrow.TypeEqual(a.DataType(), writerTypes[i]) {
			r.Unchecked++ // a checksum over other types than tressi's: nothing to compare
			return nil
		}
		if d, ok := a.(*array.Dictionary); ok {
			names := dictNames(d)
			if i == 1 {
				endpoints = names
			} else {
				errs = names
			}
			a = d.Indices()
		}
		raw[i] = valueBytes(a, widths[i])
	}
	var extra [][]byte
	if r.connect >= 0 {
		a := rec.Column(r.connect)
		if !arrow.TypeEqual(a.DataType(), arrow.PrimitiveTypes.Int64) {
			r.Unchecked++
			return nil
		}
		extra = append(extra, valueBytes(a, 8))
	}
	if err := bc.check(r.Meta.ScheduleHash, seq, int(rec.NumRows()), &raw, endpoints, errs, extra...); err != nil {
		return fmt.Errorf("%w: %v", ipcguard.ErrDamaged, err)
	}
	return nil
}

// checkTaken checks the stream checksum of a batch arrow-go has just read
// over the bytes it read for it (its message and any before it since the
// last batch that carried one), as the fast reader checks it over the
// bytes it reads itself.
func (r *Reader) checkTaken(rec arrow.RecordBatch, bc batchCheck, seq uint64) error {
	t := r.taken
	if t == nil {
		return nil
	}
	msgs, err := splitMessages(t.buf)
	t.buf = t.buf[:0]
	if err != nil || len(msgs) == 0 {
		return fmt.Errorf("%w: batch %d: the bytes read for it are not whole messages (%v)", ipcguard.ErrDamaged, seq, err)
	}
	last := msgs[len(msgs)-1]
	pending := t.pending
	for _, m := range msgs[:len(msgs)-1] {
		pending = messageSum(pending, m)
	}
	switch {
	case bc.hasStream:
		t.pending = 0
		var dicts [2][]string
		for i, col := range [2]int{r.cols[1], r.cols[7]} {
			if d, ok := rec.Column(col).(*array.Dictionary); ok {
				dicts[i] = dictNames(d)
			}
		}
		if bc.seq != seq {
			return fmt.Errorf("%w: batch %d says it is batch %d of its run (batches lost, repeated or moved)", ErrChecksum, seq, bc.seq)
		}
		return checkStream(pending, last, r.Meta.ScheduleHash, seq, int(rec.NumRows()), dicts)
	case r.streamed && seq > 0:
		return fmt.Errorf("%w: batch %d has no %s, which every batch after the first of this file carries", ErrChecksum, seq, KeyStreamSum)
	}
	t.pending = messageSum(pending, last)
	return nil
}

// takenAll checks, once arrow-go has found the end of the stream, that
// nothing but a file footer follows: arrow-go ends quietly at a message
// whose damaged length reads as the end-of-stream marker, which would
// drop every batch after it without a word.
func (r *Reader) takenAll() error {
	if r.taken == nil {
		return nil
	}
	if err := endOfStream(bufio.NewReader(r.taken.r)); !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// takenBytes keeps what arrow-go reads, for checkTaken.
type takenBytes struct {
	r       io.Reader
	buf     []byte
	pending uint32 // CRC-32C of the messages before buf since the last stream checksum
}

func (t *takenBytes) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

// splitMessages splits framed IPC messages.
func splitMessages(b []byte) ([]rawMessage, error) {
	br := bufio.NewReader(bytes.NewReader(b))
	var out []rawMessage
	for {
		m, err := readMessage(br, nil)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
}

func dictNames(d *array.Dictionary) []string {
	s, ok := d.Dictionary().(*array.String)
	if !ok {
		return nil
	}
	names := make([]string, s.Len())
	for i := range names {
		names[i] = s.Value(i)
	}
	return names
}

// valueBytes is a fixed-width array's values as written.
func valueBytes(a arrow.Array, width int) []byte {
	bufs := a.Data().Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return nil
	}
	b := bufs[1].Bytes()
	from, to := a.Data().Offset()*width, (a.Data().Offset()+a.Len())*width
	if to > len(b) {
		return b
	}
	return b[from:to]
}
