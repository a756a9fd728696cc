package results

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// A zstd frame is a sequence of blocks, each of Huffman-coded literals and
// LZ77 sequences (copy this many literals, then a match at that offset).
// tressi's columns are little-endian integers whose high bytes repeat and
// whose low bytes are random: zstd's match finder then emits one sequence
// per value, and decoding a sequence costs about what decoding eight bytes
// of literals does. A frame of literals alone, Huffman-coded, holds the
// columns almost as small (the repeated high bytes cost a bit each) and
// decodes several times faster; it is plain zstd (RFC 8878), so every zstd
// decoder reads it.

// zstdBlockMax is the largest block zstd allows.
const zstdBlockMax = 128 << 10

// zstdMagic starts every zstd frame.
const zstdMagic = 0xFD2FB528

// literalFrame encodes src as one zstd frame of literal-only blocks.
type literalFrame struct {
	huff huff0.Scratch
}

// appendFrame appends src's frame to dst.
func (f *literalFrame) appendFrame(dst, src []byte) []byte {
	// Frame header: magic; a single segment (no window descriptor, so the
	// decoder sizes its buffer from the content size) with a 4-byte
	// content size (descriptor 0b10_1_00_0_00), no checksum: the batch's
	// own checksums cover the decoded bytes.
	dst = binary.LittleEndian.AppendUint32(dst, zstdMagic)
	if uint64(len(src)) > 1<<32-1 {
		panic("results: a column buffer over 4 GiB")
	}
	dst = append(dst, 0xA0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(src)))
	if len(src) == 0 {
		return appendBlockHeader(dst, true, blockRaw, 0)
	}
	for len(src) > 0 {
		n := min(len(src), zstdBlockMax)
		dst = f.appendBlock(dst, src[:n], n == len(src))
		src = src[n:]
	}
	return dst
}

// Block types (RFC 8878, 3.1.1.2) and the literals block type used here.
const (
	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2

	literalsCompressed = 2
)

func appendBlockHeader(dst []byte, last bool, typ, size int) []byte {
	h := uint32(size)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

func (f *literalFrame) appendBlock(dst, lits []byte, last bool) []byte {
	// Each block gets its own table (tables are small next to 128 KiB),
	// so any block decodes without its neighbours' state.
	f.huff.Reuse = huff0.ReusePolicyNone
	var out []byte
	err := huff0.ErrIncompressible
	single := len(lits) < 1024
	switch {
	case !single:
		out, _, err = huff0.Compress4X(lits, &f.huff)
	case len(lits) > 16:
		out, _, err = huff0.Compress1X(lits, &f.huff)
	}
	var lh []byte
	if err == nil {
		lh = literalsHeader(len(out), len(lits), single)
		if len(lh)+len(out)+1 >= len(lits) {
			err = huff0.ErrIncompressible
		}
	}
	switch {
	case errors.Is(err, huff0.ErrUseRLE):
		return append(appendBlockHeader(dst, last, blockRLE, len(lits)), lits[0])
	case err != nil: // incompressible (or too small to try): stored as is
		return append(appendBlockHeader(dst, last, blockRaw, len(lits)), lits...)
	}
	dst = appendBlockHeader(dst, last, blockCompressed, len(lh)+len(out)+1)
	dst = append(dst, lh...)
	dst = append(dst, out...)
	return append(dst, 0) // no sequences: the block is its literals
}

// literalsHeader is the header of a Huffman-coded literals section
// (RFC 8878, 3.1.1.3.1.1): the smallest size format that holds both sizes.
func literalsHeader(compLen, regenLen int, single bool) []byte {
	n := max(bits.Len32(uint32(compLen)), bits.Len32(uint32(regenLen)))
	h := uint64(literalsCompressed)
	switch {
	case n <= 10:
		if !single {
			h |= 1 << 2
		}
		h |= uint64(regenLen)<<4 | uint64(compLen)<<14
		return []byte{byte(h), byte(h >> 8), byte(h >> 16)}
	case n <= 14:
		h |= 2<<2 | uint64(regenLen)<<4 | uint64(compLen)<<18
		return []byte{byte(h), byte(h >> 8), byte(h >> 16), byte(h >> 24)}
	default: // blocks are at most 128 KiB: 18 bits hold both
		h |= 3<<2 | uint64(regenLen)<<4 | uint64(compLen)<<22
		return []byte{byte(h), byte(h >> 8), byte(h >> 16), byte(h >> 24), byte(h >> 32)}
	}
}
