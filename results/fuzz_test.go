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
