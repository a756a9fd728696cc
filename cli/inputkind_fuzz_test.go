package cli

import (
	"bytes"
	"os"
	"testing"
)

// FuzzArrowKind: whatever bytes follow an Arrow magic, telling the kind of
// a file reads only its schema and never panics or allocates without bound
// (go test ./cli -fuzz FuzzArrowKind).
func FuzzArrowKind(f *testing.F) {
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x10, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	for _, path := range []string{"testdata/ux/numvar.hcl"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k := arrowKind(bytes.NewReader(data))
		if k != inputTPlan && k != inputResults && k != inputSamples && k != inputArrow {
			t.Fatalf("arrowKind = %d, want one of the Arrow kinds", k)
		}
	})
}
