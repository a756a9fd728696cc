package results

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tressi/tressi/arrowmem"
	"github.com/tressi/tressi/ipcguard"
)

// Sample is one kept response: the first for each (endpoint, status, error).
type Sample struct {
	Endpoint string
	Status   uint16
	Error    string
	// Detail says why a request failed, in words (for a tls error: unknown
	// authority, name mismatch, expired, ...); empty for a response.
	Detail   string
	Headers  string // response header block as received
	Body     []byte // prefix of the body, at most the executor's sample limit
	BodySize uint32 // the full body's size in bytes
}

// SampleBodyLimit is how much of a sampled body is kept by default.
const SampleBodyLimit = 4 << 10

var sampleSchema = arrow.NewSchema([]arrow.Field{
	{Name: "endpoint", Type: arrow.BinaryTypes.String},
	{Name: "status", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "error", Type: arrow.BinaryTypes.String},
	{Name: "headers", Type: arrow.BinaryTypes.String},
	{Name: "body", Type: arrow.BinaryTypes.Binary},
	{Name: "body_size", Type: arrow.PrimitiveTypes.Uint32},
	{Name: "detail", Type: arrow.BinaryTypes.String},
}, nil)

// KeySamplesSum is the samples stream's schema metadata key holding a
// CRC-32C (hex) of every sample's fields (samplesSum): a flipped byte in a
// header, a body or an endpoint name that still decodes is noticed.
// Other Arrow readers ignore it; files without it read as before.
const KeySamplesSum = "tressi.samples_crc32c"

// samplesSum is the CRC-32C of samples, field by field in a fixed order,
// each string and byte field length-prefixed so no two differ only in
// where one field ends.
func samplesSum(samples []Sample) uint32 {
	var c uint32
	var num [binary.MaxVarintLen64]byte
	field := func(b []byte) {
		c = crc32.Update(c, castagnoli, num[:binary.PutUvarint(num[:], uint64(len(b)))])
		c = crc32.Update(c, castagnoli, b)
	}
	for _, s := range samples {
		field([]byte(s.Endpoint))
		binary.LittleEndian.PutUint16(num[:2], s.Status)
		c = crc32.Update(c, castagnoli, num[:2])
		field([]byte(s.Error))
		field([]byte(s.Detail))
		field([]byte(s.Headers))
		field(s.Body)
		binary.LittleEndian.PutUint32(num[:4], s.BodySize)
		c = crc32.Update(c, castagnoli, num[:4])
	}
	return c
}

// WriteSamples writes samples as one Arrow IPC stream, their checksum in
// its schema's metadata.
func WriteSamples(w io.Writer, samples []Sample) error {
	meta := arrow.NewMetadata([]string{KeySamplesSum}, []string{formatSum(samplesSum(samples))})
	return writeSamplesSchema(w, arrow.NewSchema(sampleSchema.Fields(), &meta), samples)
}

func writeSamplesSchema(w io.Writer, schema *arrow.Schema, samples []Sample) error {
	mem := memory.DefaultAllocator
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, s := range samples {
		b.Field(0).(*array.StringBuilder).Append(s.Endpoint)
		b.Field(1).(*array.Uint16Builder).Append(s.Status)
		b.Field(2).(*array.StringBuilder).Append(s.Error)
		b.Field(3).(*array.StringBuilder).Append(s.Headers)
		b.Field(4).(*array.BinaryBuilder).Append(s.Body)
		b.Field(5).(*array.Uint32Builder).Append(s.BodySize)
		b.Field(6).(*array.StringBuilder).Append(s.Detail)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	iw := ipc.NewWriter(w, append(arrowmem.Zstd(arrowmem.RecordBytes(rec)), ipc.WithSchema(schema), ipc.WithAllocator(mem))...)
	if err := iw.Write(rec); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	return iw.Close()
}

// ReadSamples reads a samples file written by WriteSamples (or any writer
// with those columns).
func ReadSamples(r io.Reader) (out []Sample, err error) {
	defer ipcguard.Recover(&err) // see guard.go: a damaged file must not crash the report
	checked, err := ipcguard.Stream(r)
	if err != nil {
		return nil, fmt.Errorf("samples: not an Arrow IPC stream: %w", err)
	}
	rd, err := ipc.NewReader(checked, ipc.WithAllocator(ipcguard.Allocator))
	if err != nil {
		return nil, fmt.Errorf("samples: not an Arrow IPC stream: %w", err)
	}
	defer rd.Release()
	for rd.Next() {
		rec := rd.RecordBatch()
		cols := map[string]arrow.Array{}
		for i, f := range rec.Schema().Fields() {
			cols[f.Name] = rec.Column(i)
		}
		ep, ok1 := cols["endpoint"].(*array.String)
		st, ok2 := cols["status"].(*array.Uint16)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("samples: columns endpoint (utf8) and status (uint16) are required")
		}
		errs, _ := cols["error"].(*array.String)
		hdr, _ := cols["headers"].(*array.String)
		body, _ := cols["body"].(*array.Binary)
		size, _ := cols["body_size"].(*array.Uint32)
		detail, _ := cols["detail"].(*array.String) // absent from files older than it
		for i := 0; i < int(rec.NumRows()); i++ {
			s := Sample{Endpoint: ep.Value(i), Status: st.Value(i)}
			if errs != nil {
				s.Error = errs.Value(i)
			}
			if hdr != nil {
				s.Headers = hdr.Value(i)
			}
			if body != nil {
				s.Body = append([]byte(nil), body.Value(i)...)
			}
			if size != nil {
				s.BodySize = size.Value(i)
			}
			if detail != nil {
				s.Detail = detail.Value(i)
			}
			out = append(out, s)
		}
	}
	if err := rd.Err(); err != nil && err != io.EOF {
		return out, fmt.Errorf("samples: %w", err)
	}
	if want, ok := rd.Schema().Metadata().GetValue(KeySamplesSum); ok {
		if got := formatSum(samplesSum(out)); got != want {
			return nil, fmt.Errorf("samples damaged: their CRC-32C is %s, recorded %q: the file was changed after it was written", got, want)
		}
	}
	return out, nil
}
