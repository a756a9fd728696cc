package results

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A weighing keeps the second encoding only on its terms (it saves the
// handicap, and a byte per matchRowsPerByte rows), and what it appends
// decodes to the column, whichever won.
func TestWeighColumnKeepsTheWinner(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const rows = 4096
	ints := func(f func(i int) uint64) []byte {
		b := make([]byte, 0, rows*8)
		for i := range rows {
			b = append(b, asBytes([]uint64{f(i)})...)
		}
		return b
	}
	at := uint64(1e12)
	columns := map[string][]byte{
		"constant":         ints(func(int) uint64 { return 200 }),
		"spread out":       ints(func(int) uint64 { return rng.Uint64N(5e6) }),
		"climbing":         ints(func(i int) uint64 { return 1e12 + uint64(i)*50_000 }),
		"climbing, noisy":  ints(func(i int) uint64 { at += 10_000 + rng.Uint64N(300_000); return at }),
		"random bytes":     ints(func(int) uint64 { return rng.Uint64() }),
		"mostly one value": ints(func(i int) uint64 { return map[bool]uint64{true: 500, false: 200}[i%97 == 0] }),
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	e := newBatchEncoder()
	for name, col := range columns {
		for _, codec := range []columnCodec{codecFastMatches, codecLevels, codecWeighed} {
			out, p := e.weighColumn(nil, codec, rows, col)
			got := out[8:]
			if n := int64(binary.LittleEndian.Uint64(out)); n != -1 {
				if got, err = dec.DecodeAll(got, nil); err != nil || n != int64(len(col)) {
					t.Fatalf("%s, codec %d: %v (length %d of %d)", name, codec, err, n, len(col))
				}
			}
			if !bytes.Equal(got, col) {
				t.Fatalf("%s, codec %d: the buffer does not decode to the column", name, codec)
			}
			size := func(p pick) int { return min(len(e.frame(nil, p, col)), len(col)) }
			switch codec {
			case codecFastMatches:
				if p != pickFast {
					t.Errorf("%s: codecFastMatches picked %d", name, p)
				}
			case codecLevels:
				fast, def := size(pickFast), size(pickDefault)
				if wantDefault := float64(fast-def) >= levelHandicap*float64(fast) && (fast-def)*matchRowsPerByte >= rows; (p == pickDefault) != wantDefault {
					t.Errorf("%s: levels picked %d with %d bytes fast, %d default", name, p, fast, def)
				}
			case codecWeighed:
				lit, fast := size(pickLiteral), size(pickFast)
				if wantFast := float64(lit-fast) >= literalHandicap*float64(lit) && (lit-fast)*matchRowsPerByte >= rows; (p == pickFast) != wantFast {
					t.Errorf("%s: weighed picked %d with %d bytes literal, %d fast", name, p, lit, fast)
				}
			}
		}
	}
}

// Between weighings a column keeps the last verdict, and a column that
// changes character is weighed again within reweighEvery batches; every
// row reads back whatever each batch was written with.
func TestWeighingFollowsAChangeOfCharacter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const batch = 2048
	var rows []Row
	for i := range 3 * reweighEvery * batch {
		r := Row{Slot: uint64(i), Scheduled: int64(i) * 20_000, Sent: int64(i)*20_000 + 5_000, Latency: 80_000, Service: 75_000, // lag 5 µs
			Status: 200, BytesOut: 40, BytesIn: 150}
		if i >= reweighEvery*batch+batch/2 { // from the middle of batch reweighEvery on, a server answering at random
			r.Service = rng.Int64N(5e6)
			r.Latency = r.Service + 5_000 // service_ns is derived: latency − (sent − scheduled)
			r.BytesIn, r.Status = uint32(rng.IntN(1<<16)), uint16(200+rng.IntN(300))
		}
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testMeta, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	latency := slices.Index(w.ids, colLatency)
	var picks []pick
	for i := 0; i < len(rows); i += batch {
		if err := w.Write(rows[i : i+batch]); err != nil {
			t.Fatal(err)
		}
		picks = append(picks, w.enc.picks[latency])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Steady latencies: matches. Spread out from batch reweighEvery on:
	// the verdict stands until the next weighing, then literals.
	for i, p := range picks {
		want := pickFast
		if i >= 2*reweighEvery {
			want = pickLiteral
		}
		if p != want {
			t.Fatalf("latency's encoding by batch: %v, want matches until batch %d, literals from it", picks, 2*reweighEvery)
		}
	}
	got := readAll(t, buf.Bytes())
	if len(got) != len(rows) {
		t.Fatalf("%d rows read back of %d", len(got), len(rows))
	}
	for i := range rows {
		if got[i] != rows[i] {
			t.Fatalf("row %d: %+v, wrote %+v", i, got[i], rows[i])
		}
	}
}
