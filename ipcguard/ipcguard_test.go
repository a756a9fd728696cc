package ipcguard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

func TestAllocatorRefusalBecomesError(t *testing.T) {
	got := func() (err error) {
		defer Recover(&err)
		Allocator.Allocate(maxAllocation + 1)
		return nil
	}()
	if !errors.Is(got, ErrDamaged) {
		t.Fatalf("err = %v, want ErrDamaged", got)
	}
	if b := Allocator.Allocate(64); len(b) != 64 {
		t.Fatalf("a normal allocation gave %d bytes", len(b))
	}
}

func schemaStream(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestStreamReplaysAGoodSchema(t *testing.T) {
	good := schemaStream(t)
	r, err := Stream(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := io.ReadAll(r)
	if !bytes.Equal(again, good) {
		t.Fatal("Stream changed the bytes it replays")
	}
	if _, err := ipc.NewReader(bytes.NewReader(again)); err != nil {
		t.Fatal(err)
	}
}

// A fields vector whose length cannot fit in the message is refused before
// arrow-go would allocate a slice of that length.
func TestStreamRefusesImpossibleVectorLengths(t *testing.T) {
	good := schemaStream(t)
	refused := 0
	// Overwrite each aligned 4-byte word of the message with a huge count:
	// whichever word is the fields vector's length must be refused, and no
	// variant may crash.
	for off := 8; off+4 <= len(good); off += 4 {
		bad := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(bad[off:], 0x7fffffff)
		if _, err := Stream(bytes.NewReader(bad)); errors.Is(err, ErrDamaged) {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no corrupted length was refused")
	}
	for _, bad := range [][]byte{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, {0xff, 0xff, 0xff, 0xff, 4, 0, 0, 0}} {
		if _, err := Stream(bytes.NewReader(bad)); err == nil {
			t.Fatalf("%x: accepted", bad)
		}
	}
}

// A file of a few bytes that claims a 64 MiB schema message must not make
// the reader allocate 64 MiB before finding the bytes are not there.
func TestClaimedSchemaLengthDoesNotSizeTheAllocation(t *testing.T) {
	claim := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 4, 1, 2, 3, 4} // continuation, 64 MiB, 4 bytes
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Stream(bytes.NewReader(claim))
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a cut-off schema message was accepted")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d KiB for a 12-byte file", grew>>10)
	}
}
