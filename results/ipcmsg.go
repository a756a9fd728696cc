package results

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tressi/tressi/ipcguard"
)

// The fast reader parses the few IPC flatbuffer tables a results stream
// holds (Message, RecordBatch, DictionaryBatch, the schema's dictionary
// ids) itself, so it can decompress buffers with decoders it keeps, on
// several cores: arrow-go builds (and tears down) a zstd decoder for every
// batch, which was most of a report's time. Field slots are those of
// Arrow's Message.fbs and Schema.fbs.
const (
	msgHeaderType = 1
	msgHeader     = 2
	msgBodyLength = 3
	msgCustomMeta = 4

	headerSchema     = 1
	headerDictionary = 2
	headerRecord     = 3

	rbLength      = 0
	rbNodes       = 1
	rbBuffers     = 2
	rbCompression = 3

	dictID     = 0
	dictData   = 1
	dictIsDelt = 2

	schemaEndianness = 0
	schemaFields     = 1
	fieldDictionary  = 4
	dictEncodingID   = 0

	codecLZ4  = 0
	codecZstd = 1
	codecNone = -1
)

// Limits on what one message may claim: far above any batch tressi writes,
// far below what would exhaust the machine.
const (
	maxMetaLen = 64 << 20
	maxBodyLen = 1 << 30
)

func fbSlot(i int) flatbuffers.VOffsetT { return flatbuffers.VOffsetT(4 + 2*i) }

// rawMessage is one framed IPC message: its length prefix (with the
// continuation marker when there is one) as read, its flatbuffer metadata
// (padding included) and body.
type rawMessage struct {
	prefix []byte
	meta   []byte
	body   []byte
}

// readMessage reads the next framed message from br, reusing body's
// storage. It returns io.EOF at an end-of-stream marker or a clean end.
func readMessage(br *bufio.Reader, body []byte) (m rawMessage, err error) {
	var head [8]byte
	if _, err := io.ReadFull(br, head[:4]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return m, fmt.Errorf("%w: a message cut short", ipcguard.ErrDamaged)
		}
		return m, err // io.EOF: a stream whose writer never wrote the end marker
	}
	m.prefix = head[:4]
	n := binary.LittleEndian.Uint32(head[:4])
	if n == 0xFFFFFFFF {
		if _, err := io.ReadFull(br, head[4:]); err != nil {
			return m, fmt.Errorf("%w: a message length cut short", ipcguard.ErrDamaged)
		}
		m.prefix = head[:]
		n = binary.LittleEndian.Uint32(head[4:])
	}
	if n == 0 {
		return m, endOfStream(br)
	}
	if n < 8 || n > maxMetaLen {
		return m, fmt.Errorf("%w: message metadata of %d bytes", ipcguard.ErrDamaged, n)
	}
	m.meta = make([]byte, n)
	if _, err := io.ReadFull(br, m.meta); err != nil {
		return m, fmt.Errorf("%w: message metadata cut short", ipcguard.ErrDamaged)
	}
	bodyLen, err := messageBodyLen(m.meta)
	if err != nil {
		return m, err
	}
	if cap(body) < int(bodyLen) {
		body = make([]byte, bodyLen)
	}
	m.body = body[:bodyLen]
	if _, err := io.ReadFull(br, m.body); err != nil {
		return m, fmt.Errorf("%w: a message body of %d bytes cut short", ipcguard.ErrDamaged, bodyLen)
	}
	return m, nil
}

func messageTable(meta []byte) flatbuffers.Table {
	return flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
}

func messageBodyLen(meta []byte) (n int64, err error) {
	defer ipcguard.Recover(&err)
	t := messageTable(meta)
	n = t.GetInt64Slot(fbSlot(msgBodyLength), 0)
	if n < 0 || n > maxBodyLen {
		return 0, fmt.Errorf("%w: a message body of %d bytes", ipcguard.ErrDamaged, n)
	}
	return n, nil
}

// messageHeader returns the message's header type and table.
func messageHeader(meta []byte) (typ byte, hdr flatbuffers.Table, err error) {
	defer ipcguard.Recover(&err)
	t := messageTable(meta)
	typ = t.GetByteSlot(fbSlot(msgHeaderType), 0)
	o := flatbuffers.UOffsetT(t.Offset(fbSlot(msgHeader)))
	if o == 0 {
		return 0, hdr, fmt.Errorf("%w: a message without a header", ipcguard.ErrDamaged)
	}
	t.Union(&hdr, o)
	return typ, hdr, nil
}

// messageMetadata returns a message's custom metadata as keys and values.
func messageMetadata(meta []byte) (keys, values []string, err error) {
	defer ipcguard.Recover(&err)
	t := messageTable(meta)
	o := flatbuffers.UOffsetT(t.Offset(fbSlot(msgCustomMeta)))
	if o == 0 {
		return nil, nil, nil
	}
	vec, n := t.Vector(o), t.VectorLen(o)
	if n < 0 || n*4 > len(meta) {
		return nil, nil, fmt.Errorf("%w: %d metadata entries in a %d-byte message", ipcguard.ErrDamaged, n, len(meta))
	}
	for i := 0; i < n; i++ {
		kv := flatbuffers.Table{Bytes: meta, Pos: t.Indirect(vec + flatbuffers.UOffsetT(i*4))}
		keys = append(keys, tableString(&kv, 0))
		values = append(values, tableString(&kv, 1))
	}
	return keys, values, nil
}

// metadataValueAt returns where the value of custom metadata key lies in
// meta (the offset of its first byte and its length); ok is false when the
// message has no such key.
func metadataValueAt(meta []byte, key string) (at, n int, ok bool, err error) {
	defer ipcguard.Recover(&err)
	t := messageTable(meta)
	o := flatbuffers.UOffsetT(t.Offset(fbSlot(msgCustomMeta)))
	if o == 0 {
		return 0, 0, false, nil
	}
	vec, count := t.Vector(o), t.VectorLen(o)
	if count < 0 || count*4 > len(meta) {
		return 0, 0, false, fmt.Errorf("%w: %d metadata entries in a %d-byte message", ipcguard.ErrDamaged, count, len(meta))
	}
	for i := 0; i < count; i++ {
		kv := flatbuffers.Table{Bytes: meta, Pos: t.Indirect(vec + flatbuffers.UOffsetT(i*4))}
		if tableString(&kv, 0) != key {
			continue
		}
		vo := flatbuffers.UOffsetT(kv.Offset(fbSlot(1)))
		if vo == 0 {
			return 0, 0, false, nil
		}
		s := kv.Indirect(vo + kv.Pos) // the string: its length, then its bytes
		n := int(flatbuffers.GetUint32(meta[s:]))
		if int(s)+4+n > len(meta) {
			return 0, 0, false, fmt.Errorf("%w: metadata %s runs past its message", ipcguard.ErrDamaged, key)
		}
		return int(s) + 4, n, true, nil
	}
	return 0, 0, false, nil
}

func tableString(t *flatbuffers.Table, s int) string {
	o := flatbuffers.UOffsetT(t.Offset(fbSlot(s)))
	if o == 0 {
		return ""
	}
	return t.String(o + t.Pos)
}

// bufRef is one buffer of a record batch body.
type bufRef struct{ offset, length int64 }

// recordBatch is a RecordBatch table read out.
type recordBatch struct {
	length  int64
	nodes   []int64 // each field node's length
	buffers []bufRef
	codec   int
	// rawNodes and rawBuffers are the FieldNode and Buffer vectors as they
	// appear in the message, for the body checksum.
	rawNodes, rawBuffers []byte
}

func readRecordBatch(t flatbuffers.Table, bodyLen int) (rb recordBatch, err error) {
	defer ipcguard.Recover(&err)
	rb.length = t.GetInt64Slot(fbSlot(rbLength), 0)
	if o := flatbuffers.UOffsetT(t.Offset(fbSlot(rbNodes))); o != 0 {
		vec, n := t.Vector(o), t.VectorLen(o)
		if n < 0 || n*16 > len(t.Bytes) {
			return rb, fmt.Errorf("%w: %d field nodes in a %d-byte message", ipcguard.ErrDamaged, n, len(t.Bytes))
		}
		for i := 0; i < n; i++ {
			rb.nodes = append(rb.nodes, int64(binary.LittleEndian.Uint64(t.Bytes[vec+flatbuffers.UOffsetT(16*i):])))
		}
		rb.rawNodes = t.Bytes[vec : vec+flatbuffers.UOffsetT(16*n)]
	}
	if o := flatbuffers.UOffsetT(t.Offset(fbSlot(rbBuffers))); o != 0 {
		vec, n := t.Vector(o), t.VectorLen(o)
		if n < 0 || n*16 > len(t.Bytes) {
			return rb, fmt.Errorf("%w: %d buffers in a %d-byte message", ipcguard.ErrDamaged, n, len(t.Bytes))
		}
		for i := 0; i < n; i++ {
			p := t.Bytes[vec+flatbuffers.UOffsetT(16*i):]
			b := bufRef{int64(binary.LittleEndian.Uint64(p)), int64(binary.LittleEndian.Uint64(p[8:]))}
			if b.offset < 0 || b.length < 0 || b.offset > int64(bodyLen) || b.length > int64(bodyLen)-b.offset {
				return rb, fmt.Errorf("%w: buffer %d at %d+%d outside a %d-byte body", ipcguard.ErrDamaged, i, b.offset, b.length, bodyLen)
			}
			rb.buffers = append(rb.buffers, b)
		}
		rb.rawBuffers = t.Bytes[vec : vec+flatbuffers.UOffsetT(16*n)]
	}
	rb.codec = codecNone
	if o := flatbuffers.UOffsetT(t.Offset(fbSlot(rbCompression))); o != 0 {
		var c flatbuffers.Table
		c.Bytes, c.Pos = t.Bytes, t.Indirect(o+t.Pos)
		rb.codec = int(c.GetInt8Slot(fbSlot(0), codecLZ4))
	}
	if rb.length < 0 || rb.length > maxBodyLen {
		return rb, fmt.Errorf("%w: a batch of %d rows", ipcguard.ErrDamaged, rb.length)
	}
	return rb, nil
}

// dictionaryBatch is a DictionaryBatch table read out.
type dictionaryBatch struct {
	id      int64
	data    recordBatch
	isDelta bool
}

func readDictionaryBatch(t flatbuffers.Table, bodyLen int) (db dictionaryBatch, err error) {
	defer ipcguard.Recover(&err)
	db.id = t.GetInt64Slot(fbSlot(dictID), 0)
	db.isDelta = t.GetBoolSlot(fbSlot(dictIsDelt), false)
	o := flatbuffers.UOffsetT(t.Offset(fbSlot(dictData)))
	if o == 0 {
		return db, fmt.Errorf("%w: a dictionary batch without data", ipcguard.ErrDamaged)
	}
	var data flatbuffers.Table
	data.Bytes, data.Pos = t.Bytes, t.Indirect(o+t.Pos)
	db.data, err = readRecordBatch(data, bodyLen)
	return db, err
}

// schemaLayout is what the fast reader needs from the schema message beyond
// what arrow-go's schema gives: byte order and each field's dictionary id.
type schemaLayout struct {
	littleEndian bool
	dictIDs      []int64 // -1 for a field without a dictionary
}

func readSchemaLayout(meta []byte) (sl schemaLayout, err error) {
	defer ipcguard.Recover(&err)
	typ, s, err := messageHeader(meta)
	if err != nil {
		return sl, err
	}
	if typ != headerSchema {
		return sl, fmt.Errorf("%w: the first message is not a schema", ipcguard.ErrDamaged)
	}
	sl.littleEndian = s.GetInt16Slot(fbSlot(schemaEndianness), 0) == 0
	o := flatbuffers.UOffsetT(s.Offset(fbSlot(schemaFields)))
	if o == 0 {
		return sl, nil
	}
	vec, n := s.Vector(o), s.VectorLen(o)
	for i := 0; i < n; i++ {
		f := flatbuffers.Table{Bytes: meta, Pos: s.Indirect(vec + flatbuffers.UOffsetT(i*4))}
		id := int64(-1)
		if d := flatbuffers.UOffsetT(f.Offset(fbSlot(fieldDictionary))); d != 0 {
			var de flatbuffers.Table
			de.Bytes, de.Pos = meta, f.Indirect(d+f.Pos)
			id = de.GetInt64Slot(fbSlot(dictEncodingID), 0)
		}
		sl.dictIDs = append(sl.dictIDs, id)
	}
	return sl, nil
}

// maxTrailer bounds what may follow the end-of-stream marker: the file
// format's footer (a few bytes per batch) and its magic.
const maxTrailer = 16 << 20

// endOfStream checks what follows an end-of-stream marker: nothing (the
// stream format) or the file format's footer ending in its magic. Anything
// else means a damaged length read as the marker, which would otherwise end
// the file early without a word.
func endOfStream(br *bufio.Reader) error {
	rest, err := io.ReadAll(io.LimitReader(br, maxTrailer+1))
	if err != nil {
		return fmt.Errorf("%w: reading past the end-of-stream marker: %v", ipcguard.ErrDamaged, err)
	}
	if len(rest) == 0 || (len(rest) <= maxTrailer && bytes.HasSuffix(rest, []byte("ARROW1"))) {
		return io.EOF
	}
	return fmt.Errorf("%w: %d bytes follow the end-of-stream marker (a damaged message length?)", ipcguard.ErrDamaged, len(rest))
}
