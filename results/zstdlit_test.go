package results

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"pgregory.net/rapid"
)

// TestLiteralFramesDecode: literal frames of every size class (empty, raw,
// one Huffman stream, four, several blocks) and kind of data (random,
// constant, integers) decode to what was encoded with an independent zstd
// decoder, frame checksum or not.
func TestLiteralFramesDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte { return randomBytes(rng, n) }
	ints := func(n int) []byte { return randomInts(rng, n) }
	cases := map[string][]byte{
		"empty":            {},
		"one byte":         {7},
		"16 bytes":         random(16)[:16],
		"17 constant":      bytes.Repeat([]byte{9}, 17),
		"1023 ints":        ints(1023 / 8),
		"1024 ints":        ints(128),
		"random 4 KiB":     random(4096),
		"constant 200 KiB": bytes.Repeat([]byte{1}, 200<<10),
		"one block":        ints(zstdBlockMax / 8),
		"block plus one":   append(ints(zstdBlockMax/8), 5),
		"64K latencies":    ints(64 << 10),
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var f literalFrame
	for name, src := range cases {
		frame := f.appendFrame([]byte("prefix"), src)
		if string(frame[:6]) != "prefix" {
			t.Fatalf("%s: the prefix was overwritten", name)
		}
		got, err := dec.DecodeAll(frame[6:], nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%s: decoded %d bytes of %d: %v", name, len(got), len(src), err)
		}
		if len(src) > 4096 && name != "random 4 KiB" && len(frame) > len(src)*3/4 {
			t.Errorf("%s: %d bytes in a frame of %d", name, len(src), len(frame))
		}
	}
}

func TestLiteralFramesDecodeProperty(t *testing.T) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var f literalFrame
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300<<10).Draw(t, "n")
		alphabet := rapid.IntRange(1, 256).Draw(t, "alphabet")
		seed := rapid.Uint64().Draw(t, "seed")
		rng := rand.New(rand.NewPCG(seed, 3))
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.IntN(alphabet))
		}
		got, err := dec.DecodeAll(f.appendFrame(nil, src), nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("decoded %d bytes of %d: %v", len(got), n, err)
		}
	})
}

// randomBytes is n bytes of rng's.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// randomInts is n little-endian uint64s below 5M: a column of latencies.
func randomInts(rng *rand.Rand, n int) []byte {
	b := make([]byte, 0, n*8)
	for range n {
		b = binary.LittleEndian.AppendUint64(b, uint64(rng.IntN(5_000_000)))
	}
	return b
}
