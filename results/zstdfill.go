package results

import "encoding/binary"

// A column that holds one value all batch long (connect_ns on kept-alive
// connections is zero in nearly every row) compresses to a zstd frame of
// RLE blocks: one byte, repeated for 128 KiB, block after block. The zstd
// decoder fills those a byte at a time, ten times slower than memclr; such a
// frame is about a sixth of a report's decoding on 10M rows while holding
// nothing. decodeFillFrame decodes the frames made of RLE and raw blocks
// alone, and leaves every other frame to the zstd decoder.

const zstdMagic = 0xFD2FB528

// decodeFillFrame decodes src, one zstd frame (RFC 8878) of raw and RLE
// blocks only, into dst, which must be exactly the frame's content size. It
// returns false, having written nothing a caller may rely on, for any
// other frame: compressed blocks, a dictionary, a checksum unless
// skipChecksum, several frames, or a content size other than len(dst).
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
	fcsLen := [4]int{0, 2, 4, 8}[fcsFlag]
	if fcsFlag == 0 && single {
		fcsLen = 1
	}
	if fcsLen == 0 || len(src) < p+fcsLen {
		return false // no content size: the caller's size is unchecked
	}
	var size uint64
	switch fcsLen {
	case 1:
		size = uint64(src[p])
	case 2:
		size = uint64(binary.LittleEndian.Uint16(src[p:])) + 256
	case 4:
		size = uint64(binary.LittleEndian.Uint32(src[p:]))
	case 8:
		size = binary.LittleEndian.Uint64(src[p:])
	}
	p += fcsLen
	if size != uint64(len(dst)) {
		return false
	}
	out := 0
	for {
		if len(src) < p+3 {
			return false
		}
		h := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
		p += 3
		last, typ, n := h&1 != 0, (h>>1)&3, int(h>>3)
		if n > zstdBlockMax || n > len(dst)-out {
			return false
		}
		switch typ {
		case 0: // raw
			if len(src) < p+n {
				return false
			}
			copy(dst[out:], src[p:p+n])
			p += n
		case 1: // RLE
			if len(src) < p+1 {
				return false
			}
			fill(dst[out:out+n], src[p])
			p++
		default:
			return false
		}
		out += n
		if last {
			break
		}
	}
	if checksum {
		p += 4
	}
	return out == len(dst) && p == len(src)
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
