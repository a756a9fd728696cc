package h2

import (
	"bytes"

	"golang.org/x/net/http2/hpack"
)

// blockMemo remembers the last header block of a connection that decodes
// the same whatever the dynamic table holds, with its fields, so the same
// bytes again are answered without decoding them. Servers repeat their
// responses' blocks byte for byte: nginx sends every field as a literal
// (with incremental indexing, so each one is Huffman-decoded and inserted
// into the table) and changes the block once a second, with the date.
// Decoding was about 15% of a closed HTTP/2 run's CPU against it.
//
// The decoder's table must still end as if it had decoded every block:
// the blocks skipped are owed to it, and replayed into it before it
// decodes anything else (catchUp). Each replay inserts the block's
// entries, so after a table's worth of them older entries no longer
// matter: at most maxReplays are replayed, however many were skipped.
type blockMemo struct {
	scratch *hpack.Decoder // empty table: proves a block self-contained
	block   []byte
	fields  []hpack.HeaderField
	learned []hpack.HeaderField // scratch's output
	owed    int
	ok      bool // block and fields hold a self-contained block
	// A server whose blocks refer to its earlier ones (Go's, h2o's) never
	// sends a self-contained one: after each failure to learn, the next
	// backoff blocks (1, 2, 4 … 1024) are not tried.
	skip, backoff int
}

// maxReplays: each replay inserts at least one entry of at least 32 bytes
// (RFC 7541 §4.1), or none at all, in which case replays change nothing.
const maxReplays = headerTableSize/32 + 1

// recall returns the fields of p if p is the memo's block, and counts it
// owed to the decoder.
func (m *blockMemo) recall(p []byte) ([]hpack.HeaderField, bool) {
	if !m.ok || !bytes.Equal(p, m.block) {
		return nil, false
	}
	m.owed++
	return m.fields, true
}

// catchUp replays the skipped blocks into d, emitting nothing, so its
// table is what it would be had it decoded them; then d emits if emit.
func (m *blockMemo) catchUp(d *hpack.Decoder, emit bool) error {
	if m.owed == 0 {
		return nil
	}
	n := min(m.owed, maxReplays)
	m.owed = 0
	d.SetEmitEnabled(false)
	defer d.SetEmitEnabled(emit)
	for range n {
		if _, err := d.Write(m.block); err != nil {
			return err
		}
		if err := d.Close(); err != nil {
			return err
		}
	}
	return nil
}

// learn is told of each whole block the decoder has just decoded without
// error. It decodes p again with an empty table. If that works too, p
// refers to no entry it did not insert itself, so it decodes to the same
// fields whatever the table held before: it becomes the memo's block. If
// not, the memo is forgotten.
func (m *blockMemo) learn(p []byte) {
	m.ok = false
	if m.skip > 0 {
		m.skip--
		return
	}
	if m.scratch == nil {
		m.scratch = hpack.NewDecoder(headerTableSize, func(f hpack.HeaderField) { m.learned = append(m.learned, f) })
		m.scratch.SetMaxStringLength(maxHeaderBlock)
	}
	// A table of size 0 evicts everything; then back to the size the
	// connection's decoder starts with.
	m.scratch.SetMaxDynamicTableSize(0)
	m.scratch.SetMaxDynamicTableSize(headerTableSize)
	m.learned = m.learned[:0]
	_, err := m.scratch.Write(p)
	if err2 := m.scratch.Close(); err == nil {
		err = err2
	}
	if err != nil {
		m.backoff = min(max(2*m.backoff, 1), 1024)
		m.skip = m.backoff
		return
	}
	m.backoff = 0
	m.block = append(m.block[:0], p...)
	m.fields, m.learned = m.learned, m.fields[:0]
	m.ok = true
}
