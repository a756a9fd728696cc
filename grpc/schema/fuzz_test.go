package schema

import (
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// FuzzDecodeReply: any bytes a reflection service might send decode or
// fail with an error, never a panic, and never yield more entries than
// their bytes can hold (a listed service costs at least 4).
func FuzzDecodeReply(f *testing.F) {
	list := protowire.AppendTag(nil, respListServices, protowire.BytesType)
	svc := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "pkg.Svc")
	list = protowire.AppendBytes(list, protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), svc))
	f.Add(list)
	errResp := protowire.AppendTag(nil, respError, protowire.BytesType)
	f.Add(protowire.AppendBytes(errResp, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5)))
	f.Add([]byte{0x22, 0x03, 0x0a, 0x01, 0xff})
	f.Fuzz(func(t *testing.T, m []byte) {
		r, err := decodeReply(m)
		if err == nil && 4*len(r.services)+2*len(r.files) > len(m) {
			t.Fatalf("%d services and %d files out of %d bytes", len(r.services), len(r.files), len(m))
		}
	})
}

// FuzzFromProtoset: a protoset file is read from disk as given; garbage is
// an error, never a panic, and what reads serializes back to itself.
func FuzzFromProtoset(f *testing.F) {
	if b, err := os.ReadFile("testdata/shop.protoset"); err == nil {
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := FromProtoset(b)
		if err != nil {
			return
		}
		again, err := FromProtoset(sc.Protoset())
		if err != nil || string(again.Protoset()) != string(sc.Protoset()) {
			t.Fatalf("a protoset read back does not serialize alike: %v", err)
		}
	})
}
