package results

import (
	"bytes"
	"testing"
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
