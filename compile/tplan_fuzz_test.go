package compile

import (
	"bytes"
	"testing"
	"time"

	"github.com/tressi/tressi/plan"
)

// FuzzReadTPlan: a damaged .tplan is an error, never a crash, and its slot
// stream ends rather than panicking in the middle of a run.
func FuzzReadTPlan(f *testing.F) {
	p := openPlan(f, []plan.Stage{constant(time.Second, 300)}, 3, 1)
	s := mustCompile(f, p)
	var buf bytes.Buffer
	if err := WriteTPlan(&buf, s, p); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()/2])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 8, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, err := ReadTPlan(bytes.NewReader(data))
		if err != nil {
			return
		}
		src := tp.Schedule.Slots()
		chunk := make([]Slot, 128)
		for src.Next(chunk) > 0 {
		}
	})
}
