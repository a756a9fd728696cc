package compile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tressi/tressi/arrowmem"
	"github.com/tressi/tressi/ipcguard"
)

// A plan's data rows and source files can be large (a million-row CSV is
// 29 MB, 75 MB as JSON in the header), and Arrow readers cap the schema
// message that carries the header (ours at 64 MiB, others lower). So from
// format 2 on they travel as blobs: a second Arrow IPC stream after the
// slot stream's end-of-stream marker, one row per chunk of at most
// blobChunk bytes (columns name utf8, chunk binary), then a 16-byte
// trailer: the blob stream's offset (uint64, little endian) and
// blobMagic. Readers of the slots (pyarrow, polars, DuckDB) stop at the
// first stream's end and never see the blobs.

const (
	blobChunk      = 1 << 20
	blobBatchRows  = 8
	blobMagic      = "TPLANBLB"
	blobTrailerLen = 16
	blobData       = "data"
	blobSource     = "source:" // + the source's path
)

var blobSchema = arrow.NewSchema([]arrow.Field{
	{Name: "name", Type: arrow.BinaryTypes.String},
	{Name: "chunk", Type: arrow.BinaryTypes.Binary},
}, nil)

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeBlobs writes the blob stream and the trailer; start is the offset
// the blob stream begins at.
func writeBlobs(w io.Writer, start int64, data []wireData, sources map[string][]byte, mem memory.Allocator) error {
	dj, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("tplan: data: %w", err)
	}
	names := make([]string, 0, len(sources))
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	size := len(dj)
	for _, src := range sources {
		size += len(src)
	}
	iw := ipc.NewWriter(w, append(arrowmem.Zstd(size), ipc.WithSchema(blobSchema), ipc.WithAllocator(mem))...)
	b := array.NewRecordBuilder(mem, blobSchema)
	defer b.Release()
	nameB, chunkB := b.Field(0).(*array.StringBuilder), b.Field(1).(*array.BinaryBuilder)
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		rows = 0
		return iw.Write(rec)
	}
	add := func(name string, blob []byte) error {
		for first := true; first || len(blob) > 0; first = false {
			n := min(len(blob), blobChunk)
			nameB.Append(name)
			chunkB.Append(blob[:n])
			blob = blob[n:]
			if rows++; rows == blobBatchRows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := add(blobData, dj); err != nil {
		iw.Close()
		return fmt.Errorf("tplan: write: %w", err)
	}
	for _, name := range names {
		if err := add(blobSource+name, sources[name]); err != nil {
			iw.Close()
			return fmt.Errorf("tplan: write: %w", err)
		}
	}
	if err := flush(); err != nil {
		iw.Close()
		return fmt.Errorf("tplan: write: %w", err)
	}
	if err := iw.Close(); err != nil {
		return fmt.Errorf("tplan: close: %w", err)
	}
	var trailer [blobTrailerLen]byte
	binary.LittleEndian.PutUint64(trailer[:8], uint64(start))
	copy(trailer[8:], blobMagic)
	_, err = w.Write(trailer[:])
	return err
}

// readBlobs reads the blobs of a .tplan of size bytes into h.
func readBlobs(r io.ReadSeeker, size int64, h *tplanHeader, mem memory.Allocator) (err error) {
	defer ipcguard.Recover(&err)
	if size < blobTrailerLen {
		return errors.New("tplan: the file ends before its blob trailer")
	}
	var trailer [blobTrailerLen]byte
	if _, err := r.Seek(size-blobTrailerLen, io.SeekStart); err != nil {
		return fmt.Errorf("tplan: %w", err)
	}
	if _, err := io.ReadFull(r, trailer[:]); err != nil {
		return fmt.Errorf("tplan: blob trailer: %w", err)
	}
	start := binary.LittleEndian.Uint64(trailer[:8])
	if string(trailer[8:]) != blobMagic || start >= uint64(size-blobTrailerLen) {
		return errors.New("tplan: the blob trailer is damaged (the file was cut short?)")
	}
	if _, err := r.Seek(int64(start), io.SeekStart); err != nil {
		return fmt.Errorf("tplan: %w", err)
	}
	body := io.LimitReader(r, size-blobTrailerLen-int64(start))
	checked, err := ipcguard.Stream(body)
	if err != nil {
		return fmt.Errorf("tplan: blobs: %w", err)
	}
	rd, err := ipc.NewReader(checked, ipc.WithAllocator(ipcguard.Bounded(mem)))
	if err != nil {
		return fmt.Errorf("tplan: blobs: %w", err)
	}
	defer rd.Release()
	if !rd.Schema().Equal(blobSchema) {
		return errors.New("tplan: blobs: unexpected columns")
	}
	blobs := map[string]*bytes.Buffer{}
	for rd.Next() {
		rec := rd.RecordBatch()
		names, chunks := rec.Column(0).(*array.String), rec.Column(1).(*array.Binary)
		for i := 0; i < int(rec.NumRows()); i++ {
			name := names.Value(i)
			buf := blobs[name]
			if buf == nil {
				buf = new(bytes.Buffer)
				blobs[name] = buf
			}
			buf.Write(chunks.Value(i))
		}
	}
	if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("tplan: blobs: %w", err)
	}
	data, ok := blobs[blobData]
	if !ok {
		return errors.New("tplan: blobs: no data blob")
	}
	if err := json.Unmarshal(data.Bytes(), &h.Data); err != nil {
		return fmt.Errorf("tplan: data: %w", err)
	}
	h.Sources = map[string][]byte{}
	for name, buf := range blobs {
		if path, ok := strings.CutPrefix(name, blobSource); ok {
			h.Sources[path] = buf.Bytes()
		}
	}
	return nil
}
