package results

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/klauspost/compress/zstd"
)

// batchEncoder writes tressi's record batches as Arrow IPC messages itself,
// rather than through arrow-go, for two things arrow-go cannot do: choose
// each buffer's zstd encoding (see columnCodecs), and put a checksum of the
// compressed body in the batch's metadata, so a reader can skip the columns
// it does not need and still notice a changed byte anywhere in the batch.
// The messages are plain Arrow IPC (format version 5, zstd BUFFER
// compression): every Arrow reader reads them.
type batchEncoder struct {
	lit  literalFrame
	zstd [2]*zstd.Encoder // pickFast, pickDefault
	fb   *flatbuffers.Builder
	body []byte
	// scratch holds a column's second frame while it is weighed against
	// the first.
	scratch []byte
	// picks are the last weighing's verdicts, by column (schema order);
	// batches counts the batches written, for reweighEvery.
	picks   []pick
	batches int
	// nodes and bufs are the RecordBatch's FieldNode and Buffer vectors as
	// they appear in the message (16 little-endian bytes each), hashed
	// into the body checksum.
	nodes, bufs []byte
	// bodySumOnly (tests): write the body checksum instead of the stream
	// checksum, as tressi did before the stream checksum.
	bodySumOnly bool
	// pause, when set, runs before each frame is compressed (Writer.SetPause).
	pause func()
}

// columnCodec is how one column's values buffer is compressed: which
// encodings are weighed against each other for it.
type columnCodec uint8

const (
	// codecFastMatches is zstd's fastest level alone.
	codecFastMatches columnCodec = iota
	// codecLevels weighs zstd's default level against its fastest: for
	// sent instants, which climb with some noise. At a low rate the
	// default level's finer matches make them a quarter smaller; from a
	// few thousand requests a second on, both levels make them the same
	// size, and the fastest costs a third less (the default level's 1 MiB
	// table misses the cache on every lookup) and decodes faster.
	codecLevels
	// codecWeighed weighs zstd's fastest level against a frame of
	// Huffman-coded literals alone (zstdlit.go), with a handicap (see
	// literalHandicap): for columns that are spread out in some runs
	// (random sizes, a slow server's latencies) and repeat or climb in
	// others (a server's one status and size, a steady rate's deltas).
	// Latencies were weighed against the default level once; on real runs
	// the fastest made them as small or smaller (2.37 against 2.57 bytes a
	// row at 10 users) for a third less work.
	codecWeighed
	// codecDeltas is for the columns stored as deltas (deltaNames): the
	// fastest level's matches where one difference repeats (a steady
	// rate: a few bytes a batch), weighed against literals where the
	// differences are spread out.
	codecDeltas = codecWeighed
)

// columnCodecs are the codecs of the columns, by column id, chosen by
// measuring each column of real runs (bench/run, bench/floor's points) and
// of 10M-row synthetic ones (bench/reports).
var columnCodecs = [numColumns]columnCodec{
	colSlot: codecFastMatches, colEndpoint: codecWeighed, colScheduled: codecFastMatches, colSent: codecLevels,
	colLatency: codecWeighed, colService: codecWeighed, colStatus: codecWeighed, colError: codecWeighed,
	colBytesOut: codecWeighed, colBytesIn: codecWeighed, colConnect: codecWeighed,
}

// Decoding a match costs about what decoding eight bytes of literals does,
// so on spread-out values the literal frame, somewhat larger, decodes
// twice as fast; on values that repeat or climb, matches make the column a
// fifth to all of its size smaller. A weighed column keeps its matches only
// where they save at least literalHandicap of the literal frame and at
// least a byte per matchRowsPerByte rows: the latencies of a steady server
// (a fifth smaller with matches) and a server's one status (nothing left of
// it) keep them, the spread-out latencies and statuses of the synthetic
// runs bench/reports reads (a tenth smaller, a tenth of a byte a row) stay
// literals. The default level's frame is kept over the fastest's on the
// same terms, with levelHandicap: it decodes slower.
const (
	literalHandicap  = 0.15
	levelHandicap    = 0.05
	matchRowsPerByte = 8
)

// A column's weighing is done again every reweighEvery batches (and on a
// file's first); in between the column takes the encoding that won the
// last one. A steady run's columns keep their character from batch to
// batch, and weighing each one cost both encodings every time: a fifth of
// the recorder's work at 100k requests a second. A change of character
// (errors starting, a server slowing) is followed within that many
// batches.
const reweighEvery = 8

// pick is the encoding a weighing chose for a column.
type pick uint8

const (
	pickFast    pick = iota // zstd's fastest level
	pickDefault             // zstd's default level
	pickLiteral             // literals alone
)

// KeyBodySum is the batch metadata key of the body checksum (bodySum),
// which batches written before the stream checksum (streamsum.go) carry.
const KeyBodySum = "tressi.body_crc32c"

func newBatchEncoder() *batchEncoder {
	e := &batchEncoder{fb: flatbuffers.NewBuilder(1024)}
	for i, level := range []zstd.EncoderLevel{pickFast: zstd.SpeedFastest, pickDefault: zstd.SpeedDefault} {
		// No frame checksums: the batch checksums cover every byte. One
		// goroutine: the writer compresses one buffer at a time.
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic(err) // only for invalid options
		}
		e.zstd[i] = enc
	}
	return e
}

// write writes one record batch of rows rows whose columns are cols (the
// raw little-endian values, schema order), compressed with codecs (schema
// order too), with the content checksum sum.
// pending is the CRC-32C of what the stream holds since the last batch
// written here (the schema, dictionaries and first batch arrow-go wrote),
// which the batch's stream checksum covers (streamsum.go).
func (e *batchEncoder) write(w io.Writer, pending uint32, hash string, seq uint64, rows int, codecs []columnCodec, cols [][]byte, sum uint32, dicts [2][]string) error {
	e.body = e.body[:0]
	e.nodes, e.bufs = e.nodes[:0], e.bufs[:0]
	weigh := e.batches%reweighEvery == 0 // the first batch included
	e.batches++
	if e.picks == nil {
		e.picks = make([]pick, len(cols))
	}
	for i, col := range cols {
		e.nodes = binary.LittleEndian.AppendUint64(e.nodes, uint64(rows))
		e.nodes = binary.LittleEndian.AppendUint64(e.nodes, 0) // no nulls
		// The validity buffer: empty, as there are no nulls.
		e.bufs = binary.LittleEndian.AppendUint64(e.bufs, uint64(len(e.body)))
		e.bufs = binary.LittleEndian.AppendUint64(e.bufs, 0)
		start := len(e.body)
		if weigh {
			e.body, e.picks[i] = e.weighColumn(e.body, codecs[i], rows, col)
		} else {
			e.body = e.appendPicked(e.body, e.picks[i], col)
		}
		e.bufs = binary.LittleEndian.AppendUint64(e.bufs, uint64(start))
		e.bufs = binary.LittleEndian.AppendUint64(e.bufs, uint64(len(e.body)-start))
		for len(e.body)%8 != 0 {
			e.body = append(e.body, 0)
		}
	}
	keys := []string{KeyBatchSeq, KeyBatchSum, KeyStreamSum}
	values := []string{strconv.FormatUint(seq, 10), formatSum(sum), sumPlaceholder}
	if e.bodySumOnly {
		keys[2], values[2] = KeyBodySum, formatSum(bodySum(hash, seq, rows, e.nodes, e.bufs, codecZstd, dicts, e.body))
	}
	meta := e.message(rows, keys, values)
	// The encapsulated message: continuation marker, metadata length
	// (padded so the body starts 8-byte aligned), metadata, body.
	padded := (len(meta) + 8 + 7) &^ 7
	head := make([]byte, 8, padded)
	binary.LittleEndian.PutUint32(head, 0xFFFFFFFF)
	binary.LittleEndian.PutUint32(head[4:], uint32(padded-8))
	head = append(head, meta...)
	head = head[:padded]
	if e.bodySumOnly {
		if _, err := w.Write(head); err != nil {
			return err
		}
		_, err := w.Write(e.body)
		return err
	}
	at, _, ok, err := metadataValueAt(head[8:], KeyStreamSum)
	if err != nil || !ok {
		panic(fmt.Sprintf("results: the stream checksum is not where it was written (%v)", err))
	}
	stream := streamSum(pending, head[:8], head[8:], at, e.body, hash, seq, dicts)
	copy(head[8+at:], formatSum(stream))
	if _, err := w.Write(head); err != nil {
		return err
	}
	_, err = w.Write(e.body)
	return err
}

// weighColumn appends one column's compressed buffer, in the encoding of
// codec that wins, and says which won.
func (e *batchEncoder) weighColumn(dst []byte, codec columnCodec, rows int, col []byte) ([]byte, pick) {
	if codec == codecFastMatches {
		return e.appendPicked(dst, pickFast, col), pickFast
	}
	first, second, handicap := pickLiteral, pickFast, literalHandicap
	if codec == codecLevels {
		first, second, handicap = pickFast, pickDefault, levelHandicap
	}
	start := len(dst)
	dst = e.appendPicked(dst, first, col)
	kept := len(dst) - start - 8 // len(col) when stored as it is
	e.scratch = e.frame(e.scratch[:0], second, col)
	saved := kept - len(e.scratch)
	if float64(saved) >= handicap*float64(kept) && saved*matchRowsPerByte >= rows {
		dst = binary.LittleEndian.AppendUint64(dst[:start], uint64(len(col)))
		return append(dst, e.scratch...), second
	}
	return dst, first
}

// appendPicked appends one column's compressed buffer in encoding p, its
// uncompressed length first, or the values as they are when compression
// does not pay, which the format marks with an uncompressed length of -1.
func (e *batchEncoder) appendPicked(dst []byte, p pick, col []byte) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(col)))
	dst = e.frame(dst, p, col)
	if len(dst)-start-8 >= len(col) {
		dst = binary.LittleEndian.AppendUint64(dst[:start], ^uint64(0))
		dst = append(dst, col...)
	}
	return dst
}

// frame appends col's zstd frame in encoding p.
func (e *batchEncoder) frame(dst []byte, p pick, col []byte) []byte {
	if e.pause != nil {
		e.pause()
	}
	if p == pickLiteral {
		return e.lit.appendFrame(dst, col)
	}
	return e.zstd[p].EncodeAll(col, dst)
}

// Field slots of Arrow's Message.fbs tables written here (see ipcmsg.go for
// the ones read).
const (
	msgVersion       = 0
	metadataVersion5 = 4
	compressionCodec = 0
)

// message builds the flatbuffer Message holding the RecordBatch header.
func (e *batchEncoder) message(rows int, keys, values []string) []byte {
	b := e.fb
	b.Reset()
	kvs := make([]flatbuffers.UOffsetT, len(keys))
	for i := range keys {
		k, v := b.CreateString(keys[i]), b.CreateString(values[i])
		b.StartObject(2)
		b.PrependUOffsetTSlot(0, k, 0)
		b.PrependUOffsetTSlot(1, v, 0)
		kvs[i] = b.EndObject()
	}
	var meta flatbuffers.UOffsetT
	if len(kvs) > 0 {
		b.StartVector(4, len(kvs), 4)
		for i := len(kvs) - 1; i >= 0; i-- {
			b.PrependUOffsetT(kvs[i])
		}
		meta = b.EndVector(len(kvs))
	}
	b.StartObject(2)
	b.PrependInt8Slot(compressionCodec, codecZstd, codecLZ4)
	compression := b.EndObject()
	nodes := structVector(b, e.nodes)
	bufs := structVector(b, e.bufs)
	b.StartObject(4)
	b.PrependInt64Slot(rbLength, int64(rows), 0)
	b.PrependUOffsetTSlot(rbNodes, nodes, 0)
	b.PrependUOffsetTSlot(rbBuffers, bufs, 0)
	b.PrependUOffsetTSlot(rbCompression, compression, 0)
	batch := b.EndObject()
	b.StartObject(5)
	b.PrependInt16Slot(msgVersion, metadataVersion5, 0)
	b.PrependByteSlot(msgHeaderType, headerRecord, 0)
	b.PrependUOffsetTSlot(msgHeader, batch, 0)
	b.PrependInt64Slot(msgBodyLength, int64(len(e.body)), 0)
	if meta != 0 {
		b.PrependUOffsetTSlot(msgCustomMeta, meta, 0)
	}
	b.Finish(b.EndObject())
	return b.FinishedBytes()
}

// structVector writes a vector of 16-byte structs (FieldNode, Buffer: two
// int64s each) given as their little-endian bytes.
func structVector(b *flatbuffers.Builder, raw []byte) flatbuffers.UOffsetT {
	n := len(raw) / 16
	b.StartVector(16, n, 8)
	for i := n - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PrependInt64(int64(binary.LittleEndian.Uint64(raw[16*i+8:])))
		b.PrependInt64(int64(binary.LittleEndian.Uint64(raw[16*i:])))
	}
	return b.EndVector(n)
}

// bodySum is the checksum of a batch as tressi stored it before the stream
// checksum replaced it: the schedule hash, the
// sequence number and row count, the RecordBatch's FieldNode and Buffer
// vectors as they appear in the message, its compression codec, the
// dictionaries' names (endpoints, then error kinds) and every byte of the
// compressed body. Unlike the content checksum (batchSum) it can be checked
// without decompressing anything, so a reader that decodes only some
// columns still checks the whole batch.
func bodySum(hash string, seq uint64, rows int, nodes, bufs []byte, codec int, dicts [2][]string, body []byte) uint32 {
	var head [17]byte
	binary.LittleEndian.PutUint64(head[:8], seq)
	binary.LittleEndian.PutUint64(head[8:16], uint64(rows))
	head[16] = byte(codec)
	c := crc32.Update(0, castagnoli, []byte(hash))
	c = crc32.Update(c, castagnoli, head[:])
	c = crc32.Update(c, castagnoli, nodes)
	c = crc32.Update(c, castagnoli, bufs)
	for _, names := range dicts {
		for _, n := range names {
			c = crc32.Update(c, castagnoli, []byte(n))
			c = crc32.Update(c, castagnoli, []byte{0})
		}
		c = crc32.Update(c, castagnoli, []byte{0xff})
	}
	return crc32.Update(c, castagnoli, body)
}

// checkBody compares a batch's body with its recorded body checksum.
func checkBody(want uint32, hash string, seq uint64, rows int, nodes, bufs []byte, codec int, dicts [2][]string, body []byte) error {
	if got := bodySum(hash, seq, rows, nodes, bufs, codec, dicts, body); got != want {
		return fmt.Errorf("%w: batch %d (%d rows) has body CRC-32C %08x, recorded %08x: the file was changed after it was written", ErrChecksum, seq, rows, got, want)
	}
	return nil
}
