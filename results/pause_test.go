package results

import (
	"bytes"
	"testing"
)

// A writer told to pause does so every pauseRows rows it gathers and
// before every frame it compresses (a column's buffer, once or twice when
// weighed), and writes the same bytes as one that does not.
func TestWriterPausesBetweenPiecesOfWork(t *testing.T) {
	const batch = 2*pauseRows + 100 // two pauses gathering each batch
	rows := randomRows(3*batch, 3)
	batches := len(rows) / batch
	// write writes rows with gathering and framing counting their pauses
	// apart (a nil counter: no pause there).
	write := func(gathering, framing *int) ([]byte, int) {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, testMeta, []string{"home", "create", "s.login"})
		if err != nil {
			t.Fatal(err)
		}
		if gathering != nil {
			w.SetPause(func() { *gathering++ })
		}
		if framing != nil {
			w.enc.pause = func() { *framing++ }
		}
		for i := 0; i < len(rows); i += batch {
			if err := w.Write(rows[i:min(i+batch, len(rows))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), len(w.ids)
	}
	plain, _ := write(nil, nil)
	var gathering, framing int
	paused, columns := write(&gathering, &framing)
	if !bytes.Equal(paused, plain) {
		t.Fatal("the writer that paused wrote other bytes than the one that did not")
	}
	if want := 2 * batches; gathering != want {
		t.Errorf("%d pauses gathering %d batches of %d rows, want %d", gathering, batches, batch, want)
	}
	// The batches after the first are the writer's own (arrow-go writes
	// the first), each at least one frame a column.
	if want := (batches - 1) * columns; framing < want {
		t.Errorf("%d pauses framing %d batches of %d columns, want at least %d", framing, batches, columns, want)
	}
	r, err := NewReader(bytes.NewReader(paused))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := readRows(t, r); len(got) != len(rows) {
		t.Fatalf("read back %d rows of %d", len(got), len(rows))
	}
}
