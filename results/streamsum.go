package results

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The stream checksum closes what the body checksum (bodySum) left open.
// The body checksum covers a batch's body and the few fields of its
// metadata a reader of tressi's columns uses; yet every byte of an IPC
// message means something to some Arrow reader: the schema's metadata
// (run id, plan name, expected statuses), the message version, the batch's
// custom metadata, the dictionaries' messages. A byte flipped there read
// back differently without a word. So a batch tressi writes carries a
// CRC-32C of every byte of the file from where the previous batch carrying
// one ended (the start of the file, for the first) to the end of its own
// body: the schema, the dictionaries and the empty first batch are covered
// by the first data batch, each later batch by itself. The checksum's own
// eight hex digits count as "00000000" (they cannot cover themselves); they
// must read back exactly as written, so a change to them fails it too.
// The schedule hash, the sequence number and the dictionaries' names
// follow, as in the body checksum, so a batch moved from another run, or
// from elsewhere in this one, still fails it when nothing else is read.
//
// After the last batch comes only the end-of-stream marker, which the
// reader checks is exactly that (endOfStream): no byte of a file tressi
// wrote is left that can change without a reader of it noticing.

// KeyStreamSum is the batch metadata key of the stream checksum.
const KeyStreamSum = "tressi.stream_crc32c"

// sumPlaceholder is what the checksum's own digits count as.
const sumPlaceholder = "00000000"

// streamSum is the stream checksum of one batch. pending is the CRC-32C of
// the bytes before the batch's message that it covers (0 for none); prefix,
// meta and body are the message as stored; at is where the checksum's own
// eight digits lie in meta.
func streamSum(pending uint32, prefix, meta []byte, at int, body []byte, hash string, seq uint64, dicts [2][]string) uint32 {
	c := crc32.Update(pending, castagnoli, prefix)
	c = crc32.Update(c, castagnoli, meta[:at])
	c = crc32.Update(c, castagnoli, []byte(sumPlaceholder))
	c = crc32.Update(c, castagnoli, meta[at+len(sumPlaceholder):])
	c = crc32.Update(c, castagnoli, body)
	c = crc32.Update(c, castagnoli, []byte(hash))
	var seqLE [8]byte
	binary.LittleEndian.PutUint64(seqLE[:], seq)
	c = crc32.Update(c, castagnoli, seqLE[:])
	for _, names := range dicts {
		for _, n := range names {
			c = crc32.Update(c, castagnoli, []byte(n))
			c = crc32.Update(c, castagnoli, []byte{0})
		}
		c = crc32.Update(c, castagnoli, []byte{0xff})
	}
	return c
}

// messageSum continues pending over a whole message as stored.
func messageSum(pending uint32, m rawMessage) uint32 {
	c := crc32.Update(pending, castagnoli, m.prefix)
	c = crc32.Update(c, castagnoli, m.meta)
	return crc32.Update(c, castagnoli, m.body)
}

// checkStream checks a batch message against its stream checksum. seq is
// the batch's place in the stream; pending covers what came before it.
func checkStream(pending uint32, m rawMessage, hash string, seq uint64, rows int, dicts [2][]string) error {
	at, n, ok, err := metadataValueAt(m.meta, KeyStreamSum)
	if err != nil {
		return err
	}
	if !ok || n != len(sumPlaceholder) {
		return fmt.Errorf("%w: batch %d: %s is not eight hex digits", ErrChecksum, seq, KeyStreamSum)
	}
	recorded := string(m.meta[at : at+n])
	got := streamSum(pending, m.prefix, m.meta, at, m.body, hash, seq, dicts)
	// Compared as text: "ABCDEF01" would parse as the same number but is
	// not the byte the writer wrote.
	if formatSum(got) != recorded {
		return fmt.Errorf("%w: batch %d (%d rows) has stream CRC-32C %08x, recorded %q: the file was changed after it was written", ErrChecksum, seq, rows, got, recorded)
	}
	return nil
}

// checkStreamed applies the stream checksum to batch seq, message m, as
// both readers (the fast one and arrow-go's) must: a batch that carries one
// is checked against it; in a file that promises them (streamed) every
// batch after the empty first one, which the next covers, must carry one.
// pending covers what came before m.
func (bc batchCheck) checkStreamed(streamed bool, pending uint32, m rawMessage, hash string, seq uint64, rows int, dicts [2][]string) error {
	switch {
	case bc.hasStream:
		if err := bc.checkSeq(seq); err != nil {
			return err
		}
		return checkStream(pending, m, hash, seq, rows, dicts)
	case streamed && seq > 0:
		return fmt.Errorf("%w: batch %d has no %s, which every batch after the first of this file carries", ErrChecksum, seq, KeyStreamSum)
	}
	return nil
}
