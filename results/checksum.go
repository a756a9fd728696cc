package results

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
)

// Every record batch tressi writes carries, in its message's custom
// metadata, its sequence number in the stream and a CRC-32C of its contents:
// the schedule hash, the sequence number, the row count, each column's
// values as written (dictionary columns as their indices) and the names the
// dictionaries map them to. A flipped byte that still decompresses (zstd's
// own checksum covers only its frame) and a batch moved from another run or
// another place in this one both fail it. CRC-32C runs at memory speed on
// current CPUs, so checking costs the report nothing it would notice.
const (
	KeyBatchSeq = "tressi.batch_seq"
	KeyBatchSum = "tressi.batch_crc32c"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// batchSum is the checksum of one batch. cols are the raw little-endian
// values of the ten contract columns in contract order, in the writer's
// types (uint64, uint16 indices, int64 ×4, uint16, uint8 indices, uint32 ×2).
//
// extra are the optional columns the file has, in schema order (connect_ns),
// hashed after the ten; a file without them hashes as before they existed.
func batchSum(hash string, seq uint64, rows int, cols *[10][]byte, endpoints, errs []string, extra ...[]byte) uint32 {
	var head [16]byte
	binary.LittleEndian.PutUint64(head[:8], seq)
	binary.LittleEndian.PutUint64(head[8:], uint64(rows))
	c := crc32.Update(0, castagnoli, []byte(hash))
	c = crc32.Update(c, castagnoli, head[:])
	for _, col := range cols {
		c = crc32.Update(c, castagnoli, col)
	}
	for _, col := range extra {
		c = crc32.Update(c, castagnoli, col)
	}
	for _, names := range [2][]string{endpoints, errs} {
		for _, n := range names {
			c = crc32.Update(c, castagnoli, []byte(n))
			c = crc32.Update(c, castagnoli, []byte{0})
		}
		c = crc32.Update(c, castagnoli, []byte{0xff})
	}
	return c
}

// batchCheck is what a batch's metadata says about it; ok is false for a
// batch written without a checksum (an older tressi or another writer).
type batchCheck struct {
	seq uint64
	sum uint32
	ok  bool
	// body is the body checksum (bodySum), which batches written by
	// tressi's own batch writer carry beside sum; hasBody says it is there.
	body    uint32
	hasBody bool
	// hasStream says the batch carries the stream checksum (streamsum.go),
	// which batches of current tressi carry instead of the body checksum.
	hasStream bool
}

func parseBatchCheck(keys, values []string) (batchCheck, error) {
	var bc batchCheck
	var haveSeq, haveSum bool
	for i, k := range keys {
		switch k {
		case KeyBatchSeq:
			v, err := strconv.ParseUint(values[i], 10, 64)
			if err != nil {
				return bc, fmt.Errorf("batch metadata %s=%q is not a number", k, values[i])
			}
			bc.seq, haveSeq = v, true
		case KeyBatchSum:
			v, err := strconv.ParseUint(values[i], 16, 32)
			if err != nil {
				return bc, fmt.Errorf("batch metadata %s=%q is not a CRC-32C in hex", k, values[i])
			}
			bc.sum, haveSum = uint32(v), true
		case KeyBodySum:
			v, err := strconv.ParseUint(values[i], 16, 32)
			if err != nil {
				return bc, fmt.Errorf("batch metadata %s=%q is not a CRC-32C in hex", k, values[i])
			}
			bc.body, bc.hasBody = uint32(v), true
		case KeyStreamSum:
			// Checked as text against the bytes it covers (checkStream).
			bc.hasStream = true
		}
	}
	if haveSeq != haveSum {
		return bc, fmt.Errorf("batch metadata has only one of %s and %s", KeyBatchSeq, KeyBatchSum)
	}
	if bc.hasBody && !haveSeq {
		return bc, fmt.Errorf("batch metadata has %s without %s", KeyBodySum, KeyBatchSeq)
	}
	if bc.hasStream && !haveSeq {
		return bc, fmt.Errorf("batch metadata has %s without %s", KeyStreamSum, KeyBatchSeq)
	}
	bc.ok = haveSeq
	return bc, nil
}

// ErrChecksum is wrapped by the error for a batch whose contents do not
// match its checksum or sequence number.
var ErrChecksum = fmt.Errorf("a batch does not match its checksum")

// check compares a batch read back with its recorded checksum; want is the
// sequence number the batch must have (its place in the stream).
func (bc batchCheck) check(hash string, want uint64, rows int, cols *[10][]byte, endpoints, errs []string, extra ...[]byte) error {
	if err := bc.checkSeq(want); err != nil {
		return err
	}
	if got := batchSum(hash, want, rows, cols, endpoints, errs, extra...); got != bc.sum {
		return fmt.Errorf("%w: batch %d (%d rows) has CRC-32C %08x, recorded %08x: the file was changed after it was written", ErrChecksum, want, rows, got, bc.sum)
	}
	return nil
}

// checkSeq says whether the batch's recorded sequence number is want, its
// place in the stream.
func (bc batchCheck) checkSeq(want uint64) error {
	if bc.seq != want {
		return fmt.Errorf("%w: batch %d says it is batch %d of its run (batches lost, repeated or moved)", ErrChecksum, want, bc.seq)
	}
	return nil
}

func formatSum(sum uint32) string { return fmt.Sprintf("%08x", sum) }
