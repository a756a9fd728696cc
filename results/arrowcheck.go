package results

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tressi/tressi/ipcguard"
)

// checkArrowBatch checks a batch read through arrow-go (files the fast
// reader does not take: other writers' column types, or a schema changed
// after it was written) against its checksum when it has one and tressi's
// column types.
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
	for id := range contractColumns {
		if r.pos[id] < 0 {
			continue // service_ns, derived: not in the checksum
		}
		a := rec.Column(r.pos[id])
		if !arrow.TypeEqual(a.DataType(), storedType(id, r.delta[id])) {
			r.Unchecked++ // a checksum over other types than tressi's: nothing to compare
			return nil
		}
		if d, ok := a.(*array.Dictionary); ok {
			names := dictNames(d)
			if id == colEndpoint {
				endpoints = names
			} else {
				errs = names
			}
			a = d.Indices()
		}
		raw[id] = valueBytes(a, columnWidths[id])
	}
	var extra [][]byte
	if f := r.pos[colConnect]; f >= 0 {
		a := rec.Column(f)
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
// over the messages the guard handed it for it (its own, and any before it
// since the last batch that carried one), as the fast reader checks it
// over the bytes it reads itself.
func (r *Reader) checkTaken(rec arrow.RecordBatch, bc batchCheck, seq uint64) error {
	g := r.guard
	if g == nil {
		return nil
	}
	msgs, pending := g.take()
	if len(msgs) == 0 {
		return fmt.Errorf("%w: batch %d was read from no message", ipcguard.ErrDamaged, seq)
	}
	last := msgs[len(msgs)-1]
	for _, m := range msgs[:len(msgs)-1] {
		pending = messageSum(pending, m)
	}
	var dicts [2][]string
	if bc.hasStream {
		g.pending = 0
		for i, col := range [2]int{r.pos[colEndpoint], r.pos[colError]} {
			if d, ok := rec.Column(col).(*array.Dictionary); ok {
				dicts[i] = dictNames(d)
			}
		}
	} else {
		g.pending = messageSum(pending, last) // the next stream checksum covers it
	}
	return bc.checkStreamed(r.streamed, pending, last, r.Meta.ScheduleHash, seq, int(rec.NumRows()), dicts)
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
