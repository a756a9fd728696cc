// Package ipcguard reads Arrow IPC streams from files that may be damaged
// without letting a damaged length crash the process or exhaust its memory.
package ipcguard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
)

// arrow-go trusts the lengths written in a file: a damaged one makes it
// allocate whatever the bytes say, and an allocation too large for the
// machine kills the process, which no recover can catch. Results files
// come from killed writers, copies and disks, so the reader guards both
// places lengths come from before arrow-go sees them: the schema message's
// vectors, checked against the message's own size, and every buffer, by an
// allocator that refuses sizes no results batch can have.

// ErrDamaged is wrapped by every error about an impossible length.
var ErrDamaged = errors.New("the file is damaged (an impossible length inside it)")

// maxAllocation bounds one buffer: tressi's batches hold a few MiB per
// column, and arrow-go's readers cap messages at 256 MiB.
const maxAllocation = 1 << 30

// Allocator refuses impossible allocations with a panic that Recover turns
// into an error. Pass it to ipc.NewReader with ipc.WithAllocator.
var Allocator = Bounded(memory.DefaultAllocator)

// Bounded wraps mem so impossible allocations panic (for Recover) instead
// of exhausting the process.
func Bounded(mem memory.Allocator) memory.Allocator { return boundedAllocator{mem} }

type boundedAllocator struct{ memory.Allocator }

type allocationRefused struct{ size int }

func (a boundedAllocator) Allocate(size int) []byte {
	if size < 0 || size > maxAllocation {
		panic(allocationRefused{size})
	}
	return a.Allocator.Allocate(size)
}

func (a boundedAllocator) Reallocate(size int, b []byte) []byte {
	if size < 0 || size > maxAllocation {
		panic(allocationRefused{size})
	}
	return a.Allocator.Reallocate(size, b)
}

// Recover, deferred directly, turns a refused allocation or an
// out-of-range read inside arrow-go into an error in *err.
func Recover(err *error) {
	if r := recover(); r != nil {
		*err = Damage(r)
	}
}

// Damage is the error for a value recovered from a panic while reading.
func Damage(r any) error {
	if a, ok := r.(allocationRefused); ok {
		return fmt.Errorf("%w: a buffer of %d bytes", ErrDamaged, a.size)
	}
	return fmt.Errorf("%w: %v", ErrDamaged, r)
}

// maxSchemaMessage bounds the schema message we read ahead of arrow-go.
const maxSchemaMessage = 64 << 20

// Stream reads an IPC stream's first message (the schema), checks its
// vectors fit in it, and returns a reader that replays it before the rest.
func Stream(r io.Reader) (io.Reader, error) {
	_, rest, err := StreamSchema(r)
	return rest, err
}

// StreamSchema is Stream that also returns the schema message as it stands
// in the file (its length prefix, metadata and padding): results readers
// hash it, since every byte of it means something to a reader.
func StreamSchema(r io.Reader) (framed []byte, rest io.Reader, err error) {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:4]); err != nil {
		return nil, nil, err
	}
	prefix := 4
	n := binary.LittleEndian.Uint32(head[:4])
	if n == 0xFFFFFFFF { // continuation marker, then the length
		if _, err := io.ReadFull(r, head[4:8]); err != nil {
			return nil, nil, err
		}
		prefix = 8
		n = binary.LittleEndian.Uint32(head[4:8])
	}
	if n < 8 || n > maxSchemaMessage {
		return nil, nil, fmt.Errorf("%w: a schema message of %d bytes", ErrDamaged, n)
	}
	// Read what is there, up to the length claimed: a cut-off or lying
	// file then costs what it holds, not what it claims.
	var buf bytes.Buffer
	buf.Write(head[:prefix])
	if _, err := io.Copy(&buf, io.LimitReader(r, int64(n))); err != nil {
		return nil, nil, err
	}
	framed = buf.Bytes()
	if len(framed)-prefix < int(n) {
		return nil, nil, fmt.Errorf("%w: a schema message of %d bytes in %d", ErrDamaged, n, len(framed)-prefix)
	}
	if err := checkSchemaVectors(framed[prefix:]); err != nil {
		return nil, nil, err
	}
	return framed, io.MultiReader(bytes.NewReader(framed), r), nil
}

// Field slots of the IPC flatbuffer tables (Message.fbs, Schema.fbs).
const (
	messageHeader   = 2
	schemaFields    = 1
	schemaMetadata  = 2
	fieldChildren   = 5
	fieldMetadata   = 6
	maxFieldNesting = 64
)

func checkSchemaVectors(meta []byte) (err error) {
	defer Recover(&err)
	msg := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	o := flatbuffers.UOffsetT(msg.Offset(slot(messageHeader)))
	if o == 0 {
		return fmt.Errorf("%w: the first message has no schema", ErrDamaged)
	}
	var schema flatbuffers.Table
	msg.Union(&schema, o)
	if err := checkFields(&schema, schemaFields, 0); err != nil {
		return err
	}
	return checkVector(&schema, schemaMetadata)
}

func slot(i int) flatbuffers.VOffsetT { return flatbuffers.VOffsetT(4 + 2*i) }

// checkVector checks a vector of offsets at a table's slot fits in the buffer.
func checkVector(t *flatbuffers.Table, s int) error {
	o := flatbuffers.UOffsetT(t.Offset(slot(s)))
	if o == 0 {
		return nil
	}
	if n := t.VectorLen(o); n < 0 || n*4 > len(t.Bytes) {
		return fmt.Errorf("%w: a vector of %d entries in a %d-byte message", ErrDamaged, n, len(t.Bytes))
	}
	return nil
}

func checkFields(t *flatbuffers.Table, s, depth int) error {
	if depth > maxFieldNesting {
		return fmt.Errorf("%w: fields nested deeper than %d", ErrDamaged, maxFieldNesting)
	}
	if err := checkVector(t, s); err != nil {
		return err
	}
	o := flatbuffers.UOffsetT(t.Offset(slot(s)))
	if o == 0 {
		return nil
	}
	vec, n := t.Vector(o), t.VectorLen(o)
	for i := 0; i < n; i++ {
		f := flatbuffers.Table{Bytes: t.Bytes, Pos: t.Indirect(vec + flatbuffers.UOffsetT(i*4))}
		if err := checkFields(&f, fieldChildren, depth+1); err != nil {
			return err
		}
		if err := checkVector(&f, fieldMetadata); err != nil {
			return err
		}
	}
	return nil
}
