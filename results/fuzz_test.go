package results

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzReader: no input, however damaged, may crash a reader; it either
// reads what it can or says what is wrong.
func FuzzReader(f *testing.F) {
	good := writeRows(f, randomRows(300, 5), 100)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		defer r.Close()
		for {
			b, ok := r.Next()
			if !ok {
				break
			}
			for i := 0; i < b.Len; i++ {
				_ = b.EndpointNames[b.Endpoint[i]]
				_ = b.ErrorNames[b.Error[i]]
			}
		}
		// The same input read as diff reads it: some columns, the body
		// checksum checked in place of the rest.
		r2, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("read once, refused the second time: %v", err)
		}
		defer r2.Close()
		if err := r2.Only(ColSlot, ColEndpoint, ColLatency); err != nil {
			t.Fatal(err)
		}
		for b, ok := r2.Next(); ok; b, ok = r2.Next() {
			if len(b.Slot) != b.Len || len(b.Latency) != b.Len || len(b.Endpoint) != b.Len {
				t.Fatalf("a batch of %d rows with %d slots, %d latencies, %d endpoints", b.Len, len(b.Slot), len(b.Latency), len(b.Endpoint))
			}
			for i := 0; i < b.Len; i++ {
				_ = b.EndpointNames[b.Endpoint[i]]
			}
		}
	})
}

// FuzzLiteralFrame: whatever the writer puts in a literal-only zstd frame,
// an independent zstd decoder gives back exactly.
func FuzzLiteralFrame(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
	f.Add(writeRows(f, randomRows(200, 1), 200))
	dec, err := zstd.NewReader(nil)
	if err != nil {
		f.Fatal(err)
	}
	var lf literalFrame
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := dec.DecodeAll(lf.appendFrame(nil, src), nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%d bytes decoded to %d: %v", len(src), len(got), err)
		}
	})
}

// FuzzReadSamples: samples.arrow comes from disks and other machines too;
// any damage is an error or fewer samples, never a crash.
func FuzzReadSamples(f *testing.F) {
	var good bytes.Buffer
	if err := WriteSamples(&good, []Sample{{Endpoint: "home", Status: 200, Headers: "A: b", Body: []byte("hello"), BodySize: 5}}); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, _ := ReadSamples(bytes.NewReader(data))
		for _, s := range ss {
			_ = len(s.Body) + len(s.Headers)
		}
	})
}
