package results

import (
	"bytes"
	"reflect"
	"testing"
)

// A run killed before its first batch (a second Ctrl-C, SIGKILL) must leave
// a results file that reads as a run with no rows, not an empty file that
// no reader accepts: the writer puts the schema out at once.
func TestWriterStartsTheStreamAtOnce(t *testing.T) {
	var buf bytes.Buffer
	if _, err := NewWriter(&buf, testMeta, []string{"home"}); err != nil {
		t.Fatal(err)
	}
	// No Write, no Close: the process died here.
	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%d bytes written before the first batch; reading them: %v", buf.Len(), err)
	}
	defer r.Close()
	if !reflect.DeepEqual(r.Meta, testMeta) {
		t.Errorf("meta = %+v, want %+v", r.Meta, testMeta)
	}
	if b, ok := r.Next(); ok && b.Len > 0 {
		t.Errorf("a batch of %d rows, want none", b.Len)
	}
}
