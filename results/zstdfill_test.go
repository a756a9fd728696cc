package results

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestFillFrames: frames of RLE and raw blocks, as the results writer's
// literal frames hold constant columns (and zstd's encoder incompressible
// ones), decode to what the zstd decoder gives; every other frame is
// declined and left to it.
func TestFillFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	random, ints := randomBytes(rng, 300<<10), randomInts(rng, 8<<10)
	sparse := make([]byte, 64<<13) // connect_ns: zero but for a few opened connections
	binary.LittleEndian.PutUint64(sparse[200<<10:], 1_234_567)
	writer := newBatchEncoder() // the results writer's encoders
	var lf literalFrame
	literal := func(src []byte) []byte { return lf.appendFrame(nil, src) }
	withCRC, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		frame []byte
		src   []byte
		crc   bool
		taken bool // decoded here, not declined
	}{
		{"zeros, one block", literal(make([]byte, 1000)), make([]byte, 1000), false, true},
		{"zeros, 5 blocks", literal(make([]byte, 64<<13)), make([]byte, 64<<13), false, true},
		{"sevens", literal(bytes.Repeat([]byte{7}, 300<<10)), bytes.Repeat([]byte{7}, 300<<10), false, true},
		{"random, zstd's raw blocks", writer.zstd[0].EncodeAll(random, nil), random, false, true},
		{"zeros, zstd's RLE and match blocks", writer.zstd[0].EncodeAll(make([]byte, 64<<13), nil), make([]byte, 64<<13), false, false},
		{"zeros, one block, a checksum", withCRC.EncodeAll(make([]byte, 1000), nil), make([]byte, 1000), true, false},
		{"integers", literal(ints), ints, false, false},
		{"sparse", literal(sparse), sparse, false, false},
		{"sparse, zstd", writer.zstd[1].EncodeAll(sparse, nil), sparse, false, false},
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := dec.DecodeAll(c.frame, nil)
			if err != nil || !bytes.Equal(want, c.src) {
				t.Fatalf("zstd itself: %v", err)
			}
			got := make([]byte, len(c.src))
			if taken := decodeFillFrame(got, c.frame, false); taken != c.taken {
				t.Fatalf("taken = %v, want %v", taken, c.taken)
			}
			if c.taken && !bytes.Equal(got, want) {
				t.Fatal("decoded differently from zstd")
			}
			if c.crc && (!decodeFillFrame(got, c.frame, true) || !bytes.Equal(got, want)) {
				t.Fatal("a checksum the batch's own covers was not skipped")
			}
			if !c.taken {
				return
			}
			for _, size := range []int{len(c.src) - 1, len(c.src) + 1} {
				if decodeFillFrame(make([]byte, size), c.frame, false) {
					t.Errorf("taken into %d bytes of a %d-byte frame", size, len(c.src))
				}
			}
			if decodeFillFrame(got, c.frame[:len(c.frame)-1], false) || decodeFillFrame(got, append(c.frame, 0), false) {
				t.Error("a cut or extended frame was taken")
			}
		})
	}
}

// FuzzFillFrame: whatever decodeFillFrame takes, zstd's decoder decodes
// to the same bytes.
func FuzzFillFrame(f *testing.F) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	if err != nil {
		f.Fatal(err)
	}
	var lf literalFrame
	f.Add(lf.appendFrame(nil, make([]byte, 200<<10)), 200<<10)
	f.Add(lf.appendFrame(nil, bytes.Repeat([]byte{3}, 1000)), 1000)
	f.Add(enc.EncodeAll(make([]byte, 200<<10), nil), 200<<10)
	f.Add(enc.EncodeAll(bytes.Repeat([]byte{1, 1, 1, 2}, 100), nil), 400)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 5, 0x0b, 0, 0, 9}, 5)
	dec, err := zstd.NewReader(nil, zstd.IgnoreChecksum(true), zstd.WithDecoderMaxMemory(maxBodyLen))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, frame []byte, size int) {
		if size < 0 || size > 1<<22 {
			return
		}
		got := make([]byte, size)
		if !decodeFillFrame(got, frame, true) {
			return
		}
		want, err := dec.DecodeAll(frame, nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("taken (%d bytes) but zstd says %v (%d bytes)", size, err, len(want))
		}
	})
}
