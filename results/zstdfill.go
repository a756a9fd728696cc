package results

import "encoding/binary"

// A column that holds one value all batch long (connect_ns on kept-alive
// connections is zero in nearly every row) compresses to a zstd frame of
// RLE blocks: one byte, repeated for 128 KiB, block after block. The zstd
// decoder fills those a byte at a time, far slower than memclr, for a
// column that holds nothing (docs/archive.md, "Speed"). decodeFillFrame
// decodes the frames made of RLE and raw blocks alone, and leaves every
// other frame to the zstd decoder.

// decodeFillFrame decodes src, one zstd frame (RFC 8878) of raw and RLE
// blocks only, into dst, which must be exactly the frame's content size. It
// returns false, having written nothing, for any other frame: compressed
// blocks, a dictionary, a checksum unless skipChecksum, several frames, or
// a content size other than len(dst).
func decodeFillFrame(dst, src []byte, skipChecksum bool) bool {
	if len(src) < 6 || binary.LittleEndian.Uint32(src) != zstdMagic {
		return false
	}
	fhd := src[4]
	fcsFlag, single, checksum, dictFlag := fhd>>6, fhd&0x20 != 0, fhd&0x04 != 0, fhd&0x03
	if fhd&0x08 != 0 || dictFlag != 0 || (checksum && !skipChecksum) {
		return false
	}
	p := 5
	if !single {
		p++ // the window descriptor: a fill needs no window
	}
	var size uint64
	switch {
	case fcsFlag == 0 && !single:
		return false // no content size: the caller's size is unchecked
	case fcsFlag == 0 && len(src) > p:
		size, p = uint64(src[p]), p+1
	case fcsFlag == 1 && len(src) >= p+2:
		size, p = uint64(binary.LittleEndian.Uint16(src[p:]))+256, p+2
	case fcsFlag == 2 && len(src) >= p+4:
		size, p = uint64(binary.LittleEndian.Uint32(src[p:])), p+4
	case fcsFlag == 3 && len(src) >= p+8:
		size, p = binary.LittleEndian.Uint64(src[p:]), p+8
	default:
		return false
	}
	if size != uint64(len(dst)) {
		return false
	}
	trailer := 0
	if checksum {
		trailer = 4
	}
	// Every block header first, then the fills: a frame that turns out to
	// hold a compressed block costs no copies before zstd decodes it.
	if !fillBlocks(nil, src[p:], len(dst), trailer) {
		return false
	}
	return fillBlocks(dst, src[p:], len(dst), trailer)
}

// fillBlocks walks a frame's blocks (src from the first block header on),
// which must be raw or RLE and regenerate exactly n bytes, followed by
// trailer bytes and nothing else. With dst nil it only checks; otherwise
// it writes the n bytes to dst.
func fillBlocks(dst, src []byte, n, trailer int) bool {
	p, out := 0, 0
	for {
		if len(src) < p+3 {
			return false
		}
		h := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
		p += 3
		last, typ, size := h&1 != 0, int(h>>1)&3, int(h>>3)
		if size > zstdBlockMax || size > n-out {
			return false
		}
		switch typ {
		case blockRaw:
			if len(src) < p+size {
				return false
			}
			if dst != nil {
				copy(dst[out:], src[p:p+size])
			}
			p += size
		case blockRLE:
			if len(src) < p+1 {
				return false
			}
			if dst != nil {
				fill(dst[out:out+size], src[p])
			}
			p++
		default:
			return false
		}
		out += size
		if last {
			return out == n && p+trailer == len(src)
		}
	}
}

// fill sets every byte of b to v.
func fill(b []byte, v byte) {
	if v == 0 {
		clear(b)
		return
	}
	if len(b) == 0 {
		return
	}
	b[0] = v
	for k := 1; k < len(b); k *= 2 {
		copy(b[k:], b[:k])
	}
}
